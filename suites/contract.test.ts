/** Family `contract`: every operation of the target's document against what the document promises. */
import { registerSuite } from '../src/run/register.js';

await registerSuite('contract');
