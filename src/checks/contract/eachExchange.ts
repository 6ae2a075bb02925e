/**
 * How a `contract` check judges: one judge over every exchange of the kinds it looks at (eachExchange); the
 * check holds for an operation when every one passes, and each distinct (kind, key) of failure is reported
 * once. A server error's key names the class of input that met it, and a generated body's fields its cause lies in.
 */
import { exercisedWith } from '../core/exercised.js';
import type { NegativeKind } from '../../cases/negative.js';
import type { Operation } from '../../openapi/operations.js';
import { is2xx } from '../../openapi/request.js';
import { type CheckContext, type Exchange, type ExchangeKind, type Sent, timedOut } from '../core/context.js';
import { failAll, pass, skip, type Failure, type Verdict } from '../core/verdict.js';

/** What is wrong with one exchange, or undefined. */
export type ExchangeJudge = (op: Operation, sent: Sent, ctx: Pick<CheckContext, 'validate'>) => Failure | undefined;

export const ofKinds =
  (...k: ExchangeKind[]) =>
  (s: Sent) =>
    k.includes(s.kind);
export const negative = (kind: NegativeKind) => (s: Sent) => s.kind === 'negative' && s.negative === kind;
/**
 * Every exchange of the operation's own requests: a read back of what it made (`read-back`) is a request of
 * another operation's, held to that one's document by contract.reads-back alone.
 */
export const every = (s: Sent) => s.kind !== 'read-back';

/**
 * The class of input an exchange sent, as a failure key: `recipe`, `generated`, `negative:wrong-type`, `unknown`,
 * `unknown-reference`, `server-made`, `at-once`, `repeated-amount`, and an extreme value's label (`past-64-bits`). An edge is a generated valid
 * body whose value was chosen rather than drawn: the same class, so that a cause an edge meets and a random body
 * meets is one key. An extreme value is one no generator draws, each label a class of its own.
 */
export const inputClass = (s: Sent): string => {
  if (s.kind === 'negative') return `negative:${s.negative}`;
  if (s.kind === 'edge') return 'generated';
  if (s.kind === 'extreme') return s.edge ?? 'extreme';
  return s.kind;
};

/** The classes of bodies whose server errors are traced to their fields. */
const tracedToFields = (s: Sent) =>
  ['generated', 'edge', 'extreme', 'unknown-reference', 'at-once', 'repeated-amount'].includes(s.kind);

/**
 * The cause of a server error as a failure key: the input class and, for a generated or extreme body, the fields
 * the cause lies in (`500 generated {work_pool_name}`), so that a known crash excuses only itself. A generated
 * body whose cause lies in none of its fields (`500 generated {}`: it shrank to the valid request's own body,
 * which the server took before) failed for the state earlier requests left, not for itself. A body never
 * traced to its fields keeps the bare class.
 */
export const causeOf = (s: Sent): string => {
  // An invalid edge (a value past a bound, a null the field does not take) names its edge and its fields.
  if (s.kind === 'negative' && s.edge && s.fields) return `${inputClass(s)} ${s.edge} {${s.fields.join(',')}}`;
  return tracedToFields(s) && s.fields ? `${inputClass(s)} {${s.fields.join(',')}}` : inputClass(s);
};

/** The server said 503 to this request, then dropped the connection on a retry: unavailable, not broken. */
export const unavailableThenDropped = (ex: Exchange) => ex.status === 0 && (ex.earlier ?? []).includes(503);
/** Still 503 through the client's retries, or 503s and then a dropped connection: the server stayed busy. */
export const stayedUnavailable = (ex: Exchange): boolean => ex.status === 503 || unavailableThenDropped(ex);
/** An answer that may be load: 503 through the retries, or none in time. The exercise asks beside the valid request. */
export const lookedBusy = (ex: Exchange): boolean => stayedUnavailable(ex) || timedOut(ex);
/**
 * The server stayed busy for this request: 503 through the retries, or no answer in time where the operation's
 * valid request beside it got none either (Sent.busyBeside). Only the checks of availability judge it.
 */
export const stayedBusy = (s: Sent): boolean =>
  stayedUnavailable(s.exchange) || (s.busyBeside === true && timedOut(s.exchange));

interface JudgeOptions {
  /** Which exchanges the check looks at. */
  looksAt: (sent: Sent) => boolean;
  /** Judge exchanges the server stayed unavailable for too (only the checks about availability do). */
  judgesUnavailable?: boolean;
  /** The check asks for 2xx, which the profile says this operation cannot reach on this target. */
  asks2xx?: boolean;
  /** The check's id, where the exercise may withhold what would show its known deviation (OperationRun.withheld). */
  withheldAs?: string;
  /**
   * The requests whose failures the check's keys name, where they are not those it looks at, and the cause
   * each would be keyed by: a read back is keyed by the extreme value that made what it reads.
   */
  shownBy?: { looksAt: (sent: Sent) => boolean; cause: (sent: Sent) => string };
}

