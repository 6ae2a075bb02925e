/**
 * `npm run setup:prefect [-- X.Y.Z ...]`: install the pinned Prefect (or the releases named) into their
 * cached venvs now, rather than on first use.
 */
import { ensurePrefect, readPin, venvDir } from './prefect.js';

const versions = process.argv.slice(2);
try {
  for (const version of versions.length ? versions : [undefined]) {
    const pin = readPin(version);
    const bin = ensurePrefect((line) => process.stdout.write(`${line}\n`), pin);
    process.stdout.write(`prefect ${pin.prefect} ready: ${bin} (venv ${venvDir(pin)})\n`);
  }
} catch (e) {
  process.stderr.write(`setup:prefect: ${(e as Error).message}\n`);
  process.exitCode = 2;
}
