/** The package's own folder (its version table, baselines, suites and reports' default home), from this file's place in it. */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
