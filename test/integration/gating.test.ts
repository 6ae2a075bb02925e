/**
 * CI gating on the exit code: an expired baseline entry fails the run, and so does a baselined failure
 * that passes; the Markdown summary is written; `baseline update` writes the baseline a run implies.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, inject, test } from 'vitest';
import type { Baseline } from '../../src/report/baseline.js';
import { prefectBaseline, runCli, sqliteLabel } from '../support/runCli.js';

const OPS = '^POST /flows/$';

function baselineWith(edit: (b: Baseline) => Baseline): string {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'baseline-')), 'baseline.json');
  writeFileSync(file, JSON.stringify(edit(JSON.parse(readFileSync(prefectBaseline, 'utf8')) as Baseline)));
  return file;
}

const run = (baseline: string) => runCli([], { CONFORMANCE_BASE_URL: inject('prefectBaseUrl'), CONFORMANCE_OPERATIONS: OPS, CONFORMANCE_DISPOSABLE_TARGET: '1', CONFORMANCE_BASELINE: baseline, CONFORMANCE_TARGET_LABEL: sqliteLabel });

describe('exit codes for CI', () => {
  test('the shipped baseline: exit 0, and summary.md is written', async () => {
    const r = await run(prefectBaseline);
    expect(r.code).toBe(0);
    expect(readFileSync(path.join(r.outDir, 'summary.md'), 'utf8')).toMatch(/every MUST check passed[\s\S]*\| contract \|/);
  });

  test('an expired baseline entry makes the exit code 1', async () => {
    const file = baselineWith((b) => ({ ...b, entries: b.entries.map((e) => (e.operation === 'POST /flows/' ? { ...e, expires: '2000-01-01' } : e)) }));
    const r = await run(file);
    expect(r.code).toBe(1);
    expect(r.results!.errors?.join(' ')).toMatch(/baseline entry expired on 2000-01-01: contract.success-status-documented POST \/flows\//);
  });

  test('a baselined failure that passes (xpass) makes the exit code 1, and baseline update drops it', async () => {
    const file = baselineWith((b) => ({ ...b, entries: [...b.entries, { check: 'contract.no-5xx', operation: 'POST /flows/', reason: 'pretend it failed' }] }));
    const r = await run(file);
    expect(r.results!.checks.find((c) => c.status === 'xpass')).toMatchObject({ id: 'contract.no-5xx', operation: 'POST /flows/' });
    expect(r.code).toBe(1);
    const out = path.join(r.outDir, 'new-baseline.json');
    const update = await runCli(['baseline', 'update', '--from', path.join(r.outDir, 'results.json'), '--baseline', file, '--out', out]);
    expect(update.code).toBe(0);
    const entries = (JSON.parse(readFileSync(out, 'utf8')) as Baseline).entries.filter((e) => e.operation === 'POST /flows/');
    expect(entries.map((e) => e.check)).toEqual(['contract.success-status-documented']);
  });
});
