/**
 * `conformance replay`: the failing cases of an earlier run, rerun exactly against a target. A mutant makes
 * a failure; replayed against the same mutant it still fails, against the real server it passes now.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { laneBaseUrl } from '../support/lane.js';
import { gateMutants } from '../mutants/registry.js';
import { startProxy, type RunningProxy } from '../support/proxy.js';
import { cleanEnv, failedChecks, prefectTargetEnv, repoRoot, runCli } from '../support/runCli.js';

const { mutant, operations, killedBy } = gateMutants.find((m) => m.mutant.id === 'gate-deployments-202')!;
let proxy: RunningProxy;

beforeAll(async () => {
  proxy = await startProxy(laneBaseUrl());
  proxy.setMutant(mutant);
});

afterAll(() => proxy?.close());

const env = (baseUrl: string) => prefectTargetEnv(baseUrl);

describe('replay', () => {
  test("reruns exactly the run's failing cases: still failing on the mutant, passing on the real server", async () => {
    const first = await runCli([], {
      ...env(proxy.baseUrl),
      CONFORMANCE_OPERATIONS: operations,
      CONFORMANCE_SEED: '4242',
    });
    expect(failedChecks(first.results)).toEqual(expect.arrayContaining(killedBy));
    const failing = first.results!.checks.filter((c) => c.status === 'failed');

    const again = await runCli(['replay', first.outDir, '--out', path.join(first.outDir, 'again')], env(proxy.baseUrl));
    expect(again.code).toBe(1);
    const replay = JSON.parse(readFileSync(path.join(first.outDir, 'again', 'replay.json'), 'utf8')) as {
      seed: number;
      replayed: Array<{ id: string; operation: string; outcome: string }>;
    };
    expect(replay.seed).toBe(4242);
    expect(replay.replayed.map((r) => `${r.id} ${r.operation}`).sort()).toEqual(
      failing.map((c) => `${c.id} ${c.operation}`).sort(),
    );
    for (const r of replay.replayed) expect(r.outcome, `${r.id} ${r.operation}`).toBe('still fails');
    expect(again.stdout).toContain(`STILL FAILS: ${killedBy[0]}`);
    // Its last line is the rerun's gate verdict, which its exit code follows.
    expect(again.stdout.trim().split('\n').at(-1)).toMatch(/^FAIL \(exit 1\): \d+ MUST check\(s\) failed/);
    // Exactly those cases: no other check, no other operation was run.
    const rerun = again.results ?? JSON.parse(readFileSync(path.join(first.outDir, 'again', 'results.json'), 'utf8'));
    const ran = new Set(rerun.checks.map((c: { check: string; operation: string }) => `${c.check} ${c.operation}`));
    expect([...ran].sort()).toEqual([...new Set(failing.map((c) => `${c.check} ${c.operation}`))].sort());
    expect(rerun.seed).toBe(4242);
    // Judged by the recorded run's baseline, as it was judged.
    expect(rerun.baseline.file).toBe(first.results!.baseline!.file);

    const fixed = await runCli(
      ['replay', first.outDir, '--check', killedBy[0].split(' ')[0], '--out', path.join(first.outDir, 'fixed')],
      env(laneBaseUrl()),
    );
    expect(fixed.code).toBe(0);
    expect(fixed.stdout).toContain(`PASSES NOW: ${killedBy[0]}`);
  });

  test('nothing to replay: one line, exit 2', async () => {
    const clean = await runCli([], {
      ...env(laneBaseUrl()),
      // POST /flows/count has a known deviation (errors.wrong-content-type): a run with nothing but xfails.
      CONFORMANCE_OPERATIONS: '^(GET /flows/\\{id\\}|POST /flows/count)$',
    });
    const r = await runCli(['replay', clean.outDir], env(laneBaseUrl()));
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/replay: no failing case in/);
    // Its known deviations are there to replay, and the line says how.
    expect(r.stderr.trim()).toMatch(/it has \d+ known deviation\(s\) \(xfail\), which --known replays$/);
  });

  test("a failure's replay line reproduces it after cleanup deleted its object; its curl line says it cannot", async () => {
    // A known 500 of Prefect 3.8.8 on a block document the run makes (baseline: contract.no-5xx, block_schema_id).
    const run = await runCli([], {
      ...env(laneBaseUrl()),
      CONFORMANCE_OPERATIONS: '^PATCH /block_documents/\\{id\\}$',
      CONFORMANCE_CHECKS: 'contract.no-5xx',
    });
    const known = run.results!.checks.find((c) => c.status === 'xfail')!;
    expect(known.reproNote).toMatch(/cleanup deleted/);
    const curl = spawnSync('sh', ['-c', `${known.repro!} -o /dev/null -w '%{http_code}'`], { encoding: 'utf8' });
    expect(curl.stdout).toBe('404');
    expect(known.replay).toBe(
      `npm run conformance -- replay ${run.outDir}/results.json --check contract.no-5xx --operation 'PATCH /block_documents/{id}' --known --base-url ${laneBaseUrl()} --disposable`,
    );
    // The line as the terminal and the report give it, run by a shell in the repository.
    const replayed = spawnSync('sh', ['-c', known.replay!], { cwd: repoRoot, env: cleanEnv(), encoding: 'utf8' });
    expect(replayed.status).toBe(0);
    expect(replayed.stdout).toContain('STILL FAILS, KNOWN: contract.no-5xx PATCH /block_documents/{id}');
  });
});
