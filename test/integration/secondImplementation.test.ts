/**
 * The suite on a server that is not Prefect: the project's second implementation (support/specServer.ts), given
 * by URL with nothing configured but its key, as the builder of a compatible server runs it. Every family runs
 * and is judged from the target's document and the spec alone: no failure on a correct implementation, few
 * checks skipped (each with its reason), and nothing of the run's left behind.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BUILT_IN_FAMILIES } from '../../src/checks/core/check.js';
import { type CliRun, failedChecks, runCli, WHOLE_RUN_MS } from '../support/runCli.js';
import { type RunningSpecServer, startSpecServer } from '../support/specServer.js';

const KEY = 'spec-server-key-0001';
/** The collections the second implementation serves, each counted through its own count operation. */
const COLLECTIONS = ['flows', 'flow_runs', 'task_runs', 'deployments', 'artifacts', 'variables'];

let server: RunningSpecServer;
let run: CliRun;

async function counts(): Promise<Record<string, number>> {
  const entries = await Promise.all(
    COLLECTIONS.map(async (c) => {
      const answer = await fetch(`${server.baseUrl}/${c}/count`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
        body: '{}',
      });
      return [c, (await answer.json()) as number] as const;
    }),
  );
  return Object.fromEntries(entries);
}

beforeAll(async () => {
  server = await startSpecServer({ apiKey: KEY });
  run = await runCli(['--base-url', server.baseUrl, '--disposable'], { CONFORMANCE_API_KEY: KEY }, WHOLE_RUN_MS);
}, WHOLE_RUN_MS + 60_000);

afterAll(() => server?.stop());

describe('a server that is not Prefect (the second implementation)', () => {
  test('passes: no failure on a correct implementation, and the seed profile judged it', () => {
    expect(failedChecks(run.results), server.log()).toEqual([]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.results!.target.profile).toBe('seed');
  });

  test('every family runs, and at most 5% of checks are skipped, each with its reason', () => {
    const checks = run.results!.checks;
    const skipped = checks.filter((c) => c.status === 'skipped');
    expect(skipped.length / checks.length).toBeLessThanOrEqual(0.05);
    for (const c of skipped) expect(c.message, c.id).toBeTruthy();
    for (const family of BUILT_IN_FAMILIES) {
      const judged = checks.filter((c) => c.family === family && c.status !== 'skipped');
      expect(judged.length, family).toBeGreaterThan(0);
    }
  });

  test("its conformance statement judges every clause the spec's families test", () => {
    const standing = Object.fromEntries(run.results!.statement!.map((s) => [s.clause, s.standing]));
    for (const clause of ['3', '4.1', '4.1 rule 1', '4.1 rule 2', '4.2', '4.3', '5', '7', '8', '9'])
      expect(standing[clause], clause).toBe('judged');
    for (const rule of [1, 2, 3, 4, 5, 6]) expect(standing[`4.3 rule ${rule}`], `4.3 rule ${rule}`).toBe('judged');
    expect(run.stdout).toMatch(/conformance statement: \d+ of 25 clauses of the spec judged/);
  });

  test('leaves nothing of the run behind', async () => {
    expect(await counts()).toEqual(Object.fromEntries(COLLECTIONS.map((c) => [c, 0])));
  });
});
