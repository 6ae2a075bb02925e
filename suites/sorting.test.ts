/** Family `sorting`: every value of every sort enum of the core collections. */
import { registerSuite } from '../src/adapters/vitest/register.js';

await registerSuite('sorting');
