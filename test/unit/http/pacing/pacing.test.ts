import { afterEach, describe, expect, test, vi } from 'vitest';
import { Pacing } from '../../../../src/http/pacing/pacing.js';

const idle = { active: 0, writing: 0, aloneWanted: 0 };
const read = { alone: false, write: false, racing: false };
const write = { alone: false, write: true, racing: false };

afterEach(() => {
  vi.useRealTimers();
});

/**
 * `n` writes answered `ms` after they started, one every `apart` ms (pacing's clock, faked): a server that
 * takes them one at a time, each done before the next reaches it when `apart` is at least their time there.
 */
function writesServed(pacing: Pacing, n: number, ms: number, apart: number): void {
  vi.useFakeTimers({ toFake: ['performance'] });
  for (let i = 0; i < n; i++) {
    vi.advanceTimersByTime(apart);
    pacing.answered('/flows/', 201, {}, ms, { write: true });
  }
}

describe('Pacing.admits', () => {
  test('up to the concurrency in flight for a near target; none beside a request waiting to go alone', () => {
    const pacing = new Pacing({ concurrency: 4 });
    expect(pacing.admits(read, { ...idle, active: 3 })).toBe(true);
    expect(pacing.admits(read, { ...idle, active: 4 })).toBe(false);
    expect(pacing.admits(read, { ...idle, active: 1, aloneWanted: 1 })).toBe(false);
  });

  test('a request alone starts only with nothing in flight; the first attempt of a race waits only for one alone', () => {
    const pacing = new Pacing({ concurrency: 4 });
    expect(pacing.admits({ ...read, alone: true }, { ...idle, active: 1, aloneWanted: 1 })).toBe(false);
    expect(pacing.admits({ ...read, alone: true }, { ...idle, aloneWanted: 1 })).toBe(true);
    expect(pacing.admits({ ...write, racing: true }, { ...idle, active: 9, writing: 9 })).toBe(true);
    expect(pacing.admits({ ...write, racing: true }, { ...idle, aloneWanted: 1 })).toBe(false);
  });

  test('after a 503, a write waits for the write in flight while a read goes beside it', () => {
    const pacing = new Pacing({ concurrency: 4 });
    const oneWrite = { ...idle, active: 1, writing: 1 };
    expect(pacing.admits(write, oneWrite)).toBe(true);
    expect(pacing.answered('/flows/', 503, {}, 5)).toBe(false);
    expect(pacing.admits(write, oneWrite)).toBe(false);
    expect(pacing.admits(read, oneWrite)).toBe(true);
    expect(pacing.inFlightLimit).toBe(2);
  });

  test('answers of a far target raise the requests in flight, and say there is room', () => {
    const pacing = new Pacing({ concurrency: 4 });
    let room = false;
    for (let i = 0; i < 64; i++) room = pacing.answered('/flows/filter', 200, {}, 100 + (i % 4)) || room;
    expect(room).toBe(true);
    expect(pacing.inFlightLimit).toBeGreaterThan(4);
  });

  test("a 429 pauses its family: the next request of it waits, another family's does not", () => {
    const pacing = new Pacing({ concurrency: 4 });
    pacing.answered('/flows/filter', 429, { 'retry-after': '2' }, 5);
    const flows = pacing.take('/flows/');
    expect(pacing.startWait(flows)).toBeGreaterThan(1000);
    expect(pacing.start(flows)).toBe(false);
    const deployments = pacing.take('/deployments/');
    expect(pacing.startWait(deployments)).toBe(0);
    expect(pacing.start(deployments)).toBe(true);
    expect(pacing.summary().rateLimited).toBe(1);
  });

  test('to a far target, after a 503, a write waits for its turn in time; a read does not; a near target never does', () => {
    const far = new Pacing({ concurrency: 4 });
    far.learnDistance(Array.from({ length: 64 }, (_, i) => 100 + (i % 4)));
    expect(far.inFlightLimit).toBeGreaterThan(4);
    far.answered('/flows/', 503, {}, 100, { write: true });
    writesServed(far, 64, 130, 30);
    far.started(write);
    expect(far.writeWaitMs()).toBeGreaterThan(20);
    // A read waits only for the spacing of starts (a few ms), not for the write's turn.
    vi.advanceTimersByTime(far.startWaitMs());
    expect(far.admits(write, idle)).toBe(false);
    expect(far.admits(read, idle)).toBe(true);
    vi.advanceTimersByTime(far.writeWaitMs() + 5);
    expect(far.admits(write, idle)).toBe(true);

    const near = new Pacing({ concurrency: 4 });
    near.answered('/flows/', 503, {}, 5, { write: true });
    for (let i = 0; i < 64; i++) near.answered('/flows/', 201, {}, 1 + (i % 30), { write: true });
    near.started(write);
    expect(near.writeWaitMs()).toBe(0);
    expect(near.admits(write, idle)).toBe(true);
  });

  test("to a far target, each request starts once the one before has had its share of the server's time; to a near one, at once", () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    const far = new Pacing({ concurrency: 4 });
    // 100 ms away, a median of 120 ms: 20 ms of the server's for a typical request, four at once at the server.
    far.learnDistance(Array.from({ length: 64 }, (_, i) => 100 + (i % 4) * 10));
    far.started(read);
    expect(far.startWaitMs()).toBeCloseTo(5);
    expect(far.waitMs(false)).toBeCloseTo(5);
    expect(far.admits(read, { ...idle, active: 1 })).toBe(false);
    vi.advanceTimersByTime(5);
    expect(far.admits(read, { ...idle, active: 1 })).toBe(true);
    // Fewer at the server after a 503: the starts further apart.
    far.answered('/flows/', 503, {}, 100, { write: true });
    far.started(read);
    expect(far.startWaitMs()).toBeCloseTo(10);
    // A request alone, and the first attempt of a race, are not spaced.
    expect(far.admits({ ...read, alone: true }, idle)).toBe(true);
    expect(far.admits({ ...read, racing: true }, idle)).toBe(true);

    const near = new Pacing({ concurrency: 4 });
    near.learnDistance(Array.from({ length: 64 }, (_, i) => 1 + (i % 4) * 10));
    near.started(read);
    expect(near.startWaitMs()).toBe(0);
    expect(near.admits(read, { ...idle, active: 1 })).toBe(true);
  });

  test('a far target whose heavy reads bring its factor near 1 still has writes spaced, two in flight', () => {
    const far = new Pacing({ concurrency: 4 });
    // 105 ms away, a median of 250 ms: the factor is 250 / 145.
    far.learnDistance(Array.from({ length: 256 }, (_, i) => (i % 8 === 0 ? 105 : 250)));
    expect(far.inFlightLimit).toBe(Math.floor((4 * 250) / 145));
    far.answered('/flows/', 503, {}, 105, { write: true });
    writesServed(far, 64, 135, 30);
    far.started(write);
    expect(far.writeWaitMs()).toBeGreaterThan(20);
    expect(far.admits(write, { ...idle, active: 1, writing: 1 })).toBe(false);
  });

  test("a client told another's writes took turns starts with its writes in turn, spaced by the times it was told", () => {
    const told = new Pacing({ concurrency: 4 });
    told.learnDistance(Array.from({ length: 64 }, (_, i) => 100 + (i % 4)));
    told.learnWrites(
      true,
      Array.from({ length: 64 }, () => 130),
    );
    expect(told.writesTakeTurns).toBe(true);
    told.started(write);
    // Spaced by the writes' time at the target (130 ms less the 100 ms way), not sent as a crowd.
    expect(told.writeWaitMs()).toBeGreaterThan(20);
    expect(told.admits(write, idle)).toBe(false);
    expect(told.admits(write, { ...idle, writing: Math.floor(told.inFlightLimit / 4) })).toBe(false);
    // Told they did not, its writes go side by side until the target says otherwise.
    const untold = new Pacing({ concurrency: 4 });
    untold.learnWrites(
      false,
      Array.from({ length: 64 }, () => 130),
    );
    expect(untold.writesTakeTurns).toBe(false);
    expect(untold.admits(write, { ...idle, active: 3, writing: 3 })).toBe(true);
  });
});

describe('Pacing: a 503 to values past what a server must hold', () => {
  test('says nothing of the load: the limit stays and writes do not take turns; such a request never goes alone', () => {
    const pacing = new Pacing({ concurrency: 4 });
    pacing.answered('/flows/filter', 503, {}, 5, { valuesSuspect: true });
    expect(pacing.inFlightLimit).toBe(4);
    expect(pacing.writesTakeTurns).toBe(false);
    expect(pacing.goesAlone([503, 503, 503], true)).toBe(false);
    pacing.answered('/flows/filter', 503, {}, 5);
    expect(pacing.inFlightLimit).toBe(2);
    expect(pacing.writesTakeTurns).toBe(true);
    expect(pacing.goesAlone([503, 503, 503])).toBe(true);
  });
});
