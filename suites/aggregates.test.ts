/** Family `aggregates`: the query semantics of spec §4.3, against an oracle over the run's own objects. */
import { getSession } from '../src/run/session.js';
import { registerFamily } from '../src/run/register.js';

const session = await getSession();
await session.exerciseAll();
registerFamily(session, 'aggregates');
