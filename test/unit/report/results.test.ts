/** A run that judged nothing, or whose target never answered, cannot pass: the reasons the CLI adds to a run's errors. */
import { describe, expect, test } from 'vitest';
import type { FailureKind } from '../../../src/checks/core/verdict.js';
import { htmlReport } from '../../../src/report/html.js';
import {
  type CheckResult,
  exitCodeOf,
  gateVerdict,
  identityFacts,
  identityLines,
  latencyBySender,
  reasonsNothingCounts,
  timeTaken,
  type Results,
  type Timing,
} from '../../../src/report/results.js';
import { checkResult, resultsOf } from '../support.js';

const result = checkResult;

describe('a run that cannot pass', () => {
  test('every check skipped or not judged: nothing was judged, and the exit code is 1', () => {
    const checks = [result('skipped'), result('error')];
    const reasons = reasonsNothingCounts({ checks }, [200]);
    expect(reasons).toEqual(['nothing was judged: all 2 check(s) were skipped or not judged']);
    expect(exitCodeOf({ checks, errors: reasons })).toBe(1);
    expect(reasonsNothingCounts({ checks: [] }, [])).toEqual([
      'nothing was judged: all 0 check(s) were skipped or not judged',
    ]);
  });

  test('a target that answered no request', () => {
    expect(reasonsNothingCounts({ checks: [result('passed')] }, [0, 0, 0])).toEqual([
      "the target never answered: none of the run's 3 request(s) got an answer",
    ]);
  });

  test('a run with a judged check and one answer counts', () => {
    for (const status of ['passed', 'failed', 'xfail', 'xpass'] as const)
      expect(reasonsNothingCounts({ checks: [result('skipped'), result(status)] }, [0, 404])).toEqual([]);
    // A run that sent nothing (the document's conventions only) is judged on those.
    expect(reasonsNothingCounts({ checks: [result('passed')] }, [])).toEqual([]);
  });
});

describe('a time-boxed run', () => {
  const notRun = (): CheckResult => ({ ...result('skipped'), notRun: true });
  const timing = (kind: 'budget' | 'deadline'): Timing => ({
    suitesStartedAt: '2026-11-23T00:00:00.000Z',
    timeBox: { kind, seconds: 30, spent: { at: '2026-11-23T00:00:30.000Z', reason: `the ${kind} was spent` } },
    latency: {},
  });

  test('a budget: the checks not reached are not run, never passed, and do not fail the gate', () => {
    const verdict = gateVerdict({ checks: [result('passed'), notRun(), notRun()], timing: timing('budget') });
    expect(verdict.pass).toBe(true);
    expect(verdict.reasons[0]).toContain('time-boxed (--budget 30 s): 2 check(s) not run, none counted as passed');
  });

  test('a budgeted run that judged nothing fails', () => {
    const checks = [notRun(), notRun()];
    const errors = reasonsNothingCounts({ checks }, [200]);
    expect(exitCodeOf({ checks, errors, timing: timing('budget') })).toBe(1);
  });

  test('a deadline reached: the run did not do what it was asked, and fails', () => {
    const verdict = gateVerdict({ checks: [result('passed'), notRun()], timing: timing('deadline') });
    expect(verdict).toEqual({ pass: false, reasons: ['1 check(s) not run: the deadline was spent'] });
  });

  test('latency by sender: requests, total seconds, mean and percentiles of the answer times', () => {
    const latency = latencyBySender(
      new Map([
        ['filters', { requests: 5, ms: [10, 30, 20, 40, 100] }],
        ['exercise', { requests: 1, ms: [7] }],
      ]),
    );
    expect(Object.keys(latency)).toEqual(['exercise', 'filters']);
    expect(latency.filters).toEqual({
      requests: 5,
      seconds: 0.2,
      meanMs: 40,
      p50Ms: 30,
      p95Ms: 100,
      maxMs: 100,
      retried: 0,
      retrySeconds: 0,
    });
    expect(latency.exercise).toMatchObject({ requests: 1, seconds: 0.01, meanMs: 7, p50Ms: 7, p95Ms: 7, maxMs: 7 });
  });

  test('latency by family: the retried requests and the time before their answers add up under the family', () => {
    const latency = latencyBySender(
      new Map([
        ['methods.delete-then-404', { requests: 9, ms: [10, 20], retried: 1, retryMs: 6250 }],
        ['methods.get-safe', { requests: 3, ms: [5], retried: 1, retryMs: 1750 }],
        ['exercise', { requests: 1, ms: [7], retried: 0, retryMs: 0 }],
      ]),
    );
    expect(latency.methods).toMatchObject({ requests: 12, seconds: 0.04, retried: 2, retrySeconds: 8 });
    expect(timeTaken(latency.methods)).toBe(8.04);
    expect(latency.exercise).toMatchObject({ retried: 0, retrySeconds: 0 });
    // A results.json of an earlier version has neither field: its time is its answers'.
    expect(timeTaken({ requests: 1, seconds: 2, meanMs: 0, p50Ms: 0, p95Ms: 0, maxMs: 0 })).toBe(2);
  });

  test('latency by family: the requests of each check count under the family its id starts with', () => {
    const bySender = new Map([
      ['filters.oracle', { requests: 3, ms: [10, 20, 30] }],
      ['filters.seed-example', { requests: 2, ms: [40, 50] }],
      ['exercise', { requests: 1, ms: [7] }],
    ]);
    const latency = latencyBySender(bySender);
    expect(Object.keys(latency)).toEqual(['exercise', 'filters']);
    expect(latency.filters).toMatchObject({ requests: 5, seconds: 0.15, p50Ms: 30, maxMs: 50 });
    expect(Object.keys(latencyBySender(bySender, (label) => label))).toEqual([
      'exercise',
      'filters.oracle',
      'filters.seed-example',
    ]);
  });
});

