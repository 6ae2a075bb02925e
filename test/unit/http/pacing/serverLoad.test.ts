import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { ATTEMPTS_WHERE_VALUES_SUSPECT, MAX_ATTEMPTS, ServerLoad } from '../../../../src/http/pacing/serverLoad.js';

describe('ServerLoad', () => {
  test('a 503 halves the requests at the server (never under one); four served answers give one back, up to the concurrency', () => {
    const load = new ServerLoad(4);
    load.answered(503, false);
    expect(load.atServer).toBe(2);
    load.answered(503, false);
    load.answered(503, false);
    load.answered(503, false);
    expect(load.atServer).toBe(1);
    for (let i = 0; i < 4; i++) load.answered(200, true);
    expect(load.atServer).toBe(2);
    for (let i = 0; i < 100; i++) load.answered(200, true);
    expect(load.atServer).toBe(4);
  });

  test('an answer not served (a 429, no answer) neither lowers nor raises it', () => {
    const load = new ServerLoad(4);
    load.answered(503, false);
    expect(load.answered(429, false)).toBe(false);
    expect(load.answered(0, false)).toBe(false);
    expect(load.atServer).toBe(2);
    expect(load.answered(200, true)).toBe(true);
  });

  test('writes go side by side until the first 503, then as many as overlap one at the server', () => {
    const load = new ServerLoad(4);
    expect(load.writersAtOnce(1)).toBe(Number.POSITIVE_INFINITY);
    load.answered(503, false);
    expect(load.writersAtOnce(1)).toBe(1);
    expect(load.writersAtOnce(3.7)).toBe(3);
    for (let i = 0; i < 100; i++) load.answered(200, true);
    expect(load.writersAtOnce(1)).toBe(1);
    // A far target: two at least, however low its factor.
    expect(load.writersAtOnce(1.4, true)).toBe(2);
    expect(load.writersAtOnce(3.7, true)).toBe(3);
  });

  test('a request goes alone after its third 503, not before', () => {
    const load = new ServerLoad(4);
    expect(load.goesAlone([503, 503])).toBe(false);
    expect(load.goesAlone([503, 0, 503])).toBe(false);
    expect(load.goesAlone([503, 503, 503])).toBe(true);
  });

  test('the backoff doubles with each 503, with up to half again of jitter', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: MAX_ATTEMPTS - 1 }), fc.integer({ min: 1, max: 1000 }), (refused, base) => {
        const next = new ServerLoad(4, base).afterUnavailable('POST /flows/', Array(refused).fill(503));
        expect('retryInMs' in next).toBe(true);
        const wait = (next as { retryInMs: number }).retryInMs;
        expect(wait).toBeGreaterThanOrEqual(base * 2 ** refused);
        expect(wait).toBeLessThanOrEqual(base * 2 ** refused * 1.5);
      }),
    );
  });

  test('an operation refused at every attempt is given up on sooner afterwards; another operation is not', () => {
    const load = new ServerLoad(4);
    const refused = (n: number) => Array(n).fill(503);
    expect(load.afterUnavailable('POST /flows/filter', refused(3))).toHaveProperty('retryInMs');
    expect(load.afterUnavailable('POST /flows/filter', refused(MAX_ATTEMPTS))).toEqual({ giveUp: true });
    expect(load.afterUnavailable('POST /flows/filter', refused(3))).toEqual({ giveUp: true });
    expect(load.afterUnavailable('POST /flows/filter', refused(2))).toHaveProperty('retryInMs');
    expect(load.afterUnavailable('POST /flow_runs/filter', refused(3))).toHaveProperty('retryInMs');
  });

  test('a request whose values are suspect gets one more attempt, and marks its operation for no other', () => {
    const load = new ServerLoad(4);
    expect(load.afterUnavailable('POST /flows/filter', [503], 0, true)).toHaveProperty('retryInMs');
    expect(
      load.afterUnavailable('POST /flows/filter', Array(ATTEMPTS_WHERE_VALUES_SUSPECT).fill(503), 0, true),
    ).toEqual({
      giveUp: true,
    });
    // The operation's ordinary requests still get every attempt.
    expect(load.afterUnavailable('POST /flows/filter', Array(MAX_ATTEMPTS - 1).fill(503))).toHaveProperty('retryInMs');
  });

  test('writes are spaced, once they take turns, by the time three in four take at the server', () => {
    const load = new ServerLoad(4);
    for (let i = 0; i < 64; i++) load.wrote(100 + i);
    expect(load.writeSpacingMs(100)).toBe(0); // no 503 yet: writes do not take turns
    load.answered(503, false);
    expect(load.writeSpacingMs(100)).toBe(48);
    expect(load.writeSpacingMs(200)).toBe(0);
    const unmeasured = new ServerLoad(4);
    unmeasured.answered(503, false);
    for (let i = 0; i < 7; i++) unmeasured.wrote(150);
    expect(unmeasured.writeSpacingMs(100)).toBe(0);
    unmeasured.wrote(150);
    expect(unmeasured.writeSpacingMs(100)).toBe(50);
  });

  test("a far target's writes are spaced by their own time at the server, not by their waits for the writes before", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ own: fc.integer({ min: 5, max: 300 }), gap: fc.integer({ min: 1, max: 120 }) }), {
          minLength: 64,
          maxLength: 64,
        }),
        fc.integer({ min: 20, max: 300 }),
        (writes, way) => {
          const load = new ServerLoad(4);
          load.answered(503, false);
          // One writer: each write starts at the server when it arrives or when the one before is done, whichever
          // is later, and its answer comes the way back after; sent `gap` ms after the one before.
          let sentAt = 1000;
          let serverDone = 0;
          for (const { own, gap } of writes) {
            sentAt += gap;
            serverDone = Math.max(sentAt, serverDone) + own;
            load.wrote(serverDone + way - sentAt, serverDone + way, way);
          }
          const owns = writes.map((w) => w.own).sort((a, b) => a - b);
          expect(load.writeSpacingMs(way)).toBe(owns[48]);
        },
      ),
    );
  });

  test("a far target's round trip is part of the backoff", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 0, max: 400 }), (refused, floor) => {
        const next = new ServerLoad(4, 100).afterUnavailable('POST /flows/', Array(refused).fill(503), floor);
        const wait = (next as { retryInMs: number }).retryInMs;
        expect(wait).toBeGreaterThanOrEqual(Math.max(0, 100 * 2 ** refused - floor));
        expect(wait).toBeLessThanOrEqual(Math.max(0, 150 * 2 ** refused - floor));
      }),
    );
  });
});
