/** Family `errors`: malformed identifiers, content types, error bodies. */
import { errorsChecks } from '../src/checks/errors.js';
import { registerChecks } from '../src/run/register.js';
import { getSession } from '../src/run/session.js';

const session = await getSession();
await session.exerciseAll();
registerChecks(session, errorsChecks, session);
