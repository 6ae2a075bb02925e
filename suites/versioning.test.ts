/** Family `versioning`: the API version header. */
import { registerSuite } from '../src/adapters/vitest/register.js';

await registerSuite('versioning');
