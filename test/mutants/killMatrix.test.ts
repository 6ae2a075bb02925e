/**
 * The kill matrix: the suite against the real Prefect server behind a fault-injecting proxy, once per
 * mutant. Each mutant must be caught by the checks it names; the unmutated proxy must give no failure
 * outside the baseline. The matrix is written to reports/mutants.json and reports/mutants.md.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { startProxy, type RunningProxy } from '../support/proxy.js';
import { failedChecks, prefectBaseline, repoRoot, runCli, sqliteLabel } from '../support/runCli.js';
import { contractMutants, type MutantCase } from './registry.js';

const mutants: MutantCase[] = [...contractMutants];
const matrix: Array<{ mutant: string; breaks: string; expected: string[]; failed: string[]; killed: boolean }> = [];
let proxy: RunningProxy;

function runAgainstProxy(operations: string) {
  return runCli([], {
    CONFORMANCE_BASE_URL: proxy.baseUrl,
    CONFORMANCE_OPERATIONS: operations,
    CONFORMANCE_DISPOSABLE_TARGET: '1',
    CONFORMANCE_BASELINE: prefectBaseline,
    CONFORMANCE_TARGET_LABEL: sqliteLabel,
  });
}

beforeAll(async () => {
  proxy = await startProxy(inject('prefectBaseUrl'));
});

afterAll(async () => {
  await proxy?.close();
  const out = path.join(repoRoot, 'reports');
  mkdirSync(out, { recursive: true });
  writeFileSync(path.join(out, 'mutants.json'), JSON.stringify(matrix, null, 2));
  const lines = ['| mutant | breaks | caught by | killed |', '|---|---|---|---|'];
  for (const row of matrix) lines.push(`| ${row.mutant} | ${row.breaks} | ${row.failed.join('<br>') || '—'} | ${row.killed ? 'yes' : '**no**'} |`);
  writeFileSync(path.join(out, 'mutants.md'), `# Mutant kill matrix\n\n${lines.join('\n')}\n`);
});

describe('kill matrix', () => {
  test('the unmutated proxy gives no failure outside the baseline', async () => {
    proxy.setMutant(undefined);
    const operations = [...new Set(mutants.map((m) => m.operations))].join('|');
    const run = await runAgainstProxy(operations);
    expect(failedChecks(run.results)).toEqual([]);
    expect(run.results?.checks.length).toBeGreaterThan(0);
    expect(run.code).toBe(0);
  });

  for (const { mutant, operations, killedBy } of mutants) {
    test(`${mutant.id} is killed by ${killedBy.join(', ')}`, async () => {
      proxy.setMutant(mutant);
      const run = await runAgainstProxy(operations);
      const failed = failedChecks(run.results);
      const killed = killedBy.every((k) => failed.includes(k));
      matrix.push({ mutant: mutant.id, breaks: mutant.breaks, expected: killedBy, failed, killed });
      expect(failed).toEqual(expect.arrayContaining(killedBy));
      expect(run.code).toBe(1);
    });
  }
});
