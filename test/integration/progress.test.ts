/**
 * Progress goes to a terminal only: under a pseudo-terminal (util-linux `script`) the run draws its
 * progress line; with CI set, or through a pipe, it stays quiet.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, inject, test } from 'vitest';
import { cleanEnv, cliEntry, prefectBaseline, repoRoot } from '../support/runCli.js';

function runUnderTerminal(extra: Record<string, string>): { status: number | null; output: string } {
  const cli = JSON.stringify(cliEntry);
  const env = cleanEnv({
    CONFORMANCE_BASE_URL: inject('prefectBaseUrl'),
    CONFORMANCE_OPERATIONS: '^(GET|POST) /flows/',
    CONFORMANCE_BASELINE: prefectBaseline,
    CONFORMANCE_OUT: path.join(repoRoot, 'reports', '.progress-test'),
    ...extra,
  });
  delete env.CONFORMANCE_QUIET;
  delete env.CI;
  const r = spawnSync('script', ['-qec', cli, '/dev/null'], {
    cwd: repoRoot,
    env: { ...env, ...extra },
    encoding: 'utf8',
    timeout: 300_000,
  });
  return { status: r.status, output: r.stdout + r.stderr };
}

describe('progress', () => {
  test('on a terminal: the family, operations and checks done out of the total, failures so far', () => {
    const r = runUnderTerminal({});
    expect(r.status).toBe(0);
    expect(r.output).toMatch(/\[\d+\/\d+ contract\] operations \d+\/\d+ · checks \d+\/\d+ · \d+ failed so far/);
  });

  test('on a terminal in CI: no progress line', () => {
    const r = runUnderTerminal({ CI: 'true' });
    expect(r.status).toBe(0);
    expect(r.output).toContain('passed');
    expect(r.output).not.toMatch(/checks \d+\/\d+/);
  });
});
