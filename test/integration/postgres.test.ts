/**
 * The same launcher on PostgreSQL (the local server at 127.0.0.1:5432): a fresh database for the run,
 * the suite clean against it with the baseline, and the database dropped afterwards.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import { runCli } from '../support/runCli.js';

function conformanceDatabases(): string[] {
  const out = execFileSync('psql', ['-h', '127.0.0.1', '-U', 'postgres', '-d', 'postgres', '-Atc', "SELECT datname FROM pg_database WHERE datname LIKE 'conformance_%'"], { encoding: 'utf8' });
  return out.split('\n').filter(Boolean);
}

describe('managed Prefect on PostgreSQL', () => {
  test('runs clean, and drops its database afterwards', async () => {
    const before = conformanceDatabases();
    const run = await runCli(['--db', 'postgres']);
    expect(run.stderr).toBe('');
    expect(run.results!.target.managed).toContain('postgres');
    expect(run.results!.checks.filter((c) => (c.status === 'failed' && c.level === 'MUST') || c.status === 'xpass').map((c) => `${c.id} ${c.operation}: ${c.message}`)).toEqual([]);
    expect(run.code).toBe(0);
    expect(run.results!.operations.filter((o) => o.reached2xx).length / run.results!.operations.length).toBeGreaterThanOrEqual(0.95);
    expect(conformanceDatabases()).toEqual(before);
  });
});
