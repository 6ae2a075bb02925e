/**
 * The suite on a Prefect release it was not tuned on: `--prefect-version 3.4.25` installs that release with
 * the pins of prefect-versions.json, starts it, and the run is judged against 3.4.25's own baseline, chosen
 * by the version the server reports. No false red: every failure of that release is a known deviation.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { readPin } from '../../src/managed/prefect.js';
import { runCli, WHOLE_RUN_MS, type CliRun } from '../support/runCli.js';

const OTHER = '3.4.25';
let run: CliRun;

beforeAll(async () => {
  expect(readPin(OTHER).why).toBeDefined(); // a release of the table, with the pins it needs
  run = await runCli(['--prefect-version', OTHER], {}, WHOLE_RUN_MS);
});

describe(`a managed Prefect ${OTHER}`, () => {
  test('is the target, reports its own version, and gets its own baseline', () => {
    expect(run.stderr).toBe('');
    const r = run.results!;
    expect(r.target.managed).toBe(`prefect ${OTHER} on sqlite`);
    expect(r.target.serverVersion).toBe(OTHER);
    expect(r.baseline).toEqual({
      file: `fixtures/baselines/prefect-${OTHER}.json`,
      why: `fixtures/baselines/prefect-${OTHER}.json (auto: the target is prefect ${OTHER} (the managed server))`,
    });
  });

  test('passes the gate: no failure outside its baseline, and most of its document exercised', () => {
    const r = run.results!;
    const failed = r.checks.filter((c) => c.status === 'failed').map((c) => `${c.id} ${c.operation}: ${c.message}`);
    expect(failed).toEqual([]);
    expect(run.code).toBe(0);
    expect(r.summary.xfail).toBeGreaterThan(0);
    const exercised = r.operations.filter((o) => o.exercised).length;
    expect(exercised / r.operations.length).toBeGreaterThanOrEqual(0.9);
  });

  test('leaves nothing behind', () => {
    const cleanup = run.results!.cleanup!;
    expect(cleanup.failed).toEqual([]);
    expect(cleanup.deleted).toBeGreaterThan(0);
  });
});
