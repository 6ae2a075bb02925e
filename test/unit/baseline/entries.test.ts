/**
 * Baseline semantics: an entry excuses only the failure it names (check, operation, kind and key). A
 * verdict whose failures are all named is xfail; one failure no entry names keeps it failed; a pass
 * where an entry names the operation is xpass and fails the run.
 */
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import type { Failure } from '../../../src/checks/core/verdict.js';
import { UsageError } from '../../../src/config/config.js';
import {
  applyBaseline,
  entriesFor,
  forTarget,
  isExpired,
  loadBaseline,
  loadBaselineForUpdate,
  mergedBaseline,
  replayId,
  replaysFor,
  type Baseline,
  type BaselineEntry,
  withheldEdges,
} from '../../../src/baseline/entries.js';
import { exitCodeOf } from '../../../src/report/results.js';
import { checkResult, repoRoot } from '../support.js';

const entry = (e: Partial<BaselineEntry> & Pick<BaselineEntry, 'check' | 'operation'>): BaselineEntry => ({
  kind: 'status.undocumented',
  key: '201',
  reason: 'r',
  ...e,
});

const baseline: Baseline = {
  entries: [
    entry({ check: 'contract.success-status-documented', operation: 'POST /deployments/' }),
    entry({ check: 'contract.error-schema', operation: '*', kind: 'schema.mismatch', key: '422 /detail type' }),
    entry({
      check: 'contract.no-5xx',
      operation: ['POST /logs/filter', 'POST /flows/filter'],
      kind: 'server-error',
      key: '500 negative:wrong-type',
      onlyOn: 'sqlite',
    }),
    entry({
      check: 'contract.no-5xx',
      operation: 'GET /old',
      kind: 'server-error',
      key: '500 generated',
      expires: '2000-01-01',
    }),
  ],
};

const f = (kind: Failure['kind'], key: string) => ({ kind, key });

function judge(check: string, operation: string, status: 'passed' | 'failed', failures: ReturnType<typeof f>[] = []) {
  return applyBaseline(status, failures, entriesFor(baseline, check, operation), operation).status;
}

