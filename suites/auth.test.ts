/** Family `auth`: credentials, when configured. */
import { authChecks } from '../src/checks/auth.js';
import { registerChecks } from '../src/run/register.js';
import { getSession } from '../src/run/session.js';

const session = await getSession();
await session.exerciseAll();
registerChecks(session, authChecks, session);
