/**
 * Turn a family of checks into vitest tests: one test per (check, operation, variant), named by the
 * reported id, so that vitest's runner, sharding and reporters serve us. The verdict, with the baseline
 * applied, travels to the reporters in the test's meta.
 */
import { afterAll, assert, test } from 'vitest';
import { reportedId, type Check, type Family } from '../checks/check.js';
import { clauseText } from '../checks/clauses.js';
import { checksOf } from '../checks/registry.js';
import { selectsCase, selectsCheck } from '../config/selection.js';
import { evidenceOf, messageOf, Skip, skip, type Verdict } from '../checks/verdict.js';
import { BlockedByReadOnly, HttpClient, type Exchange } from '../http/client.js';
import type { Operation } from '../openapi/operations.js';
import { applyBaseline, entriesFor } from '../report/baseline.js';
import { junitOutcomeOf } from '../report/junit.js';
import type { CheckResult, RecordedExchange, ResultStatus } from '../report/results.js';
import '../report/taskMeta.js';
import { isMissingPrerequisite } from '../resources/pool.js';
import { labelForAllure } from './allureLabels.js';
import type { Session } from './session.js';

function recorded(ex: Exchange, managedBaseUrl?: string): RecordedExchange {
  return {
    request: { method: ex.method, url: ex.url, headers: ex.requestHeaders, body: ex.requestBody },
    response: {
      status: ex.status,
      headers: ex.responseHeaders,
      body: ex.body.slice(0, 4000),
      error: ex.error,
      truncated: ex.truncated,
    },
    ms: ex.ms,
    curl: HttpClient.curl(ex, managedBaseUrl),
  };
}

/** Reasons a check cannot be judged: a prerequisite it could not make, or a request read-only mode refused. */
const cannotJudge = (e: unknown) => e instanceof Skip || e instanceof BlockedByReadOnly || isMissingPrerequisite(e);

async function judge(session: Session, check: Check, op: Operation, variant: string | undefined): Promise<Verdict> {
  try {
    return await check.run(op, session.checkContext, variant);
  } catch (e) {
    // After the target went down, any error is the outage's: the result becomes `error`, not a crash.
    if (cannotJudge(e) || session.client.down) return skip((e as Error).message);
    throw e;
  }
}

function collectionLabel(session: Session, op: Operation): string {
  return session.model.collectionOf(op)?.path ?? `/${op.path.split('/').filter(Boolean)[0] ?? ''}`;
}

function result(
  session: Session,
  check: Check,
  op: Operation,
  variant: string | undefined,
  verdict: Verdict,
): CheckResult {
  const id = reportedId(check, variant);
  const found = verdict.status === 'failed' ? verdict.failures : [];
  const judged = applyBaseline(verdict.status, found, entriesFor(session.baseline, id, op.key), op.key);
  // A target that stopped answering leaves nothing to judge: the check is an error, not a verdict.
  const down = session.client.down;
  const status: ResultStatus = down ? 'error' : judged.status;
  // The failures no entry names come first: they are what fails the gate.
  const ordered = [...judged.unexcused, ...found.filter((f) => !judged.unexcused.includes(f))];
  const shown: Verdict = verdict.status === 'failed' ? { ...verdict, failures: ordered } : verdict;
  const message =
    status === 'xpass'
      ? `the baselined failure did not show: ${judged.notShown.map((e) => `${e.kind} ${e.key}`).join('; ')}`
      : messageOf(shown);
  // The managed server's port is gone after the run: its curl lines start with "$BASE_URL".
  const managedBaseUrl = session.config.managed ? session.config.baseUrl : undefined;
  const evidence = evidenceOf(shown)
    .slice(0, 3)
    .map((ex) => recorded(ex, managedBaseUrl));
  const failures = ordered.length
    ? ordered.map((f) => ({
        kind: f.kind,
        key: f.key,
        message: f.message,
        data: f.data,
        ...(judged.unexcused.includes(f) ? {} : { baselined: true }),
      }))
    : undefined;
  const entries = judged.excusedBy.length ? judged.excusedBy : judged.notShown;
  return {
    id,
    check: check.id,
    variant,
    family: check.family,
    level: check.level,
    clause: check.clause,
    clauseText: clauseText(check.clause),
    title: check.title,
    operation: op.key,
    collection: collectionLabel(session, op),
    status,
    message: down
      ? `not judged: the target has refused connections since ${down.since} (${down.reason})${message ? `; ${message}` : ''}`
      : message,
    kind: failures?.[0].kind,
    key: failures?.[0].key,
    failures,
    repro: evidence[0]?.curl,
    seed: verdict.status === 'failed' ? verdict.seed : undefined,
    path: verdict.status === 'failed' ? verdict.path : undefined,
    evidence,
    baseline: entries.length
      ? {
          reason: entries[0].reason,
          expires: entries[0].expires,
          excused: judged.excusedBy.map(({ kind, key }) => ({ kind, key })),
          notShown: judged.notShown.map(({ kind, key }) => ({ kind, key })),
        }
      : undefined,
  };
}

export function registerFamily(session: Session, family: Family): void {
  const selection = session.config.selection;
  const checks = checksOf(family).filter((check) => selectsCheck(selection, check));
  const ctx = session.checkContext;
  // Every suite file carries the run's view of operations and target, so that shards merge whole.
  // biome-ignore lint/correctness/noEmptyPattern: vitest hands a hook its context first, as a pattern it can read
  afterAll(({}, suite) => {
    suite.meta.operations = session.operationSummaries();
    suite.meta.runInfo = session.runInfo();
    if (family === 'filters') suite.meta.filterCoverage = session.filterCoverage();
  });
  const cases = checks.flatMap((check) =>
    session.operations
      .filter((op) => selectsCase(selection, check.id, op.key) && check.appliesTo(op, ctx))
      .flatMap((op) =>
        (check.variants ? check.variants(op, ctx) : [undefined]).map((variant) => ({ check, op, variant })),
      ),
  );
  if (cases.length === 0) {
    // vitest calls a file without tests an error; this family simply has nothing to say about these operations.
    test.skip(`${family}: no check applies to the operations of this run`, () => {});
    return;
  }
  for (const { check, op, variant } of cases) {
    test(`${reportedId(check, variant)} ${op.key}`, async ({ task, skip: skipTest }) => {
      const started = performance.now();
      const verdict = await judge(session, check, op, variant);
      const r = { ...result(session, check, op, variant, verdict), ms: Math.round(performance.now() - started) };
      task.meta.conformance = r;
      await labelForAllure(r);
      // The test's outcome is the verdict's JUnit outcome (report/junit.ts), so that Allure counts as junit.xml
      // does: a failure of any level or an xpass fails (an assertion: Allure's "failed"), an xfail is skipped
      // with its reason, a check the target stopped answering for is broken. The gate is the exit code.
      const outcome = junitOutcomeOf(r.status);
      if (outcome === 'skipped')
        skipTest(r.status === 'xfail' ? `XFAIL (baseline: ${r.baseline!.reason}): ${r.message}` : r.message);
      if (outcome === 'error') throw new Error(r.message);
      if (outcome === 'failure')
        assert.fail(
          r.status === 'xpass'
            ? `a baselined failure passed: update the baseline (${r.baseline!.reason}): ${r.message}`
            : `[${check.level}] ${check.title}\n${r.message}\n${r.repro ?? ''}`,
        );
    });
  }
}
