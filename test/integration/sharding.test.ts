/**
 * `--shard i/n` splits the suite files with vitest's sharding; `merge` joins the shards' blob reports with
 * vitest's --merge-reports. The merged results.json has the verdicts of the same run unsplit.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { laneBaseUrl } from '../support/lane.js';
import type { Results } from '../../src/report/results.js';
import { prefectBaseline, runCli, sqliteLabel } from '../support/runCli.js';

const verdicts = (r: Results) => r.checks.map((c) => `${c.id} ${c.operation} ${c.status}`).sort();

describe('sharding', () => {
  test('two shards, merged, give the verdicts of the unsharded run with the same seed', async () => {
    const env = {
      CONFORMANCE_BASE_URL: laneBaseUrl(),
      // One collection's reads and writes: every family but the orchestration's has checks of it.
      CONFORMANCE_OPERATIONS: '^(GET|POST|PATCH|DELETE) /flows/',
      CONFORMANCE_SEED: '777',
      CONFORMANCE_BASELINE: prefectBaseline,
      CONFORMANCE_TARGET_LABEL: sqliteLabel,
    };
    const whole = await runCli([], env);
    const first = await runCli(['--shard', '1/2'], env);
    const second = await runCli(['--shard', '2/2'], env);
    for (const r of [whole, first, second]) expect(r.stderr).toBe('');
    expect(existsSync(path.join(first.outDir, 'blob', 'blob-1-2.json'))).toBe(true);
    expect(existsSync(path.join(second.outDir, 'blob', 'blob-2-2.json'))).toBe(true);

    // Each shard ran part of the families, and none ran them all.
    const families = (r: Results) => new Set(r.checks.map((c) => c.family));
    const all = families(whole.results!);
    expect(families(first.results!).size).toBeLessThan(all.size);
    expect(families(second.results!).size).toBeLessThan(all.size);

    const merged = await runCli(['merge', path.join(first.outDir, 'blob'), path.join(second.outDir, 'blob')], {
      CONFORMANCE_BASELINE: prefectBaseline,
    });
    expect(merged.stderr).toBe('');
    expect(merged.code).toBe(whole.code);
    expect(verdicts(merged.results!)).toEqual(verdicts(whole.results!));
    expect(merged.results!.operations.map((o) => `${o.method} ${o.path} ${o.exercised}`).sort()).toEqual(
      whole.results!.operations.map((o) => `${o.method} ${o.path} ${o.exercised}`).sort(),
    );
    const junit = readFileSync(path.join(merged.outDir, 'junit.xml'), 'utf8');
    const wholeJunit = readFileSync(path.join(whole.outDir, 'junit.xml'), 'utf8');
    expect((junit.match(/<testcase /g) ?? []).length).toBe((wholeJunit.match(/<testcase /g) ?? []).length);
    expect(existsSync(path.join(merged.outDir, 'index.html'))).toBe(true);
  });

  test('a malformed --shard is a usage error', async () => {
    const r = await runCli(['--shard', '3/2'], { CONFORMANCE_BASE_URL: laneBaseUrl() });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/--shard must be i\/n/);
  });
});
