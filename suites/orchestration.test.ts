/** Family `orchestration`: create_flow_run and set_state. */
import { orchestrationChecks } from '../src/checks/orchestration.js';
import { registerChecks } from '../src/run/register.js';
import { getSession } from '../src/run/session.js';

const session = await getSession();
await session.exerciseAll();
registerChecks(session, orchestrationChecks, session);
