/**
 * One managed Prefect server (SQLite) for all of our own integration tests: starting one costs seconds,
 * so the tests share it and each run scopes itself by its own run tag.
 */
import type { TestProject } from 'vitest/node';
import { startPrefect, type ManagedServer } from '../src/managed/prefect.js';
import { buildCli } from './support/runCli.js';

declare module 'vitest' {
  export interface ProvidedContext {
    prefectBaseUrl: string;
  }
}

let server: ManagedServer | undefined;

export async function setup(project: TestProject): Promise<void> {
  // The tests run the CLI as users do, compiled: from this source, not from an earlier build.
  buildCli();
  server = await startPrefect({ database: 'sqlite' });
  project.provide('prefectBaseUrl', server.baseUrl);
}

export async function teardown(): Promise<void> {
  await server?.stop();
}
