/** Family `spec`: the document against the conventions of spec §1. */
import { registerSuite } from '../src/adapters/vitest/register.js';

await registerSuite('spec');
