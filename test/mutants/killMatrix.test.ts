/**
 * The kill matrix: the suite against the real Prefect server behind a fault-injecting proxy, once per
 * mutant. Each mutant must be caught by the checks it names; the unmutated proxy must give no failure
 * outside the baseline. The matrix is written to reports/mutants.json and reports/mutants.md.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { laneBaseUrl } from '../support/lane.js';
import { startProxy, type RunningProxy } from '../support/proxy.js';
import { checkIdOf } from '../../src/checks/check.js';
import { exitCodeOf } from '../../src/report/results.js';
import { failedChecks, prefectTargetEnv, repoRoot, runCli, sqliteLabel } from '../support/runCli.js';
import { contractMutants, gateMutants, queryMutants, verbMutants, type MutantCase } from './registry.js';
import { CLOUD_KEY, startCloudProxy } from '../support/cloudProxy.js';

const mutants: MutantCase[] = [...contractMutants, ...verbMutants, ...queryMutants, ...gateMutants];
const matrix: Array<{ mutant: string; breaks: string; expected: string[]; failed: string[]; killed: boolean }> = [];
const proxies: Partial<Record<'plain' | 'cloud', RunningProxy>> = {};

/** The check ids of `killedBy` entries (`id[variant] METHOD /path`): the checks a mutant's run selects. */
const killingChecks = (killedBy: string[]): string =>
  [...new Set(killedBy.map((k) => checkIdOf(k.slice(0, k.indexOf(' ')))))].join(',');

/**
 * A run of the operations a mutant touches; for a mutant, only the checks that must catch it: the matrix proves
 * each can fail, and the unmutated runs, with every family, prove that no check cries wolf on the proxy.
 */
function runAgainstProxy(
  operations: string,
  target: 'plain' | 'cloud' = 'plain',
  label = sqliteLabel,
  killedBy?: string[],
) {
  return runCli([], {
    ...prefectTargetEnv(proxies[target]!.baseUrl),
    CONFORMANCE_OPERATIONS: operations,
    ...(killedBy ? { CONFORMANCE_CHECKS: killingChecks(killedBy) } : {}),
    CONFORMANCE_TARGET_LABEL: label,
    ...(target === 'cloud' ? { CONFORMANCE_API_KEY: CLOUD_KEY } : {}),
  });
}

beforeAll(async () => {
  proxies.plain = await startProxy(laneBaseUrl());
  proxies.cloud = await startCloudProxy(laneBaseUrl());
});

afterAll(async () => {
  await Promise.all(Object.values(proxies).map((p) => p?.close()));
  const out = path.join(repoRoot, 'reports');
  mkdirSync(out, { recursive: true });
  writeFileSync(path.join(out, 'mutants.json'), JSON.stringify(matrix, null, 2));
  const lines = ['| mutant | breaks | caught by | killed |', '|---|---|---|---|'];
  for (const row of matrix)
    lines.push(
      `| ${row.mutant} | ${row.breaks} | ${row.failed.join('<br>') || '—'} | ${row.killed ? 'yes' : '**no**'} |`,
    );
  writeFileSync(path.join(out, 'mutants.md'), `# Mutant kill matrix\n\n${lines.join('\n')}\n`);
});

describe('kill matrix', () => {
  for (const target of ['plain', 'cloud'] as const) {
    test(`the unmutated ${target} proxy gives no failure outside the baseline`, async () => {
      proxies[target]!.setMutant(undefined);
      const operations = [
        ...new Set(mutants.filter((m) => (m.target ?? 'plain') === target).map((m) => m.operations)),
      ].join('|');
      const run = await runAgainstProxy(operations, target);
      expect(failedChecks(run.results)).toEqual([]);
      expect(run.results?.checks.length).toBeGreaterThan(0);
      expect(run.code).toBe(0);
    });
  }

  for (const { mutant, operations, killedBy, target = 'plain', label } of mutants) {
    test(`${mutant.id} is killed by ${killedBy.join(', ')}`, async () => {
      proxies[target]!.setMutant(mutant);
      const run = await runAgainstProxy(operations, target, label, killedBy);
      const failed = failedChecks(run.results);
      const killed = killedBy.every((k) => failed.includes(k));
      matrix.push({ mutant: mutant.id, breaks: mutant.breaks, expected: killedBy, failed, killed });
      expect(failed).toEqual(expect.arrayContaining(killedBy));
      // The exit code follows the verdicts: 1 when any MUST failed (the mutant's or a collateral one), else 0.
      expect(run.code).toBe(exitCodeOf(run.results!));
      if (run.results!.checks.some((c) => killedBy.includes(`${c.id} ${c.operation}`) && c.level === 'MUST'))
        expect(run.code).toBe(1);
      proxies[target]!.setMutant(undefined);
    });
  }
});
