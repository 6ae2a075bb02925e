/**
 * Managed Prefect servers (SQLite) for our integration tests, one per lane: starting one costs seconds, so the
 * files share them. vitest runs as many test files at once as it has workers, and a file uses the server of
 * its worker's lane (support/lane.ts): two files never use one server at the same time, so a file that counts
 * a whole collection, or a run's DELETE scenario that does, sees no other file's objects.
 */
import type { TestProject } from 'vitest/node';
import { startPrefect } from '../src/managed/prefect.js';
import { buildCli } from './support/runCli.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The base URL of each lane's server: the lane of a file is its worker's VITEST_POOL_ID. */
    prefectBaseUrls: string[];
  }
}

export async function setup(project: TestProject): Promise<() => Promise<void>> {
  const lanes = project.vitest.config.maxWorkers;
  const starting = Promise.all(Array.from({ length: lanes }, () => startPrefect({ database: 'sqlite' })));
  // The tests run the CLI as users do, compiled: from this source, not from an earlier build. It compiles
  // while the servers start.
  buildCli();
  const servers = await starting;
  project.provide(
    'prefectBaseUrls',
    servers.map((s) => s.baseUrl),
  );
  return async () => {
    await Promise.all(servers.map((s) => s.stop()));
  };
}
