/** The grouping of checks by the shape of their messages, as page one and the terminal show it. */
import { describe, expect, test } from 'vitest';
import { groupShape, shape, skipReasons } from '../../../src/report/grouping.js';

describe('shape', () => {
  test('numbers and ids masked; digits within a word kept', () => {
    expect(shape('answered 503 6 times: limit 5, offset 3.5')).toBe('answered N N times: limit N, offset N');
    expect(shape('content-type text/html; charset=utf-8, not application/json')).toBe(
      'content-type text/html; charset=utf-8, not application/json',
    );
    expect(shape('GET /v2/concurrency_limits/0aec1877-62e1-481a-8f39-a45a8ee3ebf8 answered 404')).toBe(
      'GET /v2/concurrency_limits/<id> answered N',
    );
  });
});

describe("a group's shape", () => {
  test('keeps the numbers every member has in the same place; shows the values of those that differ, or their range', () => {
    expect(groupShape(['answered 500 at limit 200, offset 3', 'answered 500 at limit 200, offset 7'])).toBe(
      'answered 500 at limit 200, offset 3 or 7',
    );
    expect(groupShape(['1 of 9 exchange(s): answered 500', '4 of 12 exchange(s)', '2 of 9', '3 of 10'])).toBe(
      '1–4 of 9–12 exchange(s): answered 500',
    );
    expect(groupShape(['answered 503 6 times'])).toBe('answered 503 6 times');
  });

  test('ids masked always; a member with fewer numbers masks the ones it lacks', () => {
    expect(
      groupShape(['GET /flows/0aec1877-62e1-481a-8f39-a45a8ee3ebf8 answered 404 in 3 tries', 'answered 404']),
    ).toBe('GET /flows/<id> answered 404 in 3 tries');
  });
});

describe('skip reasons', () => {
  test('one line per reason, the largest first, with the count of checks', () => {
    const skipped = (message: string): { status: string; message?: string } => ({ status: 'skipped', message });
    const reasons = skipReasons([
      skipped('no credentials configured'),
      { status: 'passed' },
      skipped('needs 2 objects'),
      skipped('no credentials configured'),
      skipped('needs 3 objects'),
      skipped('needs 3 objects'),
    ]).map(({ reason, checks }) => ({ count: checks.length, reason }));
    expect(reasons).toEqual([
      { count: 3, reason: 'needs 2 or 3 objects' },
      { count: 2, reason: 'no credentials configured' },
    ]);
  });
});
