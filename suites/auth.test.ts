/** Family `auth`: credentials, when configured. */
import { registerSuite } from '../src/run/register.js';

await registerSuite('auth');
