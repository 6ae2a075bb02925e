/** Family `methods`: verb semantics of spec §4.1. */
import { registerSuite } from '../src/run/register.js';

await registerSuite('methods');
