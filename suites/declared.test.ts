/** The families a run declares in its own check modules (`--check-modules`), after the suite's own. */
import { registerDeclaredSuites } from '../src/adapters/vitest/register.js';

await registerDeclaredSuites();
