/** Family `spec`: the document against the conventions of spec §1. */
import { specLintChecks } from '../src/checks/specLint.js';
import { registerChecks } from '../src/run/register.js';
import { getSession } from '../src/run/session.js';

const session = await getSession();
await session.exerciseAll();
registerChecks(session, specLintChecks, session);
