/**
 * vitest in the CLI's process: the suites' end and its failures are reported, not a process exit; vitest's own
 * listeners that would end the process are gone while it runs; a stop ends the suites at once. Against a
 * vitest root of one suite file (fixtures/vitest-root), run with the configuration the CLI gives a run.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { startSuites } from '../../../src/supervisor/suitesInProcess.js';
import { repoRoot } from '../support.js';

const root = path.join(repoRoot, 'fixtures', 'vitest-root');
const quiet = path.join(root, 'silentReporter.mjs');
const lines: string[] = [];
const log = (line: string) => lines.push(line);
// Inside this test's vitest worker, an inner vitest's module cache confuses the outer one's source maps.
const options = { root, log, moduleCache: false };

afterEach(() => {
  vi.unstubAllEnvs();
  lines.length = 0;
});

const signalListeners = () => [...process.listeners('SIGINT'), ...process.listeners('SIGTERM')];

describe('startSuites', () => {
  test('a run of passing suites ends with code 0 and no failure, and leaves the process its listeners', async () => {
    const before = signalListeners();
    const exitCode = process.exitCode;
    const end = await startSuites({ ...options, reporters: [quiet] }).ended;
    expect(end).toEqual({ code: 0 });
    expect(signalListeners()).toEqual(before);
    expect(process.exitCode).toBe(exitCode);
  });

  test("an unhandled rejection while vitest runs is the run's failure, not the end of the process", async () => {
    const suites = startSuites({ ...options, reporters: [quiet, path.join(root, 'rejectingReporter.mjs')] });
    const end = await suites.ended;
    expect(end.code).toBe(1);
    expect(end.failure).toMatch(/unhandled rejection.*a reporter broke/);
    // Asked after vitest has closed (an interrupt during cleanup), a stop does nothing.
    expect(() => suites.stop()).not.toThrow();
    expect(lines.join('\n')).toMatch(/the suites are stopped/);
  });

  test("while the suites run, vitest's SIGINT and SIGTERM listeners are off, and a stop ends them at once", async () => {
    const started = path.join(mkdtempSync(path.join(os.tmpdir(), 'suites-in-process-')), 'started');
    vi.stubEnv('FIXTURE_STARTED', started);
    const before = signalListeners();
    const suites = startSuites({ ...options, reporters: [quiet] });
    for (let i = 0; i < 300 && !existsSync(started); i++) await new Promise((r) => setTimeout(r, 50));
    expect(existsSync(started)).toBe(true);
    expect(signalListeners()).toEqual(before);
    const stoppedAt = Date.now();
    suites.stop();
    const end = await suites.ended;
    expect(end).toEqual({ code: 130 });
    // The waiting test would have lasted two minutes.
    expect(Date.now() - stoppedAt).toBeLessThan(10_000);
  });
});

describe('a stop while vitest starts its run', () => {
  // vitest clears a cancel asked before its run has begun. The CLI stops the suites whenever its preflight fails,
  // which may be as vitest starts its run; the fixture's test would otherwise wait two minutes.
  test('ends the suites at once', async () => {
    const started = path.join(mkdtempSync(path.join(os.tmpdir(), 'suites-in-process-')), 'started');
    vi.stubEnv('FIXTURE_STARTED', started);
    let stoppedAt = 0;
    const suites = startSuites({ ...options, reporters: [quiet, path.join(root, 'stoppingReporter.mjs')] });
    (globalThis as { stopSuitesNow?: () => void }).stopSuitesNow = () => {
      stoppedAt = Date.now();
      suites.stop();
    };
    try {
      const end = await suites.ended;
      expect(stoppedAt).toBeGreaterThan(0);
      expect(Date.now() - stoppedAt).toBeLessThan(10_000);
      expect(end).toEqual({ code: 130 });
    } finally {
      delete (globalThis as { stopSuitesNow?: () => void }).stopSuitesNow;
    }
  });
});

describe("a worker thread that cannot start (a flag Node's worker threads refuse)", () => {
  const refused = ['--no-such-node-flag'];

  test('is started once more, and the suites run when it starts then', async () => {
    const attempts: number[] = [];
    const workerFlags = (attempt: number) => {
      attempts.push(attempt);
      return attempt === 0 ? refused : [];
    };
    const end = await startSuites({ ...options, reporters: [quiet], workerFlags }).ended;
    expect(end).toEqual({ code: 0 });
    expect(attempts).toEqual([0, 1]);
    expect(lines.join('\n')).toMatch(
      /the suites' worker did not start \(.*Failed to start threads worker.*\); trying once more/,
    );
  });

  test('twice: the suites end as not started, with the cause in one line, and no third try', async () => {
    const attempts: number[] = [];
    const workerFlags = (attempt: number) => {
      attempts.push(attempt);
      return refused;
    };
    const end = await startSuites({ ...options, reporters: [quiet], workerFlags }).ended;
    expect(attempts).toEqual([0, 1]);
    expect(end.code).toBe(1);
    expect(end.notStarted).toMatch(/^\[vitest-pool\]: Failed to start threads worker: .*no-such-node-flag/);
    expect(end.notStarted).not.toMatch(/\n/);
  });
});
