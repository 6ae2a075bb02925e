/** Family `versioning`: the API version header. */
import { versioningChecks } from '../src/checks/versioning.js';
import { registerChecks } from '../src/run/register.js';
import { getSession } from '../src/run/session.js';

const session = await getSession();
await session.exerciseAll();
registerChecks(session, versioningChecks, session);
