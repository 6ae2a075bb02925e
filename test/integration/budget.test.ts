/**
 * A time-boxed run (--budget) against the real server: it stops sending when the budget is spent, reports
 * every check it did not reach as not run (skipped, never passed), stops a check in the middle of its
 * property without calling that a failure, and its exit code follows the checks it judged.
 */
import { describe, expect, test } from 'vitest';
import { laneBaseUrl } from '../support/lane.js';
import { exitCodeOf } from '../../src/report/results.js';
import { failedChecks, prefectTargetEnv, runCli } from '../support/runCli.js';

describe('--budget', () => {
  test('every operation in 10 s: what was reached is judged, the rest is not run, and nothing crashed', async () => {
    const r = await runCli([], { ...prefectTargetEnv(laneBaseUrl()), CONFORMANCE_BUDGET: '10' });
    const results = r.results!;
    expect(results.timing?.timeBox).toMatchObject({ kind: 'budget', seconds: 10 });
    expect(results.timing?.timeBox?.spent?.reason).toMatch(/budget of 10 s was spent/);
    const notRun = results.checks.filter((c) => c.notRun);
    expect(notRun.length).toBeGreaterThan(0);
    expect(results.summary.notRun).toBe(notRun.length);
    for (const c of notRun) {
      expect(c.status).toBe('skipped');
      expect(c.message).toMatch(/^not run: the budget of 10 s was spent/);
    }
    // The spec family sends nothing: the budget never cuts it. Checks that send were reached too.
    expect(results.checks.filter((c) => c.family === 'spec' && c.notRun)).toEqual([]);
    const judgedSending = results.checks.filter((c) => c.family !== 'spec' && !c.notRun && c.status === 'passed');
    expect(judgedSending.length).toBeGreaterThan(0);
    // A check stopped mid-property (filters.oracle, pagination.windows) is not run, never an error of the run.
    expect(results.errors ?? []).toEqual([]);
    expect(failedChecks(results)).toEqual([]);
    expect(r.code).toBe(exitCodeOf(results));
    expect(r.code).toBe(0);
  });
});
