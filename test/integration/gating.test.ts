/**
 * CI gating on the exit code: an expired baseline entry fails the run, and so does a baselined failure
 * that passes; the Markdown summary is written; `baseline update` writes the baseline a run implies.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { laneBaseUrl } from '../support/lane.js';
import type { Baseline } from '../../src/baseline/entries.js';
import { prefectBaseline, prefectTargetEnv, runCli } from '../support/runCli.js';

const OPS = '^POST /flows/$';

function baselineWith(edit: (b: Baseline) => Baseline): string {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'baseline-')), 'baseline.json');
  writeFileSync(file, JSON.stringify(edit(JSON.parse(readFileSync(prefectBaseline, 'utf8')) as Baseline)));
  return file;
}

const run = (baseline: string) =>
  runCli([], { ...prefectTargetEnv(laneBaseUrl(), baseline), CONFORMANCE_OPERATIONS: OPS });

describe('exit codes for CI', () => {
  test('the shipped baseline: exit 0, and summary.md is written', async () => {
    const r = await run(prefectBaseline);
    expect(r.code).toBe(0);
    expect(readFileSync(path.join(r.outDir, 'summary.md'), 'utf8')).toMatch(
      /every MUST check passed[\s\S]*\| contract \|/,
    );
  });

  test('an expired baseline entry makes the exit code 1', async () => {
    const file = baselineWith((b) => ({
      ...b,
      entries: b.entries.map((e) => (e.operation === 'POST /flows/' ? { ...e, expires: '2000-01-01' } : e)),
    }));
    const r = await run(file);
    expect(r.code).toBe(1);
    expect(r.results!.errors?.join(' ')).toMatch(
      /baseline entry expired on 2000-01-01: contract.success-status-documented POST \/flows\//,
    );
  });

  test('a baselined failure that passes (xpass) makes the exit code 1, and baseline update drops it', async () => {
    const file = baselineWith((b) => ({
      ...b,
      entries: [
        ...b.entries,
        {
          check: 'contract.no-5xx',
          operation: 'POST /flows/',
          kind: 'server-error',
          key: '500 generated',
          reason: 'pretend it failed',
        },
      ],
    }));
    const r = await run(file);
    expect(r.results!.checks.find((c) => c.status === 'xpass')).toMatchObject({
      id: 'contract.no-5xx',
      operation: 'POST /flows/',
    });
    expect(r.code).toBe(1);
    const out = path.join(r.outDir, 'new-baseline.json');
    const update = await runCli([
      'baseline',
      'update',
      '--from',
      path.join(r.outDir, 'results.json'),
      '--baseline',
      file,
      '--out',
      out,
    ]);
    expect(update.code).toBe(0);
    const entries = (JSON.parse(readFileSync(out, 'utf8')) as Baseline).entries.filter(
      (e) => e.operation === 'POST /flows/',
    );
    expect(entries.map((e) => e.check)).toEqual(['contract.success-status-documented']);
    // The run selected one operation: every entry of the others is kept as it was.
    const shipped = (JSON.parse(readFileSync(prefectBaseline, 'utf8')) as Baseline).entries;
    const kept = (JSON.parse(readFileSync(out, 'utf8')) as Baseline).entries;
    expect(kept.filter((e) => e.operation !== 'POST /flows/')).toEqual(
      shipped.filter((e) => e.operation !== 'POST /flows/'),
    );
  });

  test('an entry excuses only its failure: the known 201 with the key changed to 202 is a new failure, exit 1', async () => {
    const file = baselineWith((b) => ({
      ...b,
      entries: b.entries.map((e) =>
        e.operation === 'POST /flows/' && e.check === 'contract.success-status-documented' ? { ...e, key: '202' } : e,
      ),
    }));
    const r = await run(file);
    expect(r.code).toBe(1);
    expect(r.results!.checks.find((c) => c.id === 'contract.success-status-documented')).toMatchObject({
      status: 'failed',
      kind: 'status.undocumented',
      key: '201',
    });
  });

  test('a run that fails before judging anything leaves the previous reports as they were', async () => {
    const first = await run(prefectBaseline);
    expect(first.code).toBe(0);
    const before = readFileSync(path.join(first.outDir, 'results.json'), 'utf8');
    const again = await runCli([], { CONFORMANCE_OUT: first.outDir, CONFORMANCE_BASE_URL: 'http://127.0.0.1:9/api' });
    expect(again.code).toBe(2);
    expect(readFileSync(path.join(first.outDir, 'results.json'), 'utf8')).toBe(before);
    for (const f of ['index.html', 'junit.xml', 'summary.md', 'allure-results', '.run'])
      expect(existsSync(path.join(first.outDir, f)), f).toBe(true);
  });
});
