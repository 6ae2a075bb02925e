/**
 * A release's own migration of an existing database (`prefect server database upgrade -y`), as a team runs it
 * when it moves its server to that release: the database named by its URL, in a home of its own.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inheritedEnvironment } from '../config/managedSettings.js';
import { useDatabase } from './prefect.js';

export interface Migration {
  command: string;
  seconds: number;
}

/** Migrates the database at `url` with the release of `bin`; throws with the command's last words when it fails. */
export function migrateDatabase(bin: string, url: string): Migration {
  const home = mkdtempSync(path.join(os.tmpdir(), 'conformance-migration-'));
  const env = inheritedEnvironment({ PREFECT_HOME: home, PREFECT_LOGGING_LEVEL: 'WARNING' });
  useDatabase(env, url);
  const args = ['server', 'database', 'upgrade', '-y'];
  const started = Date.now();
  try {
    const run = spawnSync(bin, args, { env, encoding: 'utf8', timeout: 900_000 });
    if (run.status !== 0)
      throw new Error(
        `\`prefect ${args.join(' ')}\` exited ${run.status ?? run.signal}: ${`${run.stderr ?? ''}${run.stdout ?? ''}`.trim().split('\n').slice(-3).join(' | ')}`,
      );
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
  return { command: `prefect ${args.join(' ')}`, seconds: Number(((Date.now() - started) / 1000).toFixed(1)) };
}
