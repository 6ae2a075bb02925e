/** Family `methods`: verb semantics of spec §4.1. */
import { getSession } from '../src/run/session.js';
import { registerFamily } from '../src/run/register.js';

const session = await getSession();
await session.exerciseAll();
registerFamily(session, 'methods');
