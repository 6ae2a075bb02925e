/** Baseline semantics: a baselined failure is xfail; a baselined pass is xpass and fails the run. */
import { describe, expect, test } from 'vitest';
import { applyBaseline, findEntry, forTarget, isExpired, type Baseline } from '../../src/report/baseline.js';
import { exitCodeOf, type CheckResult } from '../../src/report/results.js';

const baseline: Baseline = {
  entries: [
    { check: 'contract.no-5xx', operation: 'POST /flows/', reason: 'r' },
    { check: 'contract.error-schema', operation: '*', reason: 'every op' },
    { check: 'contract.no-5xx', operation: 'POST /logs/filter', reason: 'sqlite only', onlyOn: 'sqlite' },
    { check: 'contract.no-5xx', operation: 'GET /old', reason: 'expired', expires: '2000-01-01' },
  ],
};

const result = (status: CheckResult['status'], level: CheckResult['level'] = 'MUST'): CheckResult => ({
  id: 'x', family: 'contract', level, clause: '', title: '', operation: 'GET /x', collection: '/x', status, evidence: [],
});

describe('baseline', () => {
  test('failed → xfail, passed → xpass, unlisted unchanged', () => {
    const entry = findEntry(baseline, 'contract.no-5xx', 'POST /flows/');
    expect(applyBaseline('failed', entry)).toBe('xfail');
    expect(applyBaseline('passed', entry)).toBe('xpass');
    expect(applyBaseline('failed', findEntry(baseline, 'contract.no-5xx', 'GET /flows/{id}'))).toBe('failed');
  });

  test('a wildcard entry excuses failures but does not turn every pass into xpass', () => {
    const entry = findEntry(baseline, 'contract.error-schema', 'GET /anything');
    expect(applyBaseline('failed', entry)).toBe('xfail');
    expect(applyBaseline('passed', entry)).toBe('passed');
  });

  test('an intermittent entry excuses a failure, and a pass stays a pass', () => {
    const entry = { check: 'c', operation: 'GET /x', reason: 'timing', intermittent: true };
    expect(applyBaseline('failed', entry)).toBe('xfail');
    expect(applyBaseline('passed', entry)).toBe('passed');
  });

  test('an expired entry excuses nothing', () => {
    const entry = findEntry(baseline, 'contract.no-5xx', 'GET /old')!;
    expect(isExpired(entry)).toBe(true);
    expect(applyBaseline('failed', entry)).toBe('failed');
  });

  test('onlyOn keeps an entry for the targets it names', () => {
    expect(forTarget(baseline, 'prefect 3.8.8 on sqlite').entries).toHaveLength(4);
    expect(forTarget(baseline, 'prefect 3.8.8 on postgres').entries).toHaveLength(3);
  });

  test('exit code: a MUST failure or an xpass is 1; SHOULD failures and xfail are 0', () => {
    expect(exitCodeOf({ checks: [result('passed'), result('xfail'), result('failed', 'SHOULD')] })).toBe(0);
    expect(exitCodeOf({ checks: [result('failed')] })).toBe(1);
    expect(exitCodeOf({ checks: [result('xpass')] })).toBe(1);
    expect(exitCodeOf({ checks: [], errors: ['interrupted'] })).toBe(1);
  });
});
