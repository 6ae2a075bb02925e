/**
 * The kill matrix: the suite against the real Prefect server behind a fault-injecting proxy. Each mutant must be
 * caught by the checks it names; the unmutated proxy must give no failure outside the baseline.
 *
 * The mutants are in parts, each a test file of its own (killMatrix.*.test.ts), so that the parts run side by
 * side, each on its lane's server: one file's runs, one after another, were the longest file of `npm test`
 * (664 s of a 878 s run). Each part writes its rows to reports/mutants/<part>.json, and reports/mutants.json and
 * reports/mutants.md are made again from every part's file there.
 *
 * Mutants whose runs send nothing to each other's operations share a run (a batch: the proxy holds them all,
 * the run selects their operations and their checks): a run costs seconds before it sends its first request.
 * A kill in a batch counts only when no other mutant of the batch could have caused it (batches.ts: suspects);
 * a mutant under suspicion runs again alone, and is judged by that run.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
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
import type { MutantCase } from './registry.js';
import { CLOUD_KEY, startCloudProxy } from '../support/cloudProxy.js';

type Target = 'plain' | 'cloud';

/** One row of the matrix: a mutant, what must catch it, what did. */
interface MatrixRow {
  mutant: string;
  breaks: string;
  expected: string[];
  failed: string[];
  killed: boolean;
  /** How many mutants shared the run that judged it (1: a run of its own). */
  runWith: number;
}

/** The check ids of `killedBy` entries (`id[variant] METHOD /path`): the checks a mutant's run selects. */
const killingChecks = (killedBy: string[]): string =>
  [...new Set(killedBy.map((k) => checkIdOf(k.slice(0, k.indexOf(' ')))))].join(',');

const reports = path.join(repoRoot, 'reports');
const partsFolder = path.join(reports, 'mutants');

/** reports/mutants.json and mutants.md, from the rows of every part written so far. */
function writeMatrix(part: string, rows: MatrixRow[]): void {
  mkdirSync(partsFolder, { recursive: true });
  writeFileSync(path.join(partsFolder, `${part}.json`), JSON.stringify(rows, null, 2));
  const all = readdirSync(partsFolder)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .flatMap((f) => JSON.parse(readFileSync(path.join(partsFolder, f), 'utf8')) as MatrixRow[]);
  writeFileSync(path.join(reports, 'mutants.json'), JSON.stringify(all, null, 2));
  const lines = ['| mutant | breaks | caught by | killed | mutants in its run |', '|---|---|---|---|---|'];
  for (const row of all)
    lines.push(
      `| ${row.mutant} | ${row.breaks} | ${row.failed.join('<br>') || '—'} | ${row.killed ? 'yes' : '**no**'} | ${row.runWith} |`,
    );
  writeFileSync(path.join(reports, 'mutants.md'), `# Mutant kill matrix\n\n${lines.join('\n')}\n`);
}

/** One part's proxies, its unmutated run's reach, its batches and their runs. */
class MatrixPart {
  readonly rows: MatrixRow[] = [];
  readonly proxies: Partial<Record<Target, RunningProxy>> = {};
  /** The served document's operations; what the unmutated plain run sent for each; the mutants in batches. */
  operations: string[] = [];
  reach: Reach | undefined;
  private batches: MutantBatch[] | undefined;
  /** Each batch's run, started by the first of its mutants' tests; and the mutants its run cannot vouch for. */
  private readonly batchRuns = new Map<MutantBatch, Promise<{ run: CliRun; suspected: Set<string> }>>();

  constructor(readonly mutants: MutantCase[]) {}

  async start(): Promise<void> {
    this.proxies.plain = await startProxy(laneBaseUrl());
    if (this.mutants.some((m) => m.target === 'cloud')) this.proxies.cloud = await startCloudProxy(laneBaseUrl());
    const served = (await (await fetch(`${laneBaseUrl()}/openapi.json`)).json()) as OpenApiDocument;
    this.operations = indexOperations(served).map((op) => op.key);
  }

