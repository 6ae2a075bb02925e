/**
 * The kill matrix: the suite against the real Prefect server behind a fault-injecting proxy. Each mutant must be
 * caught by the checks it names; the unmutated proxy must give no failure outside the baseline. The matrix is
 * written to reports/mutants.json and reports/mutants.md.
 *
 * Mutants whose runs send nothing to each other's operations share a run (a batch: the proxy holds them all,
 * the run selects their operations and their checks): a run costs seconds before it sends its first request.
 * A kill in a batch counts only when no other mutant of the batch could have caused it (batches.ts: suspects);
 * a mutant under suspicion runs again alone, and is judged by that run.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { laneBaseUrl } from '../support/lane.js';
import { startProxy, type RunningProxy } from '../support/proxy.js';
import { checkIdOf } from '../../src/checks/core/check.js';
import { readExchangeLog } from '../../src/config/exchangeLog.js';
import type { OpenApiDocument } from '../../src/openapi/document.js';
import { indexOperations } from '../../src/openapi/operations.js';
import { exitCodeOf } from '../../src/report/results.js';
import { type CliRun, failedChecks, prefectTargetEnv, repoRoot, runCli, sqliteLabel } from '../support/runCli.js';
import { batchesOf, type MutantBatch, type Reach, reachOf, suspects } from './batches.js';
import { contractMutants, gateMutants, queryMutants, verbMutants, type MutantCase } from './registry.js';
import { CLOUD_KEY, startCloudProxy } from '../support/cloudProxy.js';

const mutants: MutantCase[] = [...contractMutants, ...verbMutants, ...queryMutants, ...gateMutants];
const matrix: Array<{
  mutant: string;
  breaks: string;
  expected: string[];
  failed: string[];
  killed: boolean;
  /** How many mutants shared the run that judged it (1: a run of its own). */
  runWith: number;
}> = [];
const proxies: Partial<Record<'plain' | 'cloud', RunningProxy>> = {};
/** The served document's operations; what the unmutated plain run sent for each; the mutants in batches. */
let operations: string[] = [];
let reach: Reach | undefined;
let batches: MutantBatch[] | undefined;
/** Each batch's run, started by the first of its mutants' tests; and the mutants its run cannot vouch for. */
const batchRuns = new Map<MutantBatch, Promise<{ run: CliRun; suspected: Set<string> }>>();

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
  const served = (await (await fetch(`${laneBaseUrl()}/openapi.json`)).json()) as OpenApiDocument;
  operations = indexOperations(served).map((op) => op.key);
});

/** The batch's run with all its mutants in the proxy, and which of them it cannot vouch for. */
function batchRun(batch: MutantBatch) {
  let running = batchRuns.get(batch);
  if (!running) {
    running = (async () => {
      const proxy = proxies[batch.target]!;
      proxy.setMutants(batch.members.map((m) => m.mutant));
      const run = await runAgainstProxy(
        batch.members.map((m) => m.operations).join('|'),
        batch.target,
        batch.label,
        batch.members.flatMap((m) => m.killedBy),
      );
      const exchanges = readExchangeLog(path.join(run.outDir, '.run', 'exchanges.jsonl'));
      const suspected = suspects(batch, proxy.altered, exchanges);
      proxy.setMutants([]);
      return { run, suspected };
    })();
    batchRuns.set(batch, running);
  }
  return running;
}

/** The run that judges a mutant: its batch's, or one of its own when the batch cannot vouch for it. */
async function runJudging(m: MutantCase): Promise<{ run: CliRun; runWith: number }> {
  batches ??= batchesOf(mutants, operations, reach);
  const batch = batches.find((b) => b.members.includes(m))!;
  const { run, suspected } = await batchRun(batch);
  if (!suspected.has(m.mutant.id)) return { run, runWith: batch.members.length };
  proxies[batch.target]!.setMutant(m.mutant);
  const alone = await runAgainstProxy(m.operations, batch.target, batch.label, m.killedBy);
  proxies[batch.target]!.setMutant(undefined);
  return { run: alone, runWith: 1 };
}

afterAll(async () => {
  await Promise.all(Object.values(proxies).map((p) => p?.close()));
  const out = path.join(repoRoot, 'reports');
  mkdirSync(out, { recursive: true });
  writeFileSync(path.join(out, 'mutants.json'), JSON.stringify(matrix, null, 2));
  const lines = ['| mutant | breaks | caught by | killed | mutants in its run |', '|---|---|---|---|---|'];
  for (const row of matrix)
    lines.push(
      `| ${row.mutant} | ${row.breaks} | ${row.failed.join('<br>') || '—'} | ${row.killed ? 'yes' : '**no**'} | ${row.runWith} |`,
    );
  writeFileSync(path.join(out, 'mutants.md'), `# Mutant kill matrix\n\n${lines.join('\n')}\n`);
});

describe('kill matrix', () => {
  for (const target of ['plain', 'cloud'] as const) {
    test(`the unmutated ${target} proxy gives no failure outside the baseline`, async () => {
      proxies[target]!.setMutant(undefined);
      const selection = [
        ...new Set(mutants.filter((m) => (m.target ?? 'plain') === target).map((m) => m.operations)),
      ].join('|');
      const run = await runAgainstProxy(selection, target);
      if (target === 'plain') reach = reachOf(readExchangeLog(path.join(run.outDir, '.run', 'exchanges.jsonl')));
      expect(failedChecks(run.results)).toEqual([]);
      expect(run.results?.checks.length).toBeGreaterThan(0);
      expect(run.code).toBe(0);
    });
  }

  for (const m of mutants) {
    const { mutant, killedBy } = m;
    test(`${mutant.id} is killed by ${killedBy.join(', ')}`, async () => {
      const { run, runWith } = await runJudging(m);
      // Of a batch's failures, those on this mutant's operations.
      const own = new RegExp(m.operations);
      const failed = failedChecks(run.results).filter((f) => own.test(f.slice(f.indexOf(' ') + 1)));
      const killed = killedBy.every((k) => failed.includes(k));
      matrix.push({ mutant: mutant.id, breaks: mutant.breaks, expected: killedBy, failed, killed, runWith });
      expect(failed, run.stderr).toEqual(expect.arrayContaining(killedBy));
      // The exit code follows the verdicts: 1 when any MUST failed (the mutant's or a collateral one), else 0.
      expect(run.code).toBe(exitCodeOf(run.results!));
      if (run.results!.checks.some((c) => killedBy.includes(`${c.id} ${c.operation}`) && c.level === 'MUST'))
        expect(run.code).toBe(1);
    });
  }
});