describe('keyed baseline', () => {
  test('the failure the entry names → xfail; the same check failing with another status → failed (POST /deployments/ answering 202)', () => {
    const check = 'contract.success-status-documented';
    expect(judge(check, 'POST /deployments/', 'failed', [f('status.undocumented', '201')])).toBe('xfail');
    expect(judge(check, 'POST /deployments/', 'failed', [f('status.undocumented', '202')])).toBe('failed');
    expect(
      judge(check, 'POST /deployments/', 'failed', [f('status.undocumented', '201'), f('status.undocumented', '202')]),
    ).toBe('failed');
  });

  test('a server error keyed by its fields is excused by an entry naming some of them; one naming none lumps, as before', () => {
    const crash = (key: string): Failure => ({ kind: 'server-error', key, message: '', evidence: [] });
    const entry = (key: string) => [
      {
        check: 'contract.no-5xx',
        operation: 'PATCH /deployments/{id}',
        kind: 'server-error' as const,
        key,
        reason: 'r',
      },
    ];
    const judged = (key: string, failure: string) =>
      applyBaseline('failed', [crash(failure)], entry(key), 'PATCH /deployments/{id}').status;
    expect(judged('500 generated {work_pool_name}', '500 generated {work_pool_name}')).toBe('xfail');
    // A shrink cut short leaves more fields: the known cause is among them.
    expect(judged('500 generated {work_pool_name}', '500 generated {name,work_pool_name}')).toBe('xfail');
    // A crash on another field of the same operation is a new failure.
    expect(judged('500 generated {work_pool_name}', '500 generated {tags}')).toBe('failed');
    expect(judged('500 generated {work_pool_name}', '500 negative:wrong-type')).toBe('failed');
    // An entry of a baseline written before keys named fields excuses every generated crash there.
    expect(judged('500 generated', '500 generated {tags}')).toBe('xfail');
    expect(judged('500 generated', '500 recipe')).toBe('failed');
    // A body whose cause lies in none of its fields failed for the state earlier requests left: an entry of
    // that excuses only that, and an entry of a field does not excuse it.
    expect(judged('500 generated {}', '500 generated {}')).toBe('xfail');
    expect(judged('500 generated {}', '500 generated {tags}')).toBe('failed');
    expect(judged('500 generated {work_pool_name}', '500 generated {}')).toBe('failed');
    expect(judged('500 generated', '500 generated {}')).toBe('xfail');
  });

  test('a pass where the entry names the operation is xpass; elsewhere nothing changes', () => {
    expect(judge('contract.success-status-documented', 'POST /deployments/', 'passed')).toBe('xpass');
    expect(
      judge('contract.success-status-documented', 'POST /flows/', 'failed', [f('status.undocumented', '201')]),
    ).toBe('failed');
  });

  test('a `*` entry excuses its kind and key on every operation, nothing else, and never makes an xpass', () => {
    const check = 'contract.error-schema';
    expect(judge(check, 'GET /anything', 'failed', [f('schema.mismatch', '422 /detail type')])).toBe('xfail');
    expect(judge(check, 'GET /anything', 'failed', [f('schema.mismatch', '422 /detail/*/loc type')])).toBe('failed');
    expect(judge(check, 'GET /anything', 'passed')).toBe('passed');
  });

  test('an entry with a list of operations names each of them', () => {
    const failure = [f('server-error', '500 negative:wrong-type')];
    expect(judge('contract.no-5xx', 'POST /flows/filter', 'failed', failure)).toBe('xfail');
    expect(judge('contract.no-5xx', 'POST /logs/filter', 'passed')).toBe('xpass');
    expect(judge('contract.no-5xx', 'POST /task_runs/filter', 'failed', failure)).toBe('failed');
  });

  test('the judgement lists the unexcused failures first-class and the entries that did not show', () => {
    const entries = entriesFor(baseline, 'contract.success-status-documented', 'POST /deployments/');
    const j = applyBaseline('failed', [f('status.undocumented', '202')], entries, 'POST /deployments/');
    expect(j.unexcused).toEqual([f('status.undocumented', '202')]);
    expect(j.notShown.map((e) => e.key)).toEqual(['201']);
  });

  test('an entry whose own replay met only a busy server is not judged: a pass stays a pass, the entry reported unconfirmed', () => {
    const replay = { kind: 'generated' as const, overlay: { state: { type: 'SCHEDULED' } } };
    const e = entry({
      check: 'contract.no-5xx',
      operation: 'POST /x',
      kind: 'server-error',
      key: '500 generated {state}',
      replay,
    });
    expect(applyBaseline('passed', [], [e], 'POST /x').status).toBe('xpass');
    const j = applyBaseline('passed', [], [e], 'POST /x', { replaysUnanswered: [replayId(replay)] });
    expect(j.status).toBe('passed');
    expect(j.unconfirmed.map((u) => u.conditional)).toEqual([expect.stringMatching(/busy server/)]);
    // So is one whose cause met only 503s (the edge a read back is keyed by); another's says nothing of it.
    expect(applyBaseline('passed', [], [e], 'POST /x', { causesUnanswered: ['generated {state}'] }).status).toBe(
      'passed',
    );
    expect(applyBaseline('passed', [], [e], 'POST /x', { replaysUnanswered: ['another'] }).status).toBe('xpass');
    expect(applyBaseline('passed', [], [e], 'POST /x', { causesUnanswered: ['generated {name}'] }).status).toBe(
      'xpass',
    );
    // An edge withheld names its class bare: every entry of that class, whatever its fields.
    const withheld = applyBaseline('passed', [], [e], 'POST /x', { causesWithheld: ['generated'] });
    expect(withheld.status).toBe('passed');
    expect(withheld.unconfirmed[0].conditional).toMatch(/not sent to a server that is not the run's own/);
    expect(applyBaseline('passed', [], [e], 'POST /x', { causesWithheld: ['gen'] }).status).toBe('xpass');
  });

  test('an intermittent entry excuses its failure, and a pass stays a pass', () => {
    const e = entry({ check: 'c', operation: 'GET /x', intermittent: true });
    expect(applyBaseline('failed', [f('status.undocumented', '201')], [e], 'GET /x').status).toBe('xfail');
    expect(applyBaseline('passed', [], [e], 'GET /x').status).toBe('passed');
  });

  test('an expired entry excuses nothing', () => {
    expect(isExpired(baseline.entries[3])).toBe(true);
    expect(judge('contract.no-5xx', 'GET /old', 'failed', [f('server-error', '500 generated')])).toBe('failed');
  });

  test('onlyOn keeps an entry for the targets it names', () => {
    expect(forTarget(baseline, { label: 'prefect 3.8.8 on sqlite' }).entries).toHaveLength(4);
    expect(forTarget(baseline, { label: 'prefect 3.8.8 on postgres' }).entries).toHaveLength(3);
    expect(forTarget(baseline, { label: 'prefect 3.8.8 on postgres' }).entries.some((e) => e.conditional)).toBe(false);
  });

  test("on a target whose database could not be told, a database's entry excuses as an either-database deviation", () => {
    const applied = forTarget(baseline, { label: 'prefect 3.8.8 on an unknown database', databaseUnknown: true });
    expect(applied.entries).toHaveLength(4);
    const sqliteOnly = applied.entries.find((e) => e.onlyOn === 'sqlite')!;
    expect(sqliteOnly.conditional).toMatch(/^either-database: holds on sqlite/);
    expect(applied.entries.filter((e) => e.conditional)).toEqual([sqliteOnly]);
    const entries = entriesFor(applied, 'contract.no-5xx', 'POST /logs/filter');
    const failing = applyBaseline(
      'failed',
      [f('server-error', '500 negative:wrong-type')],
      entries,
      'POST /logs/filter',
    );
    expect(failing.status).toBe('xfail');
    expect(failing.excusedBy[0].conditional).toBe(sqliteOnly.conditional);
    // Where it does not show (the target may be the other database), it is reported, not gated.
    const passing = applyBaseline('passed', [], entries, 'POST /logs/filter');
    expect(passing.status).toBe('passed');
    expect(passing.notShown).toEqual([]);
    expect(passing.unconfirmed).toEqual([sqliteOnly]);
    // An entry of another kind still does not excuse a failure it does not name.
    expect(applyBaseline('failed', [f('server-error', '500 generated')], entries, 'POST /logs/filter').status).toBe(
      'failed',
    );
  });

  test("a borrowed release's entries excuse what shows and never make an xpass", () => {
    const applied = forTarget(baseline, { label: 'prefect 3.8.7 on sqlite', borrowedFrom: '3.8.8' });
    expect(applied.entries).toHaveLength(4);
    expect(applied.entries.every((e) => e.conditional === 'written for release 3.8.8')).toBe(true);
    const entries = entriesFor(applied, 'contract.success-status-documented', 'POST /deployments/');
    expect(applyBaseline('failed', [f('status.undocumented', '201')], entries, 'POST /deployments/').status).toBe(
      'xfail',
    );
    const passing = applyBaseline('passed', [], entries, 'POST /deployments/');
    expect(passing.status).toBe('passed');
    expect(passing.unconfirmed.map((e) => e.key)).toEqual(['201']);
  });

  test('replays come from entries that name the operation, never from `*`', () => {
    const b: Baseline = {
      entries: [
        entry({ check: 'a', operation: ['POST /x', 'POST /y'], replay: { kind: 'generated', json: { n: 1 } } }),
        entry({ check: 'b', operation: '*', replay: { kind: 'generated', json: { n: 2 } } }),
      ],
    };
    const replay = { kind: 'generated', json: { n: 1 } } as const;
    expect(replaysFor(b, 'POST /y')).toEqual([{ ...replay, id: replayId(replay) }]);
    expect(replaysFor(b, 'POST /z')).toEqual([]);
  });

  test("a replay's id is its body's: the same in every run, one per distinct replay, sent once", () => {
    const completed = { kind: 'generated', json: { state: { type: 'COMPLETED', data: 1 } } } as const;
    const deferred = { kind: 'generated', json: { state: { type: 'SCHEDULED', data: 1 } } } as const;
    expect(replayId(completed)).toBe(replayId(JSON.parse(JSON.stringify(completed))));
    expect(replayId(completed)).not.toBe(replayId(deferred));
    const b: Baseline = {
      entries: [
        entry({ check: 'a', operation: 'POST /x', replay: completed }),
        entry({ check: 'a', operation: 'POST /x', replay: deferred }),
        entry({ check: 'b', operation: 'POST /x', replay: completed }),
      ],
    };
    expect(replaysFor(b, 'POST /x').map((r) => r.id)).toEqual([replayId(completed), replayId(deferred)]);
  });

  test('exit code: a MUST failure or an xpass is 1; SHOULD failures and xfail are 0', () => {
    expect(exitCodeOf({ checks: [checkResult('passed'), checkResult('xfail'), checkResult('failed', 'SHOULD')] })).toBe(
      0,
    );
    expect(exitCodeOf({ checks: [checkResult('failed')] })).toBe(1);
    expect(exitCodeOf({ checks: [checkResult('xpass')] })).toBe(1);
    expect(exitCodeOf({ checks: [], errors: ['interrupted'] })).toBe(1);
  });
});

describe('loading a baseline', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'baseline-'));
  const file = (name: string, entries: unknown[]) => {
    const p = path.join(dir, name);
    writeFileSync(p, JSON.stringify({ entries }));
    return p;
  };

  test('an entry without kind and key is refused with one line that says how to rewrite it; update reads it', () => {
    const p = file('old.json', [{ check: 'contract.no-5xx', operation: 'POST /flows/', reason: 'r' }]);
    expect(() => loadBaseline(p)).toThrow(UsageError);
    expect(() => loadBaseline(p)).toThrow(
      /entry 1 \(contract.no-5xx POST \/flows\/\) names no failure kind and key.*baseline update/,
    );
    expect(loadBaselineForUpdate(p).entries).toHaveLength(1);
  });

  test('an unknown kind, a kind without key, and a `*` without key are refused', () => {
    expect(() =>
      loadBaseline(file('a.json', [{ check: 'c', operation: 'GET /x', reason: 'r', kind: 'nope', key: '1' }])),
    ).toThrow(/kind "nope"; the kinds are server-error/);
    expect(() =>
      loadBaseline(file('b.json', [{ check: 'c', operation: 'GET /x', reason: 'r', kind: 'server-error' }])),
    ).toThrow(/needs a "key"/);
    expect(() => loadBaseline(file('c.json', [{ check: 'c', operation: '*', reason: 'r' }]))).toThrow(
      /names no failure kind/,
    );
    expect(() =>
      loadBaseline(file('d.json', [{ check: 'c', operation: [], reason: 'r', kind: 'server-error', key: 'k' }])),
    ).toThrow(/non-empty list/);
  });

  test('a keyed entry with a list of operations loads', () => {
    const p = file('ok.json', [
      { check: 'c', operation: ['GET /x', 'GET /y'], reason: 'r', kind: 'server-error', key: '500 recipe' },
    ]);
    expect(loadBaseline(p).entries[0].operation).toEqual(['GET /x', 'GET /y']);
  });

  test("the neighbours' entries as one: an entry both hold is one, written for both; each excuses and reports as its own", () => {
    const key = { check: 'c', reason: 'r', kind: 'server-error', key: '500 generated {a}' };
    const older = file('older.json', [
      { ...key, operation: 'POST /x' },
      { ...key, operation: 'POST /only-older' },
    ]);
    const newer = file('newer.json', [
      { ...key, operation: 'POST /x', reason: "the newer's words" },
      { ...key, operation: 'POST /x', onlyOn: 'postgres' },
    ]);
    const merged = mergedBaseline([
      { release: '3.4.25', file: older },
      { release: '3.8.8', file: newer },
    ]);
    expect(merged.entries.map((e) => [e.operation, e.onlyOn, e.writtenFor])).toEqual([
      ['POST /x', undefined, ['3.4.25', '3.8.8']],
      ['POST /only-older', undefined, ['3.4.25']],
      ['POST /x', 'postgres', ['3.8.8']],
    ]);
    const applied = forTarget(merged, { label: 'prefect 3.6.0 on sqlite' });
    expect(applied.entries.map((e) => e.conditional)).toEqual([
      'written for releases 3.4.25 and 3.8.8',
      'written for release 3.4.25',
    ]);
    const failing = applyBaseline(
      'failed',
      [f('server-error', '500 generated {a}')],
      entriesFor(applied, 'c', 'POST /only-older'),
      'POST /only-older',
    );
    expect(failing.status).toBe('xfail');
    expect(failing.excusedBy[0].conditional).toBe('written for release 3.4.25');
    // Not shown: reported, never an xpass.
    const passing = applyBaseline('passed', [], entriesFor(applied, 'c', 'POST /x'), 'POST /x');
    expect(passing).toMatchObject({ status: 'passed', notShown: [] });
    expect(passing.unconfirmed).toHaveLength(1);
  });
});

