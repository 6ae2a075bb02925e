/** Family `pagination`: the query semantics of spec §4.3, against an oracle over the run's own objects. */
import { paginationChecks } from '../src/checks/pagination.js';
import { registerChecks } from '../src/run/register.js';
import { getSession } from '../src/run/session.js';

const session = await getSession();
await session.exerciseAll();
registerChecks(session, paginationChecks, session);
