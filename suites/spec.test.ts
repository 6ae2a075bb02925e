/** Family `spec`: the document against the conventions of spec §1. */
import { registerSuite } from '../src/run/register.js';

await registerSuite('spec');
