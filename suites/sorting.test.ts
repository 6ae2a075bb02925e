/** Family `sorting`: every value of every sort enum of the core collections. */
import { sortingChecks } from '../src/checks/sorting.js';
import { registerChecks } from '../src/run/register.js';
import { getSession } from '../src/run/session.js';

const session = await getSession();
await session.exerciseAll();
registerChecks(session, sortingChecks(session), session);
