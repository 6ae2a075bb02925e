/** Family `contract`: every operation of the target's document against what the document promises. */
import { getSession } from '../src/run/session.js';
import { registerFamily } from '../src/run/register.js';

const session = await getSession();
await session.exerciseAll();
registerFamily(session, 'contract');
