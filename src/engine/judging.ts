/**
 * The engine's judging: which cases a family has, when each is judged (through the run's scheduler, in a
 * time-boxed run's plan, or ahead of its family's turn), and a verdict made a result with the baseline
 * applied. It knows nothing of vitest: the vitest adapter (adapters/vitest/register.ts) registers a test per
 * case that awaits its verdict here.
 */
import { writeFileSync } from 'node:fs';
import { reportedId, type Check, type Family } from '../checks/core/check.js';
import { clauseText } from '../checks/core/clauses.js';
import { CORE } from '../checks/core/queryContext.js';
import { evidenceOf, messageOf, Skip, skip, type Verdict } from '../checks/core/verdict.js';
import { selectsCase, selectsCheck } from '../config/selection.js';
import { runFiles } from '../config/runFolder.js';
import {
  BlockedByReadOnly,
  HttpClient,
  NOT_RUN,
  SendingStopped,
  sendingFor,
  targetDownLine,
  type Exchange,
} from '../http/client.js';
import { routeFamily } from '../http/pacing/rateLimits.js';
import type { Operation } from '../openapi/operations.js';
import { applyBaseline, type BaselineJudgement, entriesFor } from '../baseline/entries.js';
import type { CheckResult, RecordedExchange, ResultStatus } from '../report/results.js';
import { isMissingPrerequisite } from '../resources/pool.js';
import { budgetOrder, byDetection, expectedExchanges, familyReadsExercise, familySendsNothing } from './detection.js';
import { inTurnByLane } from './scheduler.js';
import type { BudgetPlan, Case, Judged } from './judgingState.js';
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

async function judge(session: Session, check: Check, op: Operation, variant: string | undefined): Promise<Judged> {
  const started = performance.now();
  try {
    const verdict = await check.run(op, session.checkContext, variant);
    // A check over an operation whose exercise the time box cut passes the reason on as its skip.
    if (verdict.status === 'skipped' && verdict.message.startsWith(NOT_RUN)) return { notRun: verdict.message };
    return { verdict, ms: Math.round(performance.now() - started) };
  } catch (e) {
    if (e instanceof SendingStopped) return { notRun: e.message };
    // After the target went down, any error is the outage's: the result becomes `error`, not a crash.
    if (cannotJudge(e) || session.client.down)
      return { verdict: skip((e as Error).message), ms: Math.round(performance.now() - started) };
    throw e;
  }
}

/** A check's error belongs to its test, which may await it long after (a later family's): never unhandled. */
function awaitedLater<T>(judged: Promise<T>): Promise<T> {
  judged.catch(() => undefined);
  return judged;
}

/**
 * Judge a case, its requests counted by check (the exchange log's `by`; the report groups them by family), and
 * held to reads where the check declares it sends only reads.
 */
const judging = (session: Session, c: Case) => () =>
  sendingFor(c.check.id, () => judge(session, c.check, c.op, c.variant), {
    readsOnly: c.check.isolation === 'reads',
    operation: c.op.key,
  });

/** The lane of a case that runs alone (checks/core/check.ts: lane). */
const laneOf = (session: Session, c: Case) =>
  c.check.isolation === 'alone' ? c.check.lane?.(c.op, session.checkContext) : undefined;

/** A case's job through the scheduler: its verdict, or why it was not run (the time box refused it). */
function scheduled(session: Session, c: Case, priority?: number): Promise<Judged> {
  return awaitedLater(
    session.scheduler
      .run(c.check.isolation ?? 'shared', judging(session, c), priority, laneOf(session, c))
      .catch((e: unknown) => {
        if (e instanceof SendingStopped) return { notRun: e.message };
        throw e;
      }),
  );
}

/**
 * Every case of the family, started now through the run's scheduler (a bounded number at a time, each with
 * its check's isolation), so that the server has work while the tests wait for their verdicts in order.
 */
function scheduleJudgements(session: Session, cases: Case[], priority?: number): Map<Case, Promise<Judged>> {
  if (session.timeBox.budgeted) {
    const ordered = byDetection(cases);
    return new Map(ordered.map((c) => [c, scheduled(session, c, priority)]));
  }
  schedulePreparations(session, cases, priority);
  const judged = new Map(
    inTurnByLane(cases, (c) => laneOf(session, c)).map((c) => [c, scheduled(session, c, priority)]),
  );
  // The family's tests keep the cases' order, whatever the order they were scheduled in.
  return new Map(cases.map((c) => [c, judged.get(c)!]));
}

/**
 * The preparations of a family's isolated checks (checks/core/check.ts: `prepare`), queued before every judgement
 * of the family: they run side by side, beside the judgements before them, and the isolated judgements find
 * their work done rather than doing it with nothing beside them (a DELETE scenario's creates are round trips
 * of their own, which a far target makes long). Their errors are met by the judgements, which ask for the
 * same work. Not in a time-boxed run, whose plan spends the budget case by case.
 */
