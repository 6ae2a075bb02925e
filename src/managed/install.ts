/**
 * `npm run setup:prefect [-- X.Y.Z ...]`: install the pinned Prefect (or the releases named) into their
 * cached venvs now, rather than on first use. A release the version table does not list is started once to
 * find the pins it needs (releasePins.ts).
 */
import { installedRelease } from './releasePins.js';
import { venvDir } from './prefect.js';

const versions = process.argv.slice(2);
try {
  for (const version of versions.length ? versions : [undefined]) {
    const { bin, pin, found } = await installedRelease(version, (line) => process.stdout.write(`${line}\n`));
    process.stdout.write(`prefect ${pin.prefect} ready${found ? ` (${found})` : ''}: ${bin} (venv ${venvDir(pin)})\n`);
  }
} catch (e) {
  process.stderr.write(`setup:prefect: ${(e as Error).message}\n`);
  process.exitCode = 2;
}