  /**
   * A run of the operations a mutant touches; for a mutant, only the checks that must catch it: the matrix proves
   * each can fail, and the unmutated runs, with every family, prove that no check cries wolf on the proxy.
   */
  runAgainstProxy(operations: string, target: Target = 'plain', label = sqliteLabel, killedBy?: string[]) {
    return runCli([], {
      ...prefectTargetEnv(this.proxies[target]!.baseUrl),
      CONFORMANCE_OPERATIONS: operations,
      ...(killedBy ? { CONFORMANCE_CHECKS: killingChecks(killedBy) } : {}),
      CONFORMANCE_TARGET_LABEL: label,
      ...(target === 'cloud' ? { CONFORMANCE_API_KEY: CLOUD_KEY } : {}),
    });
  }

  /** The batch's run with all its mutants in the proxy, and which of them it cannot vouch for. */
  private batchRun(batch: MutantBatch) {
    let running = this.batchRuns.get(batch);
    if (!running) {
      running = (async () => {
        const proxy = this.proxies[batch.target]!;
        proxy.setMutants(batch.members.map((m) => m.mutant));
        const run = await this.runAgainstProxy(
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
      this.batchRuns.set(batch, running);
    }
    return running;
  }

  /** The run that judges a mutant: its batch's, or one of its own when the batch cannot vouch for it. */
  async runJudging(m: MutantCase): Promise<{ run: CliRun; runWith: number }> {
    this.batches ??= batchesOf(this.mutants, this.operations, this.reach);
    const batch = this.batches.find((b) => b.members.includes(m))!;
    const { run, suspected } = await this.batchRun(batch);
    if (!suspected.has(m.mutant.id)) return { run, runWith: batch.members.length };
    const proxy = this.proxies[batch.target]!;
    proxy.setMutant(m.mutant);
    const alone = await this.runAgainstProxy(m.operations, batch.target, batch.label, m.killedBy);
    proxy.setMutant(undefined);
    return { run: alone, runWith: 1 };
  }
}

/** The tests of one part of the matrix: its unmutated runs first, then each mutant's. */
export function describeKillMatrix(part: string, mutants: MutantCase[]): void {
  const matrix = new MatrixPart(mutants);
  beforeAll(() => matrix.start());
  afterAll(async () => {
    await Promise.all(Object.values(matrix.proxies).map((p) => p?.close()));
    writeMatrix(part, matrix.rows);
  });

  describe(`kill matrix: ${part}`, () => {
    const targets = (['plain', 'cloud'] as const).filter((t) => mutants.some((m) => (m.target ?? 'plain') === t));
    for (const target of targets) {
      test(`the unmutated ${target} proxy gives no failure outside the baseline`, async () => {
        matrix.proxies[target]!.setMutant(undefined);
        const selection = [
          ...new Set(mutants.filter((m) => (m.target ?? 'plain') === target).map((m) => m.operations)),
        ].join('|');
        const run = await matrix.runAgainstProxy(selection, target);
        if (target === 'plain')
          matrix.reach = reachOf(readExchangeLog(path.join(run.outDir, '.run', 'exchanges.jsonl')));
        expect(failedChecks(run.results)).toEqual([]);
        expect(run.results?.checks.length).toBeGreaterThan(0);
        expect(run.code).toBe(0);
      });
    }

    for (const m of mutants) {
      const { mutant, killedBy } = m;
      test(`${mutant.id} is killed by ${killedBy.join(', ')}`, async () => {
        const { run, runWith } = await matrix.runJudging(m);
        // Of a batch's failures, those on this mutant's operations.
        const own = new RegExp(m.operations);
        const failed = failedChecks(run.results).filter((f) => own.test(f.slice(f.indexOf(' ') + 1)));
        const killed = killedBy.every((k) => failed.includes(k));
        matrix.rows.push({ mutant: mutant.id, breaks: mutant.breaks, expected: killedBy, failed, killed, runWith });
        expect(failed, run.stderr).toEqual(expect.arrayContaining(killedBy));
        // The exit code follows the verdicts: 1 when any MUST failed (the mutant's or a collateral one), else 0.
        expect(run.code).toBe(exitCodeOf(run.results!));
        if (run.results!.checks.some((c) => killedBy.includes(`${c.id} ${c.operation}`) && c.level === 'MUST'))
          expect(run.code).toBe(1);
      });
    }
  });
}