function schedulePreparations(session: Session, cases: Case[], priority?: number): void {
  for (const c of cases) {
    const prepare = c.check.prepare;
    if (!prepare) continue;
    session.scheduler
      .run(
        'shared',
        () => sendingFor(c.check.id, () => prepare(c.op, session.checkContext), { operation: c.op.key }),
        priority,
      )
      .catch(() => undefined);
  }
}

/**
 * A case that reads its operation's exercise, in a planned run: through the scheduler while the budget
 * lasts; once it is spent, judged from what the exercise collected (the budget stops sending, not judging:
 * a check that would send is refused by the client and reported as not run).
 */
function fromExercise(session: Session, c: Case, priority: number | undefined): Promise<Judged> {
  const now = judging(session, c);
  if (session.timeBox.spent) return awaitedLater(now());
  return awaitedLater(
    session.scheduler
      .run(c.check.isolation ?? 'shared', now, priority, laneOf(session, c))
      .catch((e: unknown) => (e instanceof SendingStopped ? now() : Promise.reject(e))),
  );
}

function budgetPlan(session: Session): BudgetPlan {
  const made = session.judging.plan;
  if (made) return made;
  const cases = session.checks
    .families()
    .flatMap((family) => casesOf(session, family, !familyReadsExercise(family, session.checks)));
  const isCore = (c: Case) => CORE.includes(session.model.collectionOf(c.op)?.name ?? '');
  const judged = new Map<Case, Promise<Judged>>();
  const place = new Map<string, number>();
  const exercises = new Map<Family, Array<Promise<void>>>();
  for (const [priority, c] of budgetOrder(cases, isCore).entries()) {
    if (!familyReadsExercise(c.check.family, session.checks)) {
      judged.set(c, scheduled(session, c, priority));
      continue;
    }
    place.set(`${c.check.id} ${c.op.key}`, priority);
    exercises.set(c.check.family, [...(exercises.get(c.check.family) ?? []), session.exercise(c.op, priority)]);
  }
  const plan: BudgetPlan = {
    judged: new Map(
      session.checks
        .families()
        .map((family) => [
          family,
          new Map(cases.filter((c) => judged.has(c) && c.check.family === family).map((c) => [c, judged.get(c)!])),
        ]),
    ),
    place,
    exercised: new Map([...exercises].map(([family, all]) => [family, Promise.all(all)])),
  };
  session.judging.plan = plan;
  return plan;
}

function collectionLabel(session: Session, op: Operation): string {
  return session.model.collectionOf(op)?.path ?? `/${op.path.split('/').filter(Boolean)[0] ?? ''}`;
}

export function result(
  session: Session,
  check: Check,
  op: Operation,
  variant: string | undefined,
  verdict: Verdict,
): CheckResult {
  const id = reportedId(check, variant);
  const found = verdict.status === 'failed' ? verdict.failures : [];
  const unanswered = verdict.status === 'skipped' ? undefined : verdict;
  const judged = applyBaseline(verdict.status, found, entriesFor(session.baseline, id, op.key), op.key, unanswered);
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
        ...(f.replays ? { replays: f.replays } : {}),
        ...(judged.unexcused.includes(f) ? {} : { baselined: true }),
      }))
    : undefined;
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
    message: down ? `not judged: ${targetDownLine(down)}${message ? `; ${message}` : ''}` : message,
    kind: failures?.[0].kind,
    key: failures?.[0].key,
    failures,
    repro: evidence[0]?.curl,
    seed: verdict.status === 'failed' ? verdict.seed : undefined,
    path: verdict.status === 'failed' ? verdict.path : undefined,
    replaysJudged: verdict.status === 'failed' ? verdict.replaysJudged : undefined,
    evidence,
    baseline: baselineNote(judged),
  };
}

/** What the baseline said of a result: the entries that excused it, or that expected a failure it did not show. */
function baselineNote<F>(judged: BaselineJudgement<F>): CheckResult['baseline'] {
  const entries = judged.excusedBy.length
    ? judged.excusedBy
    : judged.notShown.length
      ? judged.notShown
      : judged.unconfirmed;
  if (!entries.length) return undefined;
  const conditional = judged.excusedBy.find((e) => e.conditional)?.conditional;
  return {
    reason: entries[0].reason,
    expires: entries[0].expires,
    excused: judged.excusedBy.map(({ kind, key }) => ({ kind, key })),
    notShown: judged.notShown.map(({ kind, key }) => ({ kind, key })),
    ...(conditional ? { conditional } : {}),
    ...(judged.unconfirmed.length
      ? {
          unconfirmed: judged.unconfirmed.map(({ kind, key, conditional }) => ({
            kind,
            key,
            conditional: conditional!,
          })),
        }
      : {}),
  };
}

