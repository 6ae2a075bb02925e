/** How many requests in flight for each at the server, from the answer times of a near and a far target. */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { MAX_OVERLAP, Overlap } from '../../../../src/http/pacing/overlap.js';

const fed = (times: number[]) => {
  const o = new Overlap();
  for (const t of times) o.observe(t);
  return o.factor;
};

describe('overlap', () => {
  test('1 until enough answers were seen', () => {
    expect(fed(Array.from({ length: 31 }, () => 100))).toBe(1);
  });

  test('a near server (a 1 ms floor under an 11 ms median) gets one in flight for each at the server', () => {
    const times = Array.from({ length: 200 }, (_, i) => (i % 10 === 0 ? 1 : 11));
    expect(fed(times)).toBe(1);
  });

  test('a server 100 ms away that works 8 ms a request gets many, at most MAX_OVERLAP', () => {
    const times = Array.from({ length: 200 }, (_, i) => 100 + (i % 5 === 0 ? 1 : 9));
    expect(fed(times)).toBe(MAX_OVERLAP);
    const closer = Array.from({ length: 200 }, (_, i) => 20 + (i % 2 ? 1 : 9));
    expect(fed(closer)).toBeCloseTo(29 / 8, 1);
  });

  test('a far server whose heavy answers bring the factor below 2 keeps it, down to 1; a near one snaps to 1', () => {
    // 105 ms away, a median of 220 ms: half of each answer is the way there and back.
    const far = Array.from({ length: 200 }, (_, i) => (i % 10 === 0 ? 105 : 220));
    expect(fed(far)).toBeCloseTo(220 / 115, 2);
    // 1 ms away, a median of 2.5 ms: 1.67 without the snap.
    expect(fed(Array.from({ length: 200 }, (_, i) => (i % 10 === 0 ? 1 : 2.5)))).toBe(1);
    // Congested far away: never below 1.
    expect(fed(Array.from({ length: 200 }, (_, i) => (i % 10 === 0 ? 105 : 3000)))).toBeCloseTo(3000 / 2895, 2);
  });

  test("a far server's few slow answers (a write that waited for a lock) do not bring it near", () => {
    const times = Array.from({ length: 256 }, (_, i) => (i % 10 === 0 ? 700 : 100 + (i % 3 === 0 ? 1 : 8)));
    expect(fed(times)).toBe(MAX_OVERLAP);
  });

  test('always between 1 and MAX_OVERLAP, and the old answers leave the window', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 5000 }), { minLength: 32, maxLength: 600 }), (times) => {
        const f = fed(times);
        expect(f).toBeGreaterThanOrEqual(1);
        expect(f).toBeLessThanOrEqual(MAX_OVERLAP);
      }),
    );
    // Far answers, then 256 near ones: the far ones are forgotten.
    const o = new Overlap();
    for (let i = 0; i < 300; i++) o.observe(100 + (i % 2));
    for (let i = 0; i < 256; i++) o.observe(i % 10 === 0 ? 1 : 11);
    expect(o.factor).toBe(1);
  });
});
