/** `npm run setup:prefect`: install the pinned Prefect into its cached venv now, rather than on first use. */
import { ensurePrefect, readPin, venvDir } from './prefect.js';

const bin = ensurePrefect((line) => process.stdout.write(`${line}\n`));
process.stdout.write(`prefect ${readPin().prefect} ready: ${bin} (venv ${venvDir()})\n`);
