/** Family `orchestration`: create_flow_run and set_state. */
import { registerSuite } from '../src/adapters/vitest/register.js';

await registerSuite('orchestration');