/**
 * The family's cases: (check, operation, variant) for every selected check that applies (of those `only`
 * keeps), in the registry's order. Unless `known`: every selected (check, operation), before the exercise
 * that tells which apply.
 */
function casesOf(session: Session, family: Family, known = true, only: (check: Check) => boolean = () => true): Case[] {
  const selection = session.config.selection;
  const ctx = session.checkContext;
  return session.checks
    .checksOf(family)
    .filter((check) => selectsCheck(selection, check) && only(check))
    .flatMap((check) =>
      session.operations
        .filter((op) => selectsCase(selection, check.id, op.key) && (!known || check.appliesTo(op, ctx)))
        .flatMap((op) =>
          (known && check.variants ? check.variants(op, ctx) : [undefined]).map((variant) => ({ check, op, variant })),
        ),
    );
}

/**
 * The exchanges the whole run is expected to send, written once for the progress line: the cases of every
 * selected check that sends (a check that reads nothing but its own answers tells whether it applies before
 * the exercise; one that reads the exercise sends nothing more, one that reads the document nothing at all),
 * and the exercise of every operation where a selected check reads it (exerciseRead).
 */
export function expectOnce(session: Session): void {
  if (session.judging.expecting || session.config.shard) return;
  session.judging.expecting = true;
  const exercised = exerciseRead(session) ? session.operations.length : 0;
  const sending = session.checks
    .families()
    .flatMap((family) => casesOf(session, family, true, (c) => c.reads === undefined));
  writeFileSync(runFiles(session.config.runDir).expectedExchanges, String(expectedExchanges(sending, exercised)));
}

/** A budgeted run plans every family at once, unless sharded: a shard runs only some families' files. */
const plansAcrossFamilies = (session: Session) => session.timeBox.budgeted && !session.config.shard;

/**
 * In a run without a budget, unsharded, a family's file schedules the next family's cases too, after its
 * own (the scheduler starts them in the same order as before): they go to the target while vitest reports
 * this family's verdicts, rather than after it, when the target would wait while vitest reports
 * a large family. Only the next one, so that the verdicts held before their file comes stay few. Not after a
 * family that sends nothing (spec): contract's cases are known only once the operations are exercised.
 */
function scheduleNextFamily(session: Session, family: Family): void {
  if (session.timeBox.budgeted || session.config.shard || familySendsNothing(family, session.checks)) return;
  const order = session.checks.families();
  const next = order[order.indexOf(family) + 1];
  if (!next) return;
  const { ahead } = session.judging.families;
  if (!ahead.has(next))
    ahead.set(
      next,
      besidePulled(session, next, (cases) => scheduleJudgements(session, cases)),
    );
}

/**
 * A family's judgements: those of its checks pulled forward, as they were scheduled then, and `schedule`'s of
 * its other checks' cases, in the family's order of checks (the order of its tests).
 */
function besidePulled(
  session: Session,
  family: Family,
  schedule: (cases: Case[]) => Map<Case, Promise<Judged>>,
): Map<Case, Promise<Judged>> {
  const pulled = session.judging.families.pulled.get(family);
  if (!pulled) return schedule(casesOf(session, family));
  const pulledChecks = new Set([...pulled.keys()].map((c) => c.check));
  const rest = schedule(casesOf(session, family, true, (check) => !pulledChecks.has(check)));
  const order = session.checks.checksOf(family);
  const place = (c: Case) => order.indexOf(c.check);
  return new Map([...pulled, ...rest].sort(([a], [b]) => place(a) - place(b)));
}

/**
 * The cases of a family's file, and how each gets its verdict: planned (a time-boxed run's plan, or scheduled
 * ahead with the family before), scheduled now, or, for checks that read the document alone, judged when
 * asked (`verdictOf` then judges). The next family's cases are scheduled behind these.
 */
export function familyCases(
  session: Session,
  family: Family,
): { cases: Case[]; verdictOf: (c: Case) => Promise<Judged> } {
  const state = session.judging.families;
  state.registered.add(family);
  const plan = plansAcrossFamilies(session) ? budgetPlan(session) : undefined;
  const planned =
    plan && !familyReadsExercise(family, session.checks) ? plan.judged.get(family)! : state.ahead.get(family);
  // Checks that read the document alone send nothing (spec's): judged in their tests, not through the
  // scheduler, where their hundreds of judgements would queue before the exercise started beside them (or after it).
  const inTheirTests = !planned && !plan && familySendsNothing(family, session.checks);
  const queued =
    planned ??
    (plan || inTheirTests ? undefined : besidePulled(session, family, (rest) => scheduleJudgements(session, rest)));
  const cases = queued ? [...queued.keys()] : casesOf(session, family);
  const judged =
    queued ??
    (plan
      ? new Map(cases.map((c) => [c, fromExercise(session, c, plan.place.get(`${c.check.id} ${c.op.key}`))]))
      : undefined);
  if (cases.length > 0) scheduleNextFamily(session, family);
  return { cases, verdictOf: (c) => (judged ? judged.get(c)! : judging(session, c)()) };
}

