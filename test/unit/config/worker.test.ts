/**
 * The worker configuration's way to the suites: what is known when vitest starts (provided to vitest as a
 * value), and what the CLI's preflight decides later (handOver, waited for by handedOver).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, test } from 'vitest';
import { configFrom } from '../../../src/config/config.js';
import { handedOver, handOver, workerStart } from '../../../src/config/worker.js';
import { runFiles } from '../../../src/config/runFolder.js';
import { repoRoot } from '../support.js';

const runDir = () => mkdtempSync(path.join(os.tmpdir(), 'conformance-worker-'));

const start = (dir: string, env: Record<string, string> = {}) =>
  workerStart(configFrom({ CONFORMANCE_BASE_URL: 'http://127.0.0.1:9/api', CONFORMANCE_SEED: '7', ...env }), {
    runDir: dir,
    startedAt: '2026-11-24T10:00:00.000Z',
  });

const decided = {
  baseUrl: 'http://127.0.0.1:4200/api',
  documentPath: '/tmp/openapi.json',
  baselinePath: '/tmp/baseline.json',
  managed: 'prefect 3.8.8 on sqlite',
  targetLabel: 'prefect 3.8.8 on sqlite',
  identity: {
    release: { version: '3.8.8', from: 'the managed server' },
    database: { name: 'sqlite' as const, how: 'the managed server' },
  },
};

describe('worker configuration', () => {
  test('what the suites know at their start leaves the target to the hand-over', () => {
    const known = start(runDir());
    expect(known.baseUrl).toBeUndefined();
    expect(known.baselinePath).toBeUndefined();
    expect(known.seed).toBe(7);
    expect(known.cliPid).toBe(process.pid);
  });

  test('the hand-over completes the configuration, and its file goes once read', async () => {
    const dir = runDir();
    handOver(dir, decided);
    const config = await handedOver(start(dir));
    expect(config).toMatchObject({ ...decided, seed: 7, runDir: dir });
    expect(existsSync(runFiles(dir).workerConfig)).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });

  test("a decision of no baseline, no managed server and no label stays one: the user's request is not the decision", async () => {
    const dir = runDir();
    const known = start(dir, { CONFORMANCE_BASELINE: 'none' });
    expect(known.baselinePath).toBeUndefined();
    handOver(dir, { baseUrl: decided.baseUrl, documentPath: decided.documentPath });
    const config = await handedOver({ ...known, targetLabel: 'by URL' });
    expect(config.baselinePath).toBeUndefined();
    expect(config.managed).toBeUndefined();
    expect(config.identity).toBeUndefined();
    expect(config.targetLabel).toBeUndefined();
  });

  test('the suites wait for a hand-over that comes later', async () => {
    const dir = runDir();
    let settled = false;
    const waiting = handedOver(start(dir), 5).finally(() => {
      settled = true;
    });
    await new Promise((r) => setTimeout(r, 60));
    expect(settled).toBe(false);
    handOver(dir, decided);
    expect((await waiting).baseUrl).toBe(decided.baseUrl);
  });

  test('the wait ends in an error when the CLI that started the suites has gone', { timeout: 30_000 }, async () => {
    const dir = runDir();
    const out = path.join(dir, 'out.txt');
    const worker = pathToFileURL(path.join(repoRoot, 'src', 'config', 'worker.ts')).href;
    // The suites' side: wait for a hand-over from the CLI whose pid it is given, and write how the wait ended.
    const waiter = path.join(dir, 'waiter.mjs');
    writeFileSync(
      waiter,
      [
        "import { writeFileSync } from 'node:fs';",
        `const { handedOver } = await import(${JSON.stringify(worker)});`,
        `await handedOver({ runDir: ${JSON.stringify(dir)}, cliPid: Number(process.argv[2]) }, 5).then(`,
        `  () => writeFileSync(${JSON.stringify(out)}, 'handed over'),`,
        `  (e) => writeFileSync(${JSON.stringify(out)}, e.message),`,
        ');',
      ].join('\n'),
    );
    // The CLI's side: start the waiter and exit at once, as a CLI that crashed before its hand-over.
    const cli = `require('node:child_process').spawn(process.execPath, ['--import', 'tsx', ${JSON.stringify(waiter)}, String(process.pid)], { detached: true, stdio: 'ignore' }).unref()`;
    await new Promise((r) => spawn(process.execPath, ['-e', cli], { cwd: repoRoot, stdio: 'ignore' }).on('exit', r));
    const deadline = Date.now() + 20_000;
    while (!existsSync(out) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(readFileSync(out, 'utf8')).toMatch(/ended before handing them their configuration/);
  });
});
