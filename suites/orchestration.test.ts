/** Family `orchestration`: create_flow_run and set_state. */
import { getSession } from '../src/run/session.js';
import { registerFamily } from '../src/run/register.js';

const session = await getSession();
await session.exerciseAll();
registerFamily(session, 'orchestration');
