/**
 * Turn a family of checks into vitest tests: one test per (check, operation), named by the check id, so
 * that vitest's runner, sharding and reporters serve us. The verdict, with the baseline applied, travels
 * to the reporter in the test's meta.
 */
import { afterAll, test } from 'vitest';
import { clauseText } from '../checks/clauses.js';
import type { Check, ResultStatus, Verdict } from '../checks/types.js';
import { HttpClient, type Exchange } from '../http/client.js';
import { applyBaseline, findEntry } from '../report/baseline.js';
import type { CheckResult, OperationSummary, RecordedExchange, RunInfo } from '../report/results.js';
import type { Operation } from '../spec/operations.js';
import { labelForAllure } from './allureLabels.js';
import type { Session } from './session.js';

declare module 'vitest' {
  interface TaskMeta {
    conformance?: CheckResult;
    /** Set on a suite file: its view of the run's operations and target. */
    operations?: OperationSummary[];
    runInfo?: RunInfo;
    /** Set by the filters suite: every (collection.field.operator) of the filter schemas, checked or why not. */
    filterCoverage?: Array<{ triple: string; checked: number; skipped?: string }>;
  }
}

function recorded(ex: Exchange): RecordedExchange {
  return {
    request: { method: ex.method, url: ex.url, headers: ex.requestHeaders, body: ex.requestBody },
    response: { status: ex.status, headers: ex.responseHeaders, body: ex.body.slice(0, 4000), error: ex.error, truncated: ex.truncated },
    ms: ex.ms,
    curl: HttpClient.curl(ex),
  };
}

export function collectionLabel(session: Session, op: Operation): string {
  return session.model.collectionOf(op)?.path ?? `/${op.path.split('/').filter(Boolean)[0] ?? ''}`;
}

export function registerChecks<Ctx>(session: Session, checks: Array<Check<Ctx>>, ctx: Ctx, operations: Operation[] = session.operations): void {
  // Every suite file carries the run's view of operations and target, so that shards merge whole.
  afterAll(({}, suite) => {
    suite.meta.operations = session.operationSummaries();
    suite.meta.runInfo = session.runInfo();
  });
  const family = checks[0]?.family ?? 'checks';
  if (!checks.some((check) => operations.some((op) => check.appliesTo(op, ctx)))) {
    // vitest calls a file without tests an error; this family simply has nothing to say about these operations.
    test.skip(`${family}: no check applies to the operations of this run`, () => {});
    return;
  }
  for (const check of checks) {
    for (const op of operations) {
      if (!check.appliesTo(op, ctx)) continue;
      test(`${check.id} ${op.key}`, async ({ task, skip, annotate }) => {
        let verdict: Verdict;
        try {
          verdict = await check.run(op, ctx);
        } catch (e) {
          if (!session.client.down) throw e;
          verdict = { status: 'failed', message: (e as Error).message };
        }
        const entry = findEntry(session.baseline, check.id, op.key);
        // A target that stopped answering leaves nothing to judge: the check is an error, not a verdict.
        const down = session.client.down;
        const status: ResultStatus = down ? 'error' : applyBaseline(verdict.status, entry);
        if (down) verdict = { ...verdict, message: `not judged: the target has refused connections since ${down.since} (${down.reason})${verdict.message ? `; ${verdict.message}` : ''}` };
        const evidence = (verdict.evidence ?? []).map(recorded);
        task.meta.conformance = {
          id: check.id,
          family: check.family,
          level: check.level,
          clause: check.clause,
          clauseText: clauseText(check.clause),
          title: check.title,
          operation: op.key,
          collection: collectionLabel(session, op),
          status,
          message: verdict.message,
          repro: evidence[0]?.curl,
          seed: verdict.seed,
          path: verdict.path,
          evidence,
          baseline: entry ? { reason: entry.reason, expires: entry.expires } : undefined,
        };
        await labelForAllure(task.meta.conformance);
        if (status === 'skipped') skip(verdict.message);
        if (status === 'xfail') await annotate(`expected failure (baseline): ${entry!.reason} — ${verdict.message}`, 'xfail');
        if (status === 'error') throw new Error(verdict.message);
        if (status === 'xpass') throw new Error(`a baselined failure passed: update the baseline (${entry!.reason})`);
        if (status === 'failed') {
          const message = `${check.level} ${check.title}\n${verdict.message}\n${evidence[0]?.curl ?? ''}`;
          // Only a MUST fails the run; a SHOULD or MAY failure is reported, and the test notes it.
          if (check.level === 'MUST') throw new Error(message);
          await annotate(`${check.level} not met: ${verdict.message}`, 'warning');
        }
      });
    }
  }
}
