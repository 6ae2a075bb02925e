/**
 * The GitHub Action's run step (action.yml), as the runner runs it: its script in bash, its inputs as the
 * environment the step sets, against a real Prefect; its outputs as GITHUB_OUTPUT receives them.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { laneBaseUrl } from '../support/lane.js';
import { cleanEnv, prefectBaseline, repoRoot } from '../support/runCli.js';

/** The `run: |` script of the step with `id: run`. */
function runScript(): string {
  const text = readFileSync(path.join(repoRoot, 'action.yml'), 'utf8');
  const step = text.slice(text.indexOf('      id: run\n'));
  const body = step.slice(step.indexOf('      run: |\n') + '      run: |\n'.length);
  return body
    .split('\n')
    .filter((line) => line.startsWith('        ') || line === '')
    .map((line) => line.slice(8))
    .join('\n');
}

function runStep(inputs: Record<string, string>) {
  const workspace = mkdtempSync(path.join(os.tmpdir(), 'workspace-'));
  const output = path.join(workspace, 'github-output');
  const r = spawnSync('bash', ['-e', '-c', runScript()], {
    cwd: workspace,
    encoding: 'utf8',
    timeout: 300_000,
    env: cleanEnv({
      GITHUB_ACTION_PATH: repoRoot,
      GITHUB_OUTPUT: output,
      CONFORMANCE_OUT: path.join(workspace, 'conformance-reports'),
      FAIL_ON: 'must',
      SUITE_ARGS: '',
      ...inputs,
    }),
  });
  const outputs = Object.fromEntries(
    readFileSync(output, 'utf8')
      .trim()
      .split('\n')
      .map((line) => line.split('=', 2) as [string, string]),
  );
  return { code: r.status, outputs, stdout: r.stdout };
}

describe('the GitHub Action', () => {
  test('a run: its outputs are the verdict, the counts and the report folder; its exit code the gate', () => {
    const r = runStep({
      CONFORMANCE_BASE_URL: laneBaseUrl(),
      CONFORMANCE_BASELINE: prefectBaseline,
      CONFORMANCE_OPERATIONS: '^POST /flows/(filter|count)$',
      CONFORMANCE_READ_ONLY: 'true',
      SUITE_ARGS: '--families contract,errors',
    });
    expect(r.code).toBe(0);
    expect(r.outputs.verdict).toBe('PASS');
    expect(r.outputs['exit-code']).toBe('0');
    expect(Number(r.outputs.passed)).toBeGreaterThan(0);
    const results = JSON.parse(readFileSync(path.join(r.outputs.reports, 'results.json'), 'utf8'));
    expect(results.readOnly).toBe(true);
    expect(Number(r.outputs.failed)).toBe(results.summary.failed);
  });

  test('bad input: the verdict ERROR and exit 2, whatever fail-on says', () => {
    const r = runStep({ CONFORMANCE_BASE_URL: 'http//no-colon', FAIL_ON: 'never' });
    expect(r.code).toBe(2);
    expect(r.outputs.verdict).toBe('ERROR');
  });
});
