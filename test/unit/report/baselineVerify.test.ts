/** baseline verify: each entry, per operation, reproduced, different, not reproduced or not judged by a run. */
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { type Baseline, type BaselineEntry, loadBaseline, replayId } from '../../../src/baseline/entries.js';
import { shippedBaselines } from '../../../src/baseline/choice.js';
import { staleEntries, verificationMarkdown, verifyBaseline } from '../../../src/report/baselineVerify.js';
import type { CheckResult } from '../../../src/report/results.js';
import { repoRoot } from '../support.js';

const entry = (over: Partial<BaselineEntry>): BaselineEntry => ({
  check: 'contract.no-5xx',
  operation: 'POST /flows/',
  kind: 'server-error',
  key: '500 generated',
  reason: 'r',
  ...over,
});

const result = (operation: string, status: CheckResult['status'], failures: Array<[string, string]> = []) =>
  ({
    id: 'contract.no-5xx',
    check: 'contract.no-5xx',
    operation,
    status,
    failures: failures.map(([kind, key]) => ({ kind, key, message: '' })),
  }) as unknown as CheckResult;

describe('verifyBaseline', () => {
  test('per operation: reproduced, different, not reproduced, not judged; the entry is its worst judged', () => {
    const baseline: Baseline = {
      entries: [entry({ operation: ['POST /flows/', 'PATCH /flows/{id}', 'POST /deployments/', 'POST /variables/'] })],
    };
    const [v] = verifyBaseline(baseline, {
      checks: [
        result('POST /flows/', 'xfail', [['server-error', '500 generated']]),
        result('PATCH /flows/{id}', 'failed', [['server-error', '500 negative:wrong-type']]),
        result('POST /deployments/', 'passed'),
      ],
    });
    expect(v.operations).toEqual([
      { operation: 'POST /flows/', outcome: 'reproduced' },
      { operation: 'PATCH /flows/{id}', outcome: 'different', showed: ['server-error 500 negative:wrong-type'] },
      { operation: 'POST /deployments/', outcome: 'not reproduced' },
      { operation: 'POST /variables/', outcome: 'not judged' },
    ]);
    expect(v.outcome).toBe('not reproduced');
    expect(v.seedDependent).toBe(true);
    expect(staleEntries([v])).toEqual([v]);
  });

  test('an intermittent entry whose check failed otherwise is different, and not stale: its failure need not show', () => {
    const failedOtherwise = { checks: [result('POST /flows/', 'xfail', [['schema.mismatch', '200 /a type']])] };
    const [steady, intermittent] = verifyBaseline(
      {
        entries: [
          entry({ kind: 'schema.mismatch', key: '200 /b type' }),
          entry({ kind: 'schema.mismatch', key: '200 /b type', intermittent: 'seed-dependent' }),
        ],
      },
      failedOtherwise,
    );
    expect([steady.outcome, intermittent.outcome]).toEqual(['different', 'different']);
    expect(staleEntries([steady, intermittent])).toEqual([steady]);
  });

  test("a failure another entry excuses is that entry's: of one that did not show it says nothing", () => {
    const otherEntryShown = { checks: [result('POST /flows/', 'xfail', [['server-error', '503 past-64-bits']])] };
    const [shown, notShown] = verifyBaseline(
      {
        entries: [
          entry({ key: '503 past-64-bits' }),
          entry({ key: '503 generated', intermittent: 'while another client holds the value' }),
        ],
      },
      otherEntryShown,
    );
    expect(shown.outcome).toBe('reproduced');
    expect(notShown).toMatchObject({ outcome: 'not reproduced', operations: [{ outcome: 'not reproduced' }] });
    expect(staleEntries([shown, notShown])).toEqual([]);
  });

  test("a server error whose fields include the entry's is reproduced, as the gate excuses it", () => {
    const [v] = verifyBaseline(
      { entries: [entry({ key: '500 generated {key}' })] },
      { checks: [result('POST /flows/', 'xfail', [['server-error', '500 generated {key,value}']])] },
    );
    expect(v.outcome).toBe('reproduced');
  });

  test('two entries of one key are two causes: each is reproduced only where its own replay showed the failure', () => {
    const completed = { kind: 'generated', json: { state: { type: 'COMPLETED', data: 1 } } } as const;
    const deferred = { kind: 'generated', json: { state: { type: 'SCHEDULED', data: 1 } } } as const;
    const key = '500 generated {state}';
    const baseline = { entries: [entry({ key, replay: completed }), entry({ key, replay: deferred })] };
    const judged = (replays: string[]) =>
      ({
        ...result('POST /flows/', 'xfail'),
        failures: [{ kind: 'server-error', key, message: '', replays }],
        replaysJudged: [replayId(completed), replayId(deferred)],
      }) as CheckResult;
    // Only the deferred state's replay crashed: the completed one's cause is fixed, though the key showed.
    const [fixed, shown] = verifyBaseline(baseline, { checks: [judged([replayId(deferred)])] });
    expect(fixed.operations[0]).toMatchObject({ outcome: 'not reproduced', note: expect.stringContaining('replay') });
    expect(shown.outcome).toBe('reproduced');
    expect(staleEntries([fixed, shown])).toEqual([fixed]);
    // Both replays crashed: both reproduced.
    expect(
      verifyBaseline(baseline, { checks: [judged([replayId(completed), replayId(deferred)])] }).map((v) => v.outcome),
    ).toEqual(['reproduced', 'reproduced']);
    // A run that did not judge the replays (an older results.json, or the replay stayed 503): the key decides.
    const unjudged = { ...judged([]), replaysJudged: undefined } as CheckResult;
    expect(verifyBaseline(baseline, { checks: [unjudged] }).map((v) => v.outcome)).toEqual([
      'reproduced',
      'reproduced',
    ]);
  });

  test("a replay of another input class than the key's cannot show it: the key decides", () => {
    // An older entry split per key carried its generated replay into the key of an array body (negative).
    const replay = { kind: 'generated', overlay: { work_pool_name: 'no-such-pool' } } as const;
    const [split] = verifyBaseline(
      { entries: [entry({ key: '500 negative:wrong-type', replay })] },
      {
        checks: [
          {
            ...result('POST /flows/', 'xfail'),
            failures: [{ kind: 'server-error', key: '500 negative:wrong-type', message: '' }],
            replaysJudged: [replayId(replay)],
          } as CheckResult,
        ],
      },
    );
    expect(split.outcome).toBe('reproduced');
  });

  test('an entry of another database is not judged; an intermittent one not reproduced is not stale', () => {
    const verified = verifyBaseline(
      { entries: [entry({ onlyOn: 'postgres' }), entry({ intermittent: true, replay: { kind: 'generated' } })] },
      { checks: [result('POST /flows/', 'passed')], target: { label: 'prefect 3.8.8 on sqlite' } },
    );
    expect(verified.map((v) => v.outcome)).toEqual(['not judged', 'not reproduced']);
    expect(verified[1]).toMatchObject({ intermittent: true, seedDependent: false });
    expect(staleEntries(verified)).toEqual([]);
  });

  test('an entry without a replay that names the request of every run showing it is not seed-dependent; its rate is said', () => {
    const verified = verifyBaseline(
      {
        entries: [
          entry({ shownBy: 'the edge every run sends with limit −1' }),
          entry({ intermittent: '2 of 16 runs', shownBy: 'no one body: a race' }),
        ],
      },
      { checks: [result('POST /flows/', 'xfail', [['server-error', '500 generated']])] },
    );
    expect(verified[0]).toMatchObject({ seedDependent: false, shownBy: 'the edge every run sends with limit −1' });
    expect(verified[1]).toMatchObject({ intermittent: true, rate: '2 of 16 runs' });
    const md = verificationMarkdown(verified, 'b.json');
    expect(md).toContain('reproduced (shown by the edge every run sends with limit −1)');
    expect(md).toContain('reproduced (intermittent: 2 of 16 runs, shown by no one body: a race)');
  });

  test('every entry of a shipped baseline has a replay, or names what shows it in every run or why nothing can', () => {
    const shipped = shippedBaselines(path.join(repoRoot, 'fixtures', 'baselines'), 'prefect');
    expect(shipped.length).toBeGreaterThanOrEqual(4);
    for (const { file } of shipped)
      for (const e of loadBaseline(file).entries)
        expect(e.replay ?? e.shownBy, `${path.basename(file)}: ${e.check} ${e.operation} ${e.key}`).toBeTruthy();
  });

  test('a server error of a shipped baseline keyed by its input class alone is one of timing or state: intermittent, its cause said', () => {
    for (const { file } of shippedBaselines(path.join(repoRoot, 'fixtures', 'baselines'), 'prefect'))
      for (const e of loadBaseline(file).entries.filter((x) =>
        /^5\d\d (generated|past-64-bits|\S+-offset)$/.test(x.key),
      ))
        expect(e.intermittent, `${path.basename(file)}: ${e.check} ${e.operation} ${e.key}`).toBeTruthy();
  });

  test('an entry for every operation is verified where the run judged its check', () => {
    const [v] = verifyBaseline(
      { entries: [entry({ operation: '*' })] },
      { checks: [result('POST /flows/', 'xfail', [['server-error', '500 generated']]), result('GET /x', 'skipped')] },
    );
    expect(v.operations.map((o) => `${o.operation} ${o.outcome}`)).toEqual([
      'POST /flows/ reproduced',
      'GET /x not judged',
    ]);
    expect(v.outcome).toBe('reproduced');
  });

  test('the Markdown counts each outcome and names the operations that differ from the entry', () => {
    const verified = verifyBaseline(
      { entries: [entry({ operation: ['POST /flows/', 'POST /variables/'] })] },
      { checks: [result('POST /flows/', 'xfail', [['server-error', '500 generated']])] },
    );
    const md = verificationMarkdown(verified, 'b.json');
    expect(md).toContain('1 entries: 0 not reproduced, 0 different, 1 reproduced, 0 not judged.');
    expect(md).toContain('| reproduced (a generated input without a replay) | POST /variables/: not judged |');
  });
});