describe('the gate verdict', () => {
  test('PASS names the rule it met, and the SHOULD failures it reports without gating on them', () => {
    expect(gateVerdict({ checks: [result('passed'), result('xfail')] })).toEqual({
      pass: true,
      reasons: ['every MUST check passed with the baseline applied'],
    });
    const withShould = gateVerdict({ checks: [result('passed'), result('failed', 'SHOULD')] });
    expect(withShould.pass).toBe(true);
    expect(withShould.reasons[0]).toContain('1 SHOULD/MAY failure(s) are reported, not gated');
  });

  test('FAIL names every rule that fired; the exit code follows the verdict', () => {
    const checks = [result('failed'), result('failed'), result('xpass'), result('error'), result('failed', 'MAY')];
    const verdict = gateVerdict({ checks, errors: ['interrupted before the end of the run'] });
    expect(verdict.pass).toBe(false);
    expect(verdict.reasons).toEqual([
      '2 MUST check(s) failed outside the baseline',
      '1 baselined failure(s) no longer fail (xpass): update the baseline',
      '1 check(s) could not be judged: the target stopped answering',
      'interrupted before the end of the run',
    ]);
    for (const statuses of [['failed'], ['xpass'], ['error'], ['passed', 'skipped'], ['failed', 'passed']] as const) {
      const cs = statuses.map((s) => result(s));
      expect(exitCodeOf({ checks: cs })).toBe(gateVerdict({ checks: cs }).pass ? 0 : 1);
    }
  });
});

