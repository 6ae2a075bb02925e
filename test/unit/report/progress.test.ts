/** Progress's reading of the exchange log as it grows, and its estimate of the time left. */
import { appendFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { ExchangeLogTail, timeLeftMs } from '../../../src/report/progress.js';

const line = (at: number) => `${JSON.stringify({ m: 'GET', s: 200, at })}\n`;

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
