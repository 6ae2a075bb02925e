/** Family `auth`: credentials, when configured. */
import { registerSuite } from '../src/adapters/vitest/register.js';

await registerSuite('auth');
