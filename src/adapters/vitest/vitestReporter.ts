/**
 * A vitest reporter that turns the conformance tests' meta into `results.json`. It works the same on a
 * plain run and on `--merge-reports` of shards, because everything it needs travels in task meta.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';
import type { Pace } from '../../config/pacingStatus.js';
import type { CheckResult, OperationSummary, Results, RunInfo } from '../../report/results.js';
import { summarize } from '../../report/results.js';
import { runFiles } from '../../config/runFolder.js';
import type { ReporterOptions, WorkerStart } from '../../config/worker.js';
import './taskMeta.js';

/** The run folder's `suites-ended`: what cleanup's client starts from (supervisor/cleanupThread.ts). */
export interface SuitesEnded {
  /** Whether the suites' writes took turns (http/pacing/serverLoad.ts). */
  writesTookTurns: boolean;
  /** The rate limits the suites were paced by, as they left them (http/pacing/rateLimits.ts). */
  paces: Pace[];
}

/**
 * The files of one run report the same session's counts, each as far as it had got: the largest is the
 * run's. The shards of a run (merged blob reports) are separate sessions, told apart by their run tags,
 * whose requests add up.
 */
function mergeOperations(lists: Array<{ session: string; operations: OperationSummary[] }>): OperationSummary[] {
  const byKey = new Map<string, OperationSummary & { bySession: Map<string, number> }>();
  for (const { session, operations } of lists)
    for (const op of operations) {
      const key = `${op.method} ${op.path}`;
      const seen = byKey.get(key);
      if (!seen) byKey.set(key, { ...op, bySession: new Map([[session, op.requests]]) });
      else {
        seen.bySession.set(session, Math.max(seen.bySession.get(session) ?? 0, op.requests));
        Object.assign(seen, {
          exercised: seen.exercised || op.exercised,
          reached2xx: seen.reached2xx || op.reached2xx,
          note: seen.reached2xx || op.reached2xx ? undefined : (seen.note ?? op.note),
        });
      }
    }
  return [...byKey.values()].map(({ bySession, ...op }) => ({
    ...op,
    requests: [...bySession.values()].reduce((a, b) => a + b, 0),
  }));
}

export default class ResultsReporter implements Reporter {
  private started = Date.now();
  private readonly config?: WorkerStart;

  constructor({ start }: ReporterOptions = {}) {
    this.config = start;
  }

  onTestRunStart(): void {
    this.started = Date.now();
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<{ message?: string }>): void {
    const checks: CheckResult[] = [];
    const operationLists: Array<{ session: string; operations: OperationSummary[] }> = [];
    let runInfo: RunInfo | undefined;
    const errors: string[] = unhandledErrors.map((e) => `unhandled: ${e.message ?? String(e)}`);
    for (const module of testModules) {
      for (const err of module.errors()) errors.push(`${path.basename(module.moduleId)}: ${err.message}`);
      const meta = module.meta();
      if (meta.operations) operationLists.push({ session: meta.runInfo?.runTag ?? '', operations: meta.operations });
      // Each file reports what the run had sent by its end: the fullest view has the whole request sequence.
      if (meta.runInfo && (meta.runInfo.requestSequence?.requests ?? 0) >= (runInfo?.requestSequence?.requests ?? -1))
        runInfo = meta.runInfo;
      for (const test of module.children.allTests()) {
        const result = test.meta().conformance;
        if (result) checks.push(result);
        else if (test.result().state === 'failed')
          errors.push(`${test.fullName}: ${test.result().errors?.[0]?.message ?? 'failed'}`);
      }
    }
    checks.sort(
      (a, b) => a.family.localeCompare(b.family) || a.id.localeCompare(b.id) || a.operation.localeCompare(b.operation),
    );
    const filterCoverage = new Map<string, { triple: string; checked: number; skipped?: string }>();
    for (const module of testModules)
      for (const row of module.meta().filterCoverage ?? []) {
        const seen = filterCoverage.get(row.triple);
        filterCoverage.set(row.triple, {
          triple: row.triple,
          checked: (seen?.checked ?? 0) + row.checked,
          skipped: (seen?.checked ?? 0) + row.checked ? undefined : row.skipped,
        });
      }
    const coverage = {
      filters: [...filterCoverage.values()].sort((a, b) => a.triple.localeCompare(b.triple)),
      sorts: checks
        .filter((c) => c.family === 'sorting')
        .map((c) => ({
          value: c.variant ?? c.id.replace(/^sorting\./, ''),
          operation: c.operation,
          status: c.status,
          message: c.message,
        })),
    };
    const operations = mergeOperations(operationLists);
    const requests = operations.reduce((n, o) => n + o.requests, 0);
    const config = this.config;
    const results: Results = {
      ...(runInfo ?? {
        tool: { name: 'unknown', version: '' },
        target: { baseUrl: config?.baseUrl ?? '', openapi: '', apiVersion: '', profile: '' },
        seed: config?.seed ?? 0,
        runTag: config?.runTag ?? '',
        runs: 0,
        readOnly: false,
      }),
      startedAt: config?.startedAt ?? new Date(this.started).toISOString(),
      durationMs: Date.now() - this.started,
      operations,
      checks,
      summary: summarize(checks, requests),
      coverage,
      errors: errors.length ? errors : undefined,
    };
    const out = config?.outDir ?? 'reports';
    mkdirSync(out, { recursive: true });
    writeFileSync(path.join(out, 'results.json'), JSON.stringify(results, null, 2));
    // What cleanup's client starts from (supervisor/cleanupThread.ts): whether the suites' writes took turns,
    // and the rate limits they were paced by.
    if (config?.runDir)
      writeFileSync(
        runFiles(config.runDir).suitesEnded,
        JSON.stringify({
          writesTookTurns: results.timing?.writesTookTurns ?? false,
          paces: results.timing?.pacing?.paces ?? [],
        } satisfies SuitesEnded),
      );
  }
}