/**
 * What showed nothing either way: of `sent`, the values of `of` (a replay's id, a cause) each of whose exchanges
 * the server stayed unavailable for and the judge did not fail (a 503 is what contract.available judges, and
 * what some entries name). The baseline entry such a value would have shown is not judged (load).
 */
function unanswered(sent: Sent[], failed: Sent[], of: (s: Sent) => string | undefined): string[] {
  const answered = new Set(sent.filter((s) => !stayedBusy(s) || failed.includes(s)).map(of));
  const values = sent.map(of).filter((v): v is string => v !== undefined && !answered.has(v));
  return [...new Set(values)];
}

/**
 * The rule of a contract check: its judge over every exchange of the kinds it looks at. It applies to an
 * operation the run sent such exchanges for (an operation without a body has no invalid-body case), or
 * could not exercise (then it is skipped, with the reason).
 */
export function eachExchange(
  judge: ExchangeJudge,
  { looksAt, judgesUnavailable = false, asks2xx = false, withheldAs, shownBy }: JudgeOptions,
) {
  const withheldOf = (op: Operation, ctx: CheckContext) =>
    withheldAs ? ctx.exchangesOf(op).withheld?.find((w) => w.check === withheldAs) : undefined;
  const exercised = exercisedWith(looksAt);
  const appliesTo = (op: Operation, ctx: CheckContext): boolean =>
    exercised(op, ctx) || withheldOf(op, ctx) !== undefined;
  const judgeOperation = (op: Operation, ctx: CheckContext): Verdict => {
    const run = ctx.exchangesOf(op);
    if (run.skipped) return skip(run.skipped);
    // What would show the known deviation was not sent: the rest passing says nothing of it.
    const withheld = withheldOf(op, ctx);
    if (withheld) return skip(withheld.reason);
    const ofThisKind = run.sent.filter(looksAt);
    if (ofThisKind.length === 0) return skip('no exchange of this kind for the operation');
    // A request the server stayed busy for (503 through the retries, or no answer while the valid request beside it
    // got none either) says nothing about statuses or schemas: contract.available reports it.
    const relevant = judgesUnavailable ? ofThisKind : ofThisKind.filter((s) => !stayedBusy(s));
    if (relevant.length === 0)
      return skip(
        `the server stayed busy (503, or no answer beside the valid request's) for all ${ofThisKind.length} exchange(s) of this kind; contract.available reports it`,
      );
    if (asks2xx && run.unreachable)
      return relevant.every((s) => is2xx(s.exchange)) ? pass() : skip(`cannot reach 2xx here: ${run.unreachable}`);
    const found: Array<{ sent: Sent; failure: Failure }> = [];
    for (const sent of relevant) {
      const f = judge(op, sent, ctx);
      if (f) found.push({ sent, failure: f });
    }
    // A replay or a cause the server stayed busy for showed nothing either way: the entry it would show is not
    // judged (load).
    const failed = found.map((f) => f.sent);
    const replaysUnanswered = unanswered(ofThisKind, failed, (s) => s.replay);
    const causesUnanswered = shownBy
      ? unanswered(run.sent.filter(shownBy.looksAt), [], shownBy.cause)
      : unanswered(ofThisKind, failed, causeOf);
    // An edge withheld from a server that is not the run's own showed nothing of any field either.
    const causesWithheld = [...new Set((run.withheld ?? []).flatMap((w) => (w.edge ? [w.edge] : [])))];
    const busy = {
      ...(replaysUnanswered.length ? { replaysUnanswered } : {}),
      ...(causesUnanswered.length ? { causesUnanswered } : {}),
      ...(causesWithheld.length ? { causesWithheld } : {}),
    };
    if (found.length === 0) return { ...pass(`${relevant.length} exchange(s) checked`), ...busy };
    // The shrunk counterexample is the last generated failure: show it first. Each (kind, key) once, with its first exchanges.
    const ordered = [found[found.length - 1], ...found.slice(0, -1)];
    const distinct = new Map<string, Failure>();
    for (const { sent, failure: f } of ordered) {
      const seen = distinct.get(`${f.kind} ${f.key}`);
      if (!seen) distinct.set(`${f.kind} ${f.key}`, f);
      else if (seen.evidence.length < 2) seen.evidence.push(...f.evidence.slice(0, 1));
      // Which replays showed each failure: two entries of one key are two causes, each with its own replay.
      const shown = seen ?? f;
      if (sent.replay && !shown.replays?.includes(sent.replay)) shown.replays = [...(shown.replays ?? []), sent.replay];
    }
    const generation = found.some((f) => f.sent.kind === 'generated') ? run.generation : undefined;
    const replaysJudged = [...new Set(relevant.flatMap((s) => (s.replay ? [s.replay] : [])))];
    return failAll([...distinct.values()], {
      among: `${found.length} of ${relevant.length} exchange(s)`,
      ...(generation ? { seed: generation.seed, path: generation.path } : {}),
      ...(replaysJudged.length ? { replaysJudged } : {}),
      ...busy,
    });
  };
  return { appliesTo, run: judgeOperation, reads: 'exercise' as const };
}
