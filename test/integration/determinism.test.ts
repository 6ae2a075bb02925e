/**
 * The same seed gives the same run: three runs against the real server, each with its own run tag, send
 * the same (normalised) requests, as the hash in results.json says, and reach the same verdicts; `compare`
 * of two of them finds no difference (what differs between runs, ids, times and run tags, is masked).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { laneBaseUrl } from '../support/lane.js';
import type { Comparison } from '../../src/report/compare.js';
import { prefectBaseline, runCli, sqliteLabel } from '../support/runCli.js';

describe('determinism', () => {
  test('three runs with the same seed and run tags of two lengths: same request sequence, same verdicts', async () => {
    // A tag longer than the default: a generated operand cut from the tag would differ between them. Two runs
    // keep the default tag, for compare: an unscoped list sorted by name puts the run's objects among the
    // server's others by their tag, so only runs whose tags sort alike answer it in the same order.
    const runTags = ['conformance-a-much-longer-run-tag', undefined, undefined];
    const runs = [];
    for (const runTag of runTags)
      runs.push(
        await runCli([], {
          ...(runTag ? { CONFORMANCE_RUN_TAG: runTag } : {}),
          CONFORMANCE_BASE_URL: laneBaseUrl(),
          CONFORMANCE_OPERATIONS: '^(GET|POST|PATCH|DELETE) /(flows|variables)/',
          CONFORMANCE_SEED: '4242',
          CONFORMANCE_DISPOSABLE_TARGET: '1',
          CONFORMANCE_BASELINE: prefectBaseline,
          CONFORMANCE_TARGET_LABEL: sqliteLabel,
        }),
      );
    expect(runs[0].results!.runTag).toBe(runTags[0]);
    const hashes = runs.map((r) => r.results!.requestSequence!.sha256);
    expect(runs[0].results!.requestSequence!.requests).toBeGreaterThan(100);
    expect(new Set(hashes).size).toBe(1);
    const verdicts = runs.map((r) => r.results!.checks.map((c) => `${c.id} ${c.operation} ${c.status}`).join('\n'));
    for (const v of verdicts.slice(1)) expect(v).toBe(verdicts[0]);

    // compare masks what differs between two runs of one seed (ids, times, run tags): it finds nothing.
    const compared = await runCli(['compare', runs[1].outDir, runs[2].outDir]);
    expect(compared.stderr).toBe('');
    expect(compared.code).toBe(0);
    const c = JSON.parse(readFileSync(path.join(compared.outDir, 'compare.json'), 'utf8')) as Comparison;
    expect(c.drift!.changes).toEqual([]);
    expect(c.verdicts!.changes).toEqual([]);
    expect(c.behaviour!.matched).toBeGreaterThan(50);
    expect(c.behaviour!.onlyA + c.behaviour!.onlyB).toBe(0);
    expect(c.behaviour!.differences).toEqual([]);
  });
});
