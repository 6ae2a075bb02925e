/**
 * The pacing policy: Retry-After and the RateLimit headers read, a family paused and paced after a 429, the
 * pace rising slowly while nothing is refused, and --max-rate's spacing; on a fake clock.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  RateLimits,
  RETRY_AFTER_CAP_MS,
  retryAfterMs,
  routeFamily,
  statedLimit,
} from '../../../../src/http/pacing/rateLimits.js';

/** A clock the test moves. */
function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('reading the limits a server states', () => {
  test('Retry-After: seconds or an HTTP date; nothing for garbage', () => {
    expect(retryAfterMs('3')).toBe(3000);
    expect(retryAfterMs('0.5')).toBe(500);
    const now = Date.parse('2026-11-25T12:00:00Z');
    expect(retryAfterMs('Wed, 25 Nov 2026 12:00:07 GMT', now)).toBe(7000);
    expect(retryAfterMs('Wed, 25 Nov 2026 11:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs('soon')).toBeUndefined();
    expect(retryAfterMs(undefined)).toBeUndefined();
  });

  test("RateLimit headers in their drafts' spellings", () => {
    expect(statedLimit({ 'ratelimit-policy': '120;w=60' })).toEqual({ rate: 2, remaining: undefined });
    expect(statedLimit({ 'ratelimit-policy': '"default";q=600;w=60', ratelimit: '"default";r=0;t=12' })).toEqual({
      rate: 10,
      remaining: 0,
      resetMs: 12000,
    });
    expect(statedLimit({ ratelimit: 'limit=100, remaining=5, reset=30' })).toEqual({ remaining: 5, resetMs: 30000 });
    expect(statedLimit({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '2' })).toEqual({
      remaining: 0,
      resetMs: 2000,
    });
    expect(statedLimit({ 'content-type': 'application/json' })).toBeUndefined();
  });

  test('the route family is the first segment of the path', () => {
    expect(routeFamily('/flow_runs/filter')).toBe('flow_runs');
    expect(routeFamily('/flows/')).toBe('flows');
    expect(routeFamily('/health')).toBe('health');
  });
});

describe('pacing', () => {
  test('an unlimited family is never held', () => {
    const c = clock();
    const pacing = new RateLimits({ now: c.now });
    for (let i = 0; i < 100; i++) expect(pacing.turn('/flows/filter')).toBe(0);
    expect(pacing.summary()).toEqual({ rateLimited: 0, waitedMs: 0, byFamily: {} });
  });

  test('a 429 pauses its family for Retry-After, and paces it a little under the rate it was accepted at', () => {
    const c = clock();
    const pacing = new RateLimits({ now: c.now });
    // 20 answers a second for 10 s, then a 429 asking for 2 s.
    for (let i = 0; i < 200; i++) {
      pacing.turn('/flows/filter');
      pacing.answered('/flows/filter', 200, {});
      c.advance(50);
    }
    pacing.answered('/flows/filter', 429, { 'retry-after': '2' });
    expect(pacing.pausedFor('/flows/filter')).toBe(2000);
    expect(pacing.pausedFor('/deployments/filter')).toBe(0);
    expect(pacing.turn('/deployments/filter')).toBe(0);
    const first = pacing.turn('/flows/x');
    const second = pacing.turn('/flows/y');
    expect(first).toBe(2000);
    const rate = pacing.summary().byFamily.flows.rate!;
    expect(rate).toBeGreaterThan(15);
    expect(rate).toBeLessThan(20);
    expect(second - first).toBeCloseTo(1000 / rate, 0);
    // The other answers of the same pause lower nothing more.
    pacing.answered('/flows/z', 429, { 'retry-after': '1' });
    expect(pacing.summary().byFamily.flows.rate).toBe(rate);
    expect(pacing.summary().byFamily.flows.rateLimited).toBe(2);
  });

  test('a 429 before the family has answers enough to measure (a budget another client spent) pauses, and sets no pace', () => {
    const c = clock();
    const pacing = new RateLimits({ now: c.now });
    pacing.turn('/flows/filter');
    pacing.answered('/flows/filter', 429, { 'retry-after': '1' });
    expect(pacing.turn('/flows/x')).toBe(1000);
    c.advance(1000);
    // After the pause the family goes at the client's own pace again: no spacing between its requests.
    expect(pacing.turn('/flows/x')).toBe(0);
    expect(pacing.turn('/flows/y')).toBe(0);
    expect(pacing.summary().byFamily.flows.rate).toBeUndefined();
  });

  test('after the pause, a 429 sets the pace a sixth under the rate of the ten seconds before; each second without one raises it by 1 %', () => {
    const c = clock();
    const pacing = new RateLimits({ now: c.now });
    const accept = (perSecond: number, seconds: number) => {
      for (let i = 0; i < perSecond * seconds; i++) {
        pacing.answered('/task_runs/', 200, {});
        c.advance(1000 / perSecond);
      }
    };
    accept(30, 10);
    pacing.answered('/task_runs/', 429, {});
    expect(pacing.summary().byFamily.task_runs.rate).toBeCloseTo(25, 0);
    accept(18, 12);
    pacing.answered('/task_runs/', 429, { 'retry-after': '1' });
    expect(pacing.summary().byFamily.task_runs.rate).toBeCloseTo(15, 0);
    c.advance(60_000);
    pacing.answered('/task_runs/', 200, {});
    expect(pacing.summary().byFamily.task_runs.rate).toBeCloseTo(15 * 1.01 ** 60, 0);
  });

  test('a server that refuses a share of requests whatever their rate never brings the pace under half the first', () => {
    const c = clock();
    const pacing = new RateLimits({ now: c.now });
    let first: number | undefined;
    for (let n = 1; n <= 2000; n++) {
      c.advance(Math.max(pacing.turn('/flows/'), 0) + 10);
      pacing.answered('/flows/', n % 20 === 0 ? 429 : 200, n % 20 === 0 ? { 'retry-after': '1' } : {});
      first ??= pacing.summary().byFamily.flows?.rate;
    }
    expect(pacing.summary().byFamily.flows.rate).toBeGreaterThanOrEqual(first! / 2);
  });

  test('families limited within a minute of each other share one pace; one limited later has its own', () => {
    const c = clock();
    const pacing = new RateLimits({ now: c.now });
    for (let i = 0; i < 100; i++) {
      pacing.answered(i % 2 ? '/flows/' : '/flow_runs/', 200, {});
      c.advance(100);
    }
    pacing.answered('/flows/', 429, {});
    c.advance(500);
    pacing.answered('/flow_runs/filter', 429, {});
    c.advance(2000);
    const rate = pacing.summary().byFamily.flows.rate!;
    expect(rate).toBeCloseTo((10 * 5) / 6, 0);
    expect(pacing.summary().byFamily.flow_runs.rate).toBe(rate);
    // One spacing over both: the second request waits for the first's turn, whichever family it is.
    const a = pacing.turn('/flows/');
    const b = pacing.turn('/flow_runs/');
    expect(b - a).toBeCloseTo(1000 / rate, 0);
    c.advance(120_000);
    pacing.answered('/logs/', 200, {});
    pacing.answered('/logs/', 429, {});
    expect(pacing.turn('/logs/')).toBeGreaterThan(0);
    expect(pacing.summary().byFamily.logs.rate).not.toBe(pacing.summary().byFamily.flows.rate);
  });

  test('a long Retry-After is obeyed for at most the cap, and a date in the past for no time', () => {
    const c = clock();
    const pacing = new RateLimits({ now: c.now });
    pacing.answered('/flows/', 429, { 'retry-after': '3600' });
    expect(pacing.pausedFor('/flows/')).toBe(RETRY_AFTER_CAP_MS);
  });

  test('a stated policy sets the pace at once, and an exhausted window pauses until it resets', () => {
    const c = clock();
    const pacing = new RateLimits({ now: c.now });
    pacing.answered('/flow_runs/filter', 200, { 'ratelimit-policy': '600;w=60', ratelimit: 'remaining=0, reset=3' });
    expect(pacing.summary().byFamily.flow_runs.rate).toBe(10);
    expect(pacing.turn('/flow_runs/filter')).toBe(3000);
    expect(pacing.turn('/flow_runs/filter')).toBe(3100);
  });

  test('--max-rate spaces every request, whatever its family', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 50 }),
        fc.array(fc.constantFrom('/a', '/b/c', '/d'), { minLength: 2, maxLength: 30 }),
        (rate, paths) => {
          const c = clock();
          const pacing = new RateLimits({ maxRate: rate, now: c.now });
          const starts = paths.map((p) => pacing.turn(p));
          for (let i = 1; i < starts.length; i++) expect(starts[i] - starts[i - 1]).toBeCloseTo(1000 / rate, 6);
          expect(pacing.summary().maxRate).toBe(rate);
        },
      ),
    );
  });
});
