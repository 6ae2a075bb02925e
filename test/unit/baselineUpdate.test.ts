/** `baseline update`: keeps what still fails, adds new failures with evidence, drops what now passes. */
import { describe, expect, test } from 'vitest';
import { REASON_TO_WRITE, updatedBaseline } from '../../src/report/baselineUpdate.js';
import type { CheckResult } from '../../src/report/results.js';

const check = (id: string, operation: string, status: CheckResult['status']): CheckResult => ({
  id, family: 'contract', level: 'MUST', clause: '', title: '', operation, collection: '', status, message: 'm',
  evidence: [{ request: { method: 'POST', url: 'http://x/api/flows/', headers: {}, body: '{}' }, response: { status: 201, headers: {}, body: '{"id":1}', truncated: false }, ms: 1, curl: '' }],
});

describe('updatedBaseline', () => {
  test('keeps, adds and drops', () => {
    const previous = { entries: [
      { check: 'a', operation: 'POST /x', reason: 'still failing', replay: { kind: 'generated' as const, json: {} } },
      { check: 'b', operation: 'POST /y', reason: 'fixed now' },
      { check: 'c', operation: '*', reason: 'wildcard' },
      { check: 'd', operation: 'GET /z', reason: 'other database', onlyOn: 'postgres' },
    ] };
    const updated = updatedBaseline(previous, { checks: [check('a', 'POST /x', 'xfail'), check('b', 'POST /y', 'xpass'), check('c', 'GET /1', 'xfail'), check('c', 'GET /2', 'xfail'), check('e', 'POST /flows/', 'failed'), check('f', 'GET /ok', 'passed')] });
    expect(updated.entries.map((e) => `${e.check} ${e.operation}`)).toEqual(['a POST /x', 'c *', 'e POST /flows/', 'd GET /z']);
    expect(updated.entries[0].replay).toEqual({ kind: 'generated', json: {} });
    expect(updated.entries[2]).toMatchObject({ reason: REASON_TO_WRITE, evidence: { request: 'POST http://x/api/flows/ {}', response: '201 {"id":1}' } });
  });
});
