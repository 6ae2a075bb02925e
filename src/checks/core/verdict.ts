/**
 * What a check returns: passed, skipped (with the reason it could not be judged), or failed with typed
 * failures. A failure has a stable `kind`, a `key` that tells it from other failures of its kind on the
 * same operation (a status, a schema path, an input class), structured data and the exchanges that prove
 * it; reports, baselines and comparisons key on kind and key, never on the wording of a message.
 */
import type { Exchange } from './context.js';

/** The kinds of failure, each with what its key holds. Stable: baselines and comparisons name them. */
export const FAILURE_KINDS = [
  /** A 5xx other than 503. key: `<status> <input class>`. */
  'server-error',
  /** No answer: a dropped connection or a timeout. key: the input class. */
  'no-answer',
  /** 503 through every retry. key: the input class. */
  'unavailable',
  /** A success status the operation does not document. key: the status. */
  'status.undocumented',
  /** A status other than the one the rule asks for. key: the status. */
  'status.unexpected',
  /** A content type other than the documented one, or a body where none is documented. key: `<status> <type>`. */
  'content-type.mismatch',
  /** JSON that does not parse. key: the status. */
  'json.unparsable',
  /** A body that does not match its documented schema. key: `<status> <instance path> <keyword>`. */
  'schema.mismatch',
  /** Valid input refused with a status the document does not list. key: the status. */
  'input.refused',
  /** Invalid input accepted, or answered other than with a 4xx. key: the status. */
  'input.accepted',
  /** Input answered as if it had not been sent (a body of another content type): key: the status. */
  'input.ignored',
  /** An answer that should not depend on something did. key: the first JSON path that differs. */
  'answer.differs',
  /** State changed where it must not, or did not change where it must. key: what changed. */
  'state.changed',
  /** A header lacks what it must carry. key: the header. */
  'header.incomplete',
  /** A header says what is not so (an Allow that lists a method the resource refuses). key: `<header> <method>`. */
  'header.untrue',
  /** The filter answer differs from the oracle's. key: the filter's criteria, sorted. */
  'oracle.mismatch',
  /** A result out of the order its sort names. key: the sort value. */
  'order.violated',
  /** A page, count or bin that disagrees with the whole. key: what disagrees. */
  'aggregate.mismatch',
  /** The document breaks a convention of the spec. key: the offending name. */
  'convention.violated',
  /** `conformance upgrade`: an object written before the migration does not read back after it. key: its collection. */
  'upgrade.lost',
  /** `conformance upgrade`: a field reads back other than before the migration. key: `<collection>.<field>`. */
  'upgrade.changed',
] as const;

export type FailureKind = (typeof FAILURE_KINDS)[number];

export interface Failure {
  kind: FailureKind;
  key: string;
  /** Structured facts of the failure (statuses, values, paths), for reports and tools. */
  data?: Record<string, unknown>;
  /** The failure in words, rendered from the facts above by whoever found it. */
  message: string;
  evidence: Exchange[];
  /** The baseline replays (baseline/entries.ts replayId) among the requests that showed it. */
  replays?: string[];
}

/**
 * What showed nothing of a baseline entry either way, for the gate to leave it unjudged rather than call it
 * xpass (baseline/entries.ts applyBaseline): load, or an edge the run did not send.
 */
export interface Unanswered {
  /** The baseline replays every exchange of which met a busy server (503 through the retries). */
  replaysUnanswered?: string[];
  /** The causes (a key less its status: `past-storage {name}`) every request of which met a busy server. */
  causesUnanswered?: string[];
  /** The edges withheld from a server that is not the run's own (OperationRun.withheld): every cause of theirs. */
  causesWithheld?: string[];
}

