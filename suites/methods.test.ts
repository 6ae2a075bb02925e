/** Family `methods`: verb semantics of spec §4.1. */
import { methodsChecks } from '../src/checks/methods.js';
import { registerChecks } from '../src/run/register.js';
import { getSession } from '../src/run/session.js';

const session = await getSession();
await session.exerciseAll();
registerChecks(session, methodsChecks, session);
