/** Family `aggregates`: the query semantics of spec §4.3, against an oracle over the run's own objects. */
import { registerSuite } from '../src/run/register.js';

await registerSuite('aggregates');