describe('the HTML report', () => {
  const results = (checks: CheckResult[]): Results =>
    resultsOf(checks, {
      target: {
        baseUrl: 'http://x/api',
        openapi: '3.1.0',
        apiVersion: '0.1.0',
        title: 'API',
        profile: 'prefect',
        serverVersion: '9.9.9',
        serverVersions: [
          { version: '9.9.9', from: 'GET /admin/version' },
          { version: '0.1', from: 'GET /version' },
        ],
      },
      exitCode: exitCodeOf({ checks }),
    });
  const failing = (id: string, kind: FailureKind, operation: string, status: CheckResult['status'] = 'failed') => ({
    ...result(status),
    id,
    check: id,
    kind,
    key: operation,
    operation,
    message: `answered 500 for ${operation}`,
  });

  test('page one: FAIL with its rule; failures grouped by check and kind, each with its count and every instance', () => {
    const html = htmlReport(
      results([
        failing('contract.no-5xx', 'server-error', 'POST /a'),
        failing('contract.no-5xx', 'server-error', 'POST /b'),
        failing('contract.no-5xx', 'status.undocumented', 'POST /c'),
        failing('contract.no-5xx', 'server-error', 'POST /d', 'xfail'),
        { ...result('skipped'), message: 'prerequisite missing: 409 for 6f1c2d3e-0000-4000-8000-000000000001' },
        { ...result('skipped'), message: 'prerequisite missing: 409 for 6f1c2d3e-0000-4000-8000-000000000002' },
      ]),
    );
    expect(html).toMatch(
      /<b data-testid="verdict-decision">FAIL<\/b> <span data-testid="verdict-rule">3 MUST check\(s\) failed/,
    );
    expect(html).toContain('<b data-testid="verdict-new">3</b>');
    expect(html).toContain('<b data-testid="verdict-known">1</b>');
    expect(html).toMatch(/New failures: 3 in 2 group\(s\)/);
    expect(html).toMatch(
      /data-group-check="contract.no-5xx" data-group-kind="server-error"><details><summary><b class="n" data-testid="group-count">2<\/b>/,
    );
    expect(html).toMatch(/Known deviations \(baseline\): 1 in 1 group\(s\)/);
    // Two skips whose reasons differ only in an id are one group.
    expect(html).toMatch(/<td class="n">2<\/td><td>prerequisite missing: 409 for &lt;id&gt;<\/td>/);
    expect(html).toContain('9.9.9 (reported by GET /admin/version) · 0.1 (reported by GET /version)');
  });
});

describe('what every report says of the target beyond its document', () => {
  const target = { baseUrl: 'http://x/api', openapi: '3.1.0', apiVersion: '0', profile: 'prefect' };
  const xfail = (conditional?: string): CheckResult => ({
    ...result('xfail'),
    baseline: { reason: 'r', excused: [{ kind: 'server-error', key: '500 generated' }], notShown: [], conditional },
  });

  test('the release and the database as found, and the known deviations that may not hold there', () => {
    const either = "either-database: holds on sqlite, and the target's database could not be told";
    const passedWithUnconfirmed: CheckResult = {
      ...result('passed'),
      baseline: {
        reason: 'r',
        excused: [],
        notShown: [],
        unconfirmed: [{ kind: 'server-error', key: '500 generated', conditional: either }],
      },
    };
    const r = resultsOf([xfail(either), xfail(either), xfail(), passedWithUnconfirmed], {
      target: { ...target, identity: { database: { how: 'the database could not be told: no name to filter by' } } },
    });
    expect(identityFacts(r)).toEqual([
      ['release', 'not read (no GET /admin/version, no --server-version)'],
      ['database', 'unknown (the database could not be told: no name to filter by)'],
      ['baseline note', `2 known deviation(s) excused by entries that may not hold here (${either})`],
      [
        'baseline note',
        '1 entr(ies) that may not hold here, or whose replay met a busy server, did not show: reported, not gated',
      ],
    ]);
    const managed = resultsOf([], {
      target: { ...target, identity: { release: { version: '3.8.8', from: 'the managed server' } } },
    });
    expect(identityFacts(managed)).toEqual([['release', '3.8.8 (the managed server)']]);
    expect(identityFacts(resultsOf([]))).toEqual([]);
  });

  test("the target's rate limits, where the run met them, in the reports' lines and on page one", () => {
    const timing = {
      suitesStartedAt: '',
      timeBox: { kind: 'deadline', seconds: 1800 },
      latency: {},
      pacing: {
        rateLimited: 7,
        waitedMs: 12_340,
        byFamily: { flows: { rateLimited: 7, waitedMs: 12_340, rate: 31.5 } },
      },
    } satisfies Timing;
    const r = resultsOf([result('passed')], { timing });
    expect(identityLines(r)).toEqual([
      'rate limits: 7 answer(s) 429, sent again once allowed and never judged: flows 7 (paced at 31.5/s); 12.3 s waited in all, over requests',
    ]);
    expect(htmlReport(r)).toContain('flows 7 (paced at 31.5/s)');
    expect(
      identityLines(
        resultsOf([result('passed')], { timing: { ...timing, pacing: { rateLimited: 0, waitedMs: 0, byFamily: {} } } }),
      ),
    ).toEqual([]);
  });
});
