/** Family `contract`: every operation of the target's document against what the document promises. */
import { contractChecks } from '../src/checks/contract.js';
import { registerChecks } from '../src/run/register.js';
import { getSession } from '../src/run/session.js';

const session = await getSession();
await session.exerciseAll();
registerChecks(session, contractChecks, { validators: session.validators, runOf: (op) => session.runOf(op) });
