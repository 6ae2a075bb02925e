/** Family `pagination`: the query semantics of spec §4.3, against an oracle over the run's own objects. */
import { registerSuite } from '../src/adapters/vitest/register.js';

await registerSuite('pagination');