export type Verdict =
  | ({ status: 'passed'; message?: string; evidence?: Exchange[] } & Unanswered)
  | { status: 'skipped'; message: string }
  | ({
      status: 'failed';
      /** At least one; the first is the one to show. */
      failures: Failure[];
      /** What the failures were found among ("3 of 12 exchange(s)"). */
      among?: string;
      /** Where generation found the failure: replay with this seed and path. */
      seed?: number;
      path?: string;
      /** The baseline replays the verdict judged, whether they showed a failure or not. */
      replaysJudged?: string[];
    } & Unanswered);

/** Thrown by a check (or by the context for it) when it cannot be judged; the runner reports a skip. */
export class Skip extends Error {}

export const pass = (message?: string, evidence?: Exchange[]): Verdict => ({ status: 'passed', message, evidence });
export const skip = (message: string): Verdict => ({ status: 'skipped', message });

export function failure(
  kind: FailureKind,
  key: string | number,
  message: string,
  evidence: Exchange[] = [],
  data?: Record<string, unknown>,
): Failure {
  return { kind, key: String(key), message, evidence, data };
}

/** A failed verdict of one failure. */
export function fail(
  kind: FailureKind,
  key: string | number,
  message: string,
  evidence: Exchange[] = [],
  data?: Record<string, unknown>,
): Verdict {
  return { status: 'failed', failures: [failure(kind, key, message, evidence, data)] };
}

/** A failed verdict of several failures (the first is shown), or a pass when there are none. */
export function failAll(
  failures: Failure[],
  extra: { among?: string; seed?: number; path?: string; replaysJudged?: string[] } & Unanswered = {},
): Verdict {
  if (failures.length) return { status: 'failed', failures, ...extra };
  const { among: _among, seed: _seed, path: _path, replaysJudged: _judged, ...unanswered } = extra;
  return { status: 'passed', ...unanswered };
}

/** A verdict's message: for a failure, rendered from its failures. */
export function messageOf(verdict: Verdict): string | undefined {
  if (verdict.status !== 'failed') return verdict.message;
  const [first] = verdict.failures;
  return verdict.among ? `${verdict.among}: ${first.message}` : first.message;
}

/** The exchanges a verdict shows: its failures', first failure first, each once. */
export function evidenceOf(verdict: Verdict): Exchange[] {
  if (verdict.status === 'skipped') return [];
  if (verdict.status === 'passed') return verdict.evidence ?? [];
  return [...new Set(verdict.failures.flatMap((f) => f.evidence))];
}

/** The status of an exchange as a failure key: the code, or `no-answer`. */
export const statusKey = (ex: Pick<Exchange, 'status'>): string => (ex.status === 0 ? 'no-answer' : String(ex.status));

/** `status` as people read it: the code, or why no answer came. */
export const statusText = (ex: Pick<Exchange, 'status' | 'error'>): string =>
  ex.status === 0 ? `no answer (${ex.error})` : String(ex.status);

/** A failure for an answer a check did not expect while preparing its judgement. */
export function unexpectedAnswer(what: string, ex: Exchange): Failure {
  return failure(
    'status.unexpected',
    statusKey(ex),
    `${what}: answered ${ex.status || ex.error} ${ex.body.slice(0, 200)}`,
    [ex],
    { status: ex.status },
  );
}

/** An answer that says the server is busy, not how it behaves: 503, 429, or none at all (a timeout, a reset). */
export const isLoadAnswer = (ex: Pick<Exchange, 'status'>): boolean =>
  ex.status === 503 || ex.status === 429 || ex.status === 0;

/**
 * A failed verdict for an answer a check did not expect while preparing its judgement; a busy answer (503, 429,
 * no answer), which says nothing of the rule, leaves the check not judged, and says so (checks/core/load.ts).
 */
export function unexpected(what: string, ex: Exchange): Verdict {
  if (isLoadAnswer(ex))
    return skip(
      `${what}: the server was busy (${ex.status || ex.error || 'no answer'}) through the retries: load, not judged`,
    );
  return { status: 'failed', failures: [unexpectedAnswer(what, ex)] };
}