describe('the shipped baselines', () => {
  test('every server error of a generated body is keyed by the fields its cause lies in, or states a cause no body shows', () => {
    const dir = path.join(repoRoot, 'fixtures', 'baselines');
    const bare = readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .flatMap((f) =>
        loadBaseline(path.join(dir, f))
          .entries.filter((e) => /^\d+ generated$/.test(e.key) && !(e.shownBy && e.intermittent))
          .map((e) => `${f}: ${e.operation} ${e.key}`),
      );
    expect(bare).toEqual([]);
  });
});

describe('the edges a shared server is not sent', () => {
  test('a reads-back entry that harms others names its edge, for the operations it covers; no other entry does', () => {
    const entry = {
      check: 'contract.reads-back',
      operation: ['PATCH /work_queues/{id}'],
      kind: 'server-error' as const,
      key: '500 read-back reserved-characters {description,name}',
      reason: 'renamed, the queue cannot be served',
      harmsOthers: 'every list of work queues answers 500 for every client until it is renamed back',
    };
    const baseline = {
      entries: [
        entry,
        { ...entry, harmsOthers: undefined, operation: 'PATCH /flows/{id}' },
        { ...entry, check: 'contract.no-5xx', operation: 'POST /flows/' },
      ],
    };
    expect(withheldEdges(baseline, 'PATCH /work_queues/{id}')).toEqual([
      { edge: 'reserved-characters', check: 'contract.reads-back', reason: entry.harmsOthers },
    ]);
    expect(withheldEdges(baseline, 'PATCH /flows/{id}')).toEqual([]);
    expect(withheldEdges(baseline, 'POST /flows/')).toEqual([]);
  });

  test('every shipped entry that harms others is a reads-back entry whose key names its edge', () => {
    const dir = path.join(repoRoot, 'fixtures', 'baselines');
    const harming = readdirSync(dir).flatMap((f) =>
      loadBaseline(path.join(dir, f)).entries.filter((e) => e.harmsOthers),
    );
    expect(harming.length).toBeGreaterThan(0);
    for (const e of harming) {
      expect(e.check).toBe('contract.reads-back');
      expect(e.key).toMatch(/^\d{3} read-back \S+/);
    }
  });
});
