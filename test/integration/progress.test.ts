/**
 * Progress: under a pseudo-terminal (util-linux `script`) the run draws its progress line in place; with CI
 * set, it writes plain lines instead, a CI log's view of where the run is.
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
    expect(r.output).toMatch(/\d+ s \[\d+\/\d+ contract\] operations \d+\/\d+ · checks \d+\/\d+ · \d+ failed so far/);
  });

  test('in CI: a plain line when a family starts, with the time since the start, never a line rewritten', () => {
    const r = runUnderTerminal({ CI: 'true' });
    expect(r.status).toBe(0);
    expect(r.output).toContain('passed');
    const lines = r.output.split(/\r?\n/).filter((l) => / · checks \d+\/\d+ · /.test(l));
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines)
      expect(line).toMatch(
        /^conformance: \d+ s \[\d+\/\d+ \w+\] operations \d+\/\d+ · checks \d+\/\d+ · \d+ failed so far$/,
      );
    expect(r.output).not.toContain('\x1b[2K');
  });
});
