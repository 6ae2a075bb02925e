/** Family `errors`: malformed identifiers, content types, error bodies. */
import { registerSuite } from '../src/adapters/vitest/register.js';

await registerSuite('errors');
