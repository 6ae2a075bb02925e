/** Family `contract`: every operation of the target's document against what the document promises. */
import { registerSuite } from '../src/adapters/vitest/register.js';

await registerSuite('contract');