/**
 * What a family's file waits for before its cases are known: the exercise of the operations, by every family
 * but those that send nothing (which read the document alone: unbudgeted and unsharded, the exercise starts
 * beside their tests), as a run without a budget always did. A budgeted run plans every family at once and
 * exercises each operation just before the first case that reads it; sharded, it waits for the exercise
 * only in the families that read it (contract, errors), which it judges last, so that the families that
 * catch the most per second are not queued behind every operation's requests.
 */
export async function readyForFamily(session: Session, family: Family): Promise<void> {
  expectOnce(session);
  session.client.onLimited ??= (routeFamily) => pullForward(session, routeFamily);
  if (plansAcrossFamilies(session)) await budgetPlan(session).exercised.get(family);
  else if (
    exerciseRead(session) &&
    (session.timeBox.budgeted
      ? familyReadsExercise(family, session.checks)
      : !familySendsNothing(family, session.checks))
  )
    await session.exerciseAll();
}

/**
 * Whether a case the run selected reads the exercise (Check.reads): a run of checks that send their own requests
 * (a query family's, a method's) and of none that read it exercises no operation. A mutant's run of the kill
 * matrix selects only the checks that must catch it: for a filter's mutant the exercise was two thirds of the
 * run's requests, and read by no case.
 */
export function exerciseRead(session: Session): boolean {
  session.judging.exerciseRead ??= session.checks
    .families()
    .some((family) => casesOf(session, family, false).some((c) => c.check.reads === 'exercise'));
  return session.judging.exerciseRead;
}

/**
 * After a family that sends nothing has its tests: the operations are exercised while those tests judge the
 * document, rather than after them, when the target would wait. Not budgeted (the plan orders the exercise)
 * nor sharded (the shard may hold no file that reads it). A failure of the exercise is met where contract
 * awaits it.
 */
export function exerciseBesideFamily(session: Session, family: Family): void {
  if (
    familySendsNothing(family, session.checks) &&
    !session.timeBox.budgeted &&
    !session.config.shard &&
    exerciseRead(session)
  )
    session.exerciseAll().catch(() => {});
}

/**
 * Jobs pulled forward go before those queued already (lower first: engine/scheduler.ts), the exercise's among
 * them: it is the limited collections' budget they spend, which the exercise leaves half unspent.
 */
const PULLED_FORWARD = -1;

/**
 * A target that limits the rate of a route family (429) makes the run as long as that family's requests take
 * at its rate, unless they are spread over the whole run: the families judged late (filters, sorting,
 * pagination, aggregates) would otherwise send most of them at once, at the end, while the requests of the
 * families before them (the exercise, methods) spend the limit's budget only in part. So, on the first 429 of
 * a route family, the later families' checks with cases on it are scheduled now, ahead of the jobs queued, to
 * be judged beside the rest as the limit allows. Only checks that may run beside anything and read nothing
 * but their own answers (isolation none or `reads`; no `reads` declared): their verdicts do not depend on
 * what runs beside them. The query families' checks send only reads: their requests let the others' go
 * first in the limit's line, and they go on beside `methods`' quiet and alone checks, so that the exercise
 * ends when its own requests are done and the checks after it start then, not once every pulled-forward read
 * has had its turn. A family's other checks keep their turn: `methods`' shared checks go forward, and its
 * quiet reads and DELETE scenarios stay after the exercise, where they took the target alone while the
 * exercise's last requests waited for the limit (the server idle for seconds behind it). Not in a time-boxed
 * run (its plan orders everything) nor a shard (the shard may not hold their files).
 */
function pullForward(session: Session, route: string): void {
  if (session.timeBox.budgeted || session.config.shard) return;
  const { ahead, pulled, registered, limitedRoutes } = session.judging.families;
  if (limitedRoutes.has(route)) return;
  limitedRoutes.add(route);
  const besideAnything = (c: Check) => (c.isolation === undefined || c.isolation === 'reads') && c.reads === undefined;
  for (const family of session.checks.families()) {
    if (ahead.has(family) || registered.has(family) || pulled.has(family)) continue;
    const cases = casesOf(session, family, true, besideAnything);
    if (cases.some((c) => routeFamily(c.op.path) === route))
      pulled.set(family, scheduleJudgements(session, cases, PULLED_FORWARD));
  }
}
