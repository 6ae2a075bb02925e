/** The HTML report's grouping of failures by the shape of their messages. */
import { describe, expect, test } from 'vitest';
import { groupShape, shape } from '../../../src/report/html.js';

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
  test('keeps the numbers every member has in the same place, masks those that differ', () => {
    expect(groupShape(['answered 500 at limit 200, offset 3', 'answered 500 at limit 200, offset 7'])).toBe(
      'answered 500 at limit 200, offset N',
    );
    expect(groupShape(['answered 503 6 times'])).toBe('answered 503 6 times');
  });

  test('ids masked always; a member with fewer numbers masks the ones it lacks', () => {
    expect(
      groupShape(['GET /flows/0aec1877-62e1-481a-8f39-a45a8ee3ebf8 answered 404 in 3 tries', 'answered 404']),
    ).toBe('GET /flows/<id> answered 404 in N tries');
  });
});
