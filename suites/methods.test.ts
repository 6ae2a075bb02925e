/** Family `methods`: verb semantics of spec §4.1. */
import { registerSuite } from '../src/adapters/vitest/register.js';

await registerSuite('methods');
