/** The databases the suite's managed servers made on the machine's PostgreSQL (each dropped when its server stops). */
import { execFileSync } from 'node:child_process';
import { PG } from '../../src/managed/prefect.js';

export function conformanceDatabases(): string[] {
  const out = execFileSync(
    'psql',
    [
      '-h',
      PG.host,
      '-p',
      String(PG.port),
      '-U',
      PG.user,
      '-d',
      'postgres',
      '-Atc',
      "SELECT datname FROM pg_database WHERE datname LIKE 'conformance_%'",
    ],
    { encoding: 'utf8' },
  );
  return out.split('\n').filter(Boolean);
}
