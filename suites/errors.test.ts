/** Family `errors`: malformed identifiers, content types, error bodies. */
import { registerSuite } from '../src/run/register.js';

await registerSuite('errors');
