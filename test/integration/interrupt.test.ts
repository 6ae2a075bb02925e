/**
 * SIGINT (or SIGTERM) in the middle of a run: the suites stop, cleanup still deletes every object the run
 * had recorded, the report is written, and the exit code says the run did not finish. vitest runs in the
 * CLI's process, and its own listeners for these signals would end the process before cleanup.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { laneBaseUrl } from '../support/lane.js';
import type { Results } from '../../src/report/results.js';
import { stagingFolder } from '../../src/report/publish.js';
import { Ledger } from '../../src/resources/ledger.js';
import { objectsLeft } from '../support/objectsLeft.js';
import { cleanEnv, cliEntry, prefectBaseline, repoRoot, sqliteLabel } from '../support/runCli.js';

describe('an interrupt in the middle of a run', () => {
  test.each(['SIGINT', 'SIGTERM'] as const)(
    '%s: cleanup still runs, and nothing the run created is left',
    async (signal) => {
      const base = laneBaseUrl();
      const outDir = mkdtempSync(path.join(os.tmpdir(), 'conformance-sigint-'));
      // While the run lasts it writes into its staging folder; the reports move into outDir when it ends.
      const liveLedger = path.join(stagingFolder(outDir), '.run', 'ledger.jsonl');
      const ledgerFile = path.join(outDir, '.run', 'ledger.jsonl');
      const child = spawn(cliEntry, [], {
        cwd: repoRoot,
        env: cleanEnv({
          CONFORMANCE_BASE_URL: base,
          CONFORMANCE_OUT: outDir,
          CONFORMANCE_DISPOSABLE_TARGET: '1',
          CONFORMANCE_BASELINE: prefectBaseline,
          CONFORMANCE_TARGET_LABEL: sqliteLabel,
        }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const exited = new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? -1)));
      // Interrupt once the run has made a good number of objects (the ledger's entries, not the lines that say
      // the run deleted one itself).
      for (let i = 0; i < 600; i++) {
        if (Ledger.read(liveLedger).length > 40) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      child.kill(signal);
      const code = await exited;
      expect(code).toBe(1);
      const results = JSON.parse(readFileSync(path.join(outDir, 'results.json'), 'utf8')) as Results;
      expect(results.errors?.join(' ')).toMatch(/interrupted/);
      const { ledger, left } = await objectsLeft(base, ledgerFile);
      expect(ledger.length).toBeGreaterThanOrEqual(40);
      expect(left).toEqual([]);
    },
  );
});
