/** Family `versioning`: the API version header. */
import { registerSuite } from '../src/run/register.js';

await registerSuite('versioning');
