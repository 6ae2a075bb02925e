/**
 * Progress's reading of the exchange log as it grows, its estimate of the time left, what holds a run back in a
 * line, and its lines while no check ends.
 */
import { appendFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, test, vi } from 'vitest';
import type { PacingStatus } from '../../../../src/config/pacingStatus.js';
import { runFiles } from '../../../../src/config/runFolder.js';
import type { WorkerStart } from '../../../../src/config/worker.js';
import ProgressReporter, {
  ExchangeLogTail,
  familyChecks,
  heldBack,
  timeLeftMs,
} from '../../../../src/adapters/vitest/progress.js';

const line = (at: number) => `${JSON.stringify({ method: 'GET', status: 200, at })}\n`;

describe('the exchange log, read as it grows', () => {
  test('counts whole lines only, and the span from the first answer to the latest', () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'tail-')), 'exchanges.jsonl');
    const tail = new ExchangeLogTail(file);
    expect(tail.update().answered).toBe(0);
    writeFileSync(file, line(1000) + line(1200));
    expect(tail.update().answered).toBe(2);
    expect(tail.spanMs).toBe(200);
    // A line being written counts once it ends.
    appendFileSync(file, line(1500) + line(2000).slice(0, 10));
    expect(tail.update().answered).toBe(3);
    expect(tail.spanMs).toBe(500);
    appendFileSync(file, line(2000).slice(10));
    expect(tail.update().answered).toBe(4);
    expect(tail.spanMs).toBe(1000);
    expect(tail.update().answered).toBe(4);
  });
});

describe('the time left', () => {
  test('what is left at the pace so far', () => {
    expect(timeLeftMs(1000, 3000, 10_000)).toBe(20_000);
  });

  test('none while the pace says too little, without an expectation, or past it', () => {
    expect(timeLeftMs(50, 3000, 10_000)).toBeUndefined();
    expect(timeLeftMs(1000, 3000, 1_000)).toBeUndefined();
    expect(timeLeftMs(1000, undefined, 10_000)).toBeUndefined();
    expect(timeLeftMs(3000, 3000, 10_000)).toBeUndefined();
  });
});

const status = (over: Partial<PacingStatus> = {}): PacingStatus => ({
  at: 0,
  answers: 1000,
  rateLimited: 0,
  unavailable: 0,
  paces: [],
  pausedForMs: 0,
  notThePace: [],
  atServer: 8,
  concurrency: 8,
  medianAnswerMs: 12,
  ...over,
});

describe('what holds a run back, in a line', () => {
  test('nothing: no line', () => {
    expect(heldBack(status())).toBeUndefined();
    expect(heldBack(status({ rateLimited: 3 }), { rateLimited: 3, unavailable: 0 })).toBeUndefined();
  });

  test("a rate limit's pace and its 429s, a Retry-After waited out", () => {
    const held = heldBack(
      status({ rateLimited: 12, paces: [{ families: ['flows', 'flow_runs'], rate: 31.5 }], pausedForMs: 1200 }),
      { rateLimited: 9, unavailable: 0 },
    );
    expect(held?.line).toBe(
      'held back: paced at 31.5/s (flows, flow_runs) after 12 answer(s) 429, 3 since the last line; waiting out Retry-After (2 s left)',
    );
    expect(held?.kinds).toEqual(['paced']);
    expect(heldBack(status({ rateLimited: 2 }))?.line).toBe('held back: 2 answer(s) 429 since the last line');
  });

  test('429s whatever the pace, the server answering 503, its own answer time', () => {
    const held = heldBack(
      status({ rateLimited: 250, notThePace: ['flows'], unavailable: 7, atServer: 2, medianAnswerMs: 1500 }),
      { rateLimited: 200, unavailable: 4 },
    );
    expect(held?.line).toBe(
      "held back: 429s whatever the pace on flows (250 in all, 50 since the last line): unpaced, each refused request waits its own Retry-After and the others go on; the server answered 503 3 time(s) since the last line: 2 of 8 requests at it at once, writes in turn; the server's own answer time: 1.5 s (median of the last answers)",
    );
    expect(held?.kinds).toEqual(['unpaced', '503', 'slow']);
    // Many families: the first few by name.
    const many = ['flows', 'flow_runs', 'task_runs', 'deployments', 'logs'];
    expect(heldBack(status({ rateLimited: 1, paces: [{ families: many, rate: 5 }] }))?.line).toBe(
      'held back: paced at 5/s (flows, flow_runs, task_runs and 2 more) after 1 answer(s) 429, 1 since the last line',
    );
  });
});

describe('the progress reporter, with no check ending', () => {
  test('in CI, a line every 15 s while the run waits on its requests, and a new kind of hold at once', () => {
    const runDir = mkdtempSync(path.join(os.tmpdir(), 'progress-'));
    const start = { runDir, ci: true, startedAt: new Date().toISOString() } as WorkerStart;
    vi.useFakeTimers();
    const written: string[] = [];
    const write = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    try {
      const reporter = new ProgressReporter({ start });
      reporter.onTestRunStart([]);
      // Before its first family, nothing to say.
      vi.advanceTimersByTime(5_000);
      expect(written).toEqual([]);
      reporter.onTestModuleCollected({
        moduleId: '/x/contract.test.ts',
        children: { allTests: () => [] },
      } as unknown as Parameters<ProgressReporter['onTestModuleCollected']>[0]);
      vi.advanceTimersByTime(41_000);
      const lines = written.join('').split('\n').filter(Boolean);
      // Drawn when the family starts, then every 15 s: the time since the start says when.
      const seconds = lines
        .filter((l) => / judged, /.test(l))
        .map((l) => Number(/^conformance: (\d+) s /.exec(l)?.[1]));
      expect(seconds).toEqual([5, 20, 35]);
      expect(lines.some((l) => l.includes('held back'))).toBe(false);
      // The client says it is paced: said within the second, not at the next 15 s.
      writeFileSync(
        runFiles(runDir).pacingStatus,
        JSON.stringify(status({ rateLimited: 4, paces: [{ families: ['flows'], rate: 20 }] })),
      );
      vi.advanceTimersByTime(1_000);
      const after = written.join('').split('\n').filter(Boolean).slice(lines.length);
      expect(after).toEqual([
        expect.stringMatching(/ judged, /),
        'conformance: held back: paced at 20/s (flows) after 4 answer(s) 429, 4 since the last line',
      ]);
      reporter.onTestRunEnd();
      vi.advanceTimersByTime(60_000);
      expect(written.join('').split('\n').filter(Boolean)).toHaveLength(lines.length + 2);
    } finally {
      write.mockRestore();
      vi.useRealTimers();
    }
  });
});

describe("a family's checks", () => {
  test('their number as the family starts, then those judged of them; never 0 of them', () => {
    expect(familyChecks(0, 2394)).toBe('2,394 checks');
    expect(familyChecks(1200, 2394)).toBe('1,200/2,394 checks');
  });
});
