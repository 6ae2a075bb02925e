/**
 * The expected-failures file: one entry per known deviation of a target, with its evidence. An entry names
 * the failure it excuses: the check, the operation (or a list of them, or `*` for every operation), and the
 * typed failure's kind and key. A failed verdict is `xfail` only when an entry excuses each of its failures;
 * one failure no entry names keeps it `failed`, so a new defect on a baselined operation still fails the gate.
 * A baselined check that passes where its entry names the operation is `xpass`, and fails the run (the
 * baseline is stale).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { FAILURE_KINDS, type Failure, type FailureKind, type Unanswered } from '../checks/core/verdict.js';
import { UsageError } from '../config/config.js';

/** What a verdict is reported as, the baseline applied: a failure it names is xfail, a pass it expected to fail xpass. */
export type ResultStatus = 'passed' | 'failed' | 'skipped' | 'xfail' | 'xpass' | 'error';

export interface BaselineEntry {
  /** The reported check id, e.g. `contract.success-status-documented` or `sorting.by-value[NAME_ASC]`. */
  check: string;
  /** The operation key ("POST /flows/"), a list of them, or "*": every operation that shows this kind and key. */
  operation: string | string[];
  /** The failure's kind, e.g. `status.undocumented`. */
  kind: FailureKind;
  /** The failure's key, e.g. `201`: what tells it from other failures of its kind. */
  key: string;
  reason: string;
  evidence?: { request?: string; response?: string };
  /**
   * A body that shows the deviation, sent on every run beside the generated ones, so that a deviation
   * found by generation is reproduced whatever the seed (and an entry that stops failing is noticed).
   */
  replay?: Replay;
  /**
   * Where an entry has no replay, which request of every run shows it instead (the document, the valid
   * request, a negative case, an edge, the text/plain body, the check's own requests), or why no body can
   * (a race, state other checks leave). A shipped baseline gives every entry one or the other.
   */
  shownBy?: string;
  /**
   * The deviation shows only sometimes (it depends on timing): a pass is not reported as xpass. `true`, or
   * how often it showed where that was measured ("3 of 16 runs: …").
   */
  intermittent?: boolean | string;
  /**
   * What showing the deviation does to the server's other clients while it lasts (every list of a collection
   * answering 500). On a target that is not the run's own (no `--disposable`), the extreme edge that shows it
   * is not sent, and the entry's check is not judged on its operations there: a team's workers poll that
   * collection. For a `contract.reads-back` entry, whose key names the edge (`500 read-back <edge> {fields}`).
   */
  harmsOthers?: string;
  /** The entry applies only to a target whose label (CONFORMANCE_TARGET_LABEL, set by the managed launcher) contains this, e.g. "sqlite". */
  onlyOn?: string;
  /** After this date (YYYY-MM-DD) the entry no longer excuses anything. */
  expires?: string;
  /**
   * Set for a run, never in a file (forTarget): why the entry may not hold on this target (it was written for
   * another release, or for one database while the target's is unknown). It excuses the failure it names as
   * that, and where its failure does not show it is reported, not gated.
   */
  conditional?: string;
  /**
   * The releases whose shipped baselines hold this entry, where a run's entries come from the releases around
   * the target's (baseline/choice.ts: neighbours); never in a shipped file.
   */
  writtenFor?: string[];
}

export interface Replay {
  kind: 'generated' | 'negative';
  negative?: 'wrong-type' | 'missing-required' | 'extra-property' | 'out-of-range' | 'malformed-json';
  /** The whole body to send. */
  json?: unknown;
  /** Fields laid over the run's own valid body (which names the run's own objects). */
  overlay?: Record<string, unknown>;
  /** How many times to send it (a duplicate shows what a first request cannot). */
  repeat?: number;
}

export interface Baseline {
  target?: string;
  /** The release the entries were written for, and its document's operations (baseline/choice.ts reads them). */
  release?: { version: string; operations?: string[] };
  entries: BaselineEntry[];
}

/** What an entry of an older baseline, written before entries named their failure, may lack. */
export type LegacyEntry = Omit<BaselineEntry, 'kind' | 'key'> & Partial<Pick<BaselineEntry, 'kind' | 'key'>>;

const KINDS: ReadonlySet<string> = new Set(FAILURE_KINDS);

const describe = (e: Partial<LegacyEntry>, i: number) =>
  `entry ${i + 1} (${String(e?.check)} ${Array.isArray(e?.operation) ? e.operation.join(', ') : String(e?.operation)})`;

/** Why an entry is not one the loader accepts, or undefined. Keyless entries are only an error where keys are required. */
function problemWith(e: Partial<LegacyEntry> | null, i: number, keyless: boolean): string | undefined {
  if (typeof e !== 'object' || e === null) return `entry ${i + 1} is not an object`;
  if (typeof e.check !== 'string' || typeof e.reason !== 'string')
    return `${describe(e, i)} needs "check" and "reason" strings`;
  const ops = e.operation;
  if (!(typeof ops === 'string' || (Array.isArray(ops) && ops.length > 0 && ops.every((o) => typeof o === 'string'))))
    return `${describe(e, i)} needs "operation": an operation key, a non-empty list of them, or "*"`;
  if (e.kind === undefined && e.key === undefined) {
    if (keyless) return undefined;
    return `${describe(e, i)} names no failure kind and key; an entry excuses only the failure it names (\`conformance baseline update --baseline FILE\` rewrites old entries keyed)`;
  }
  if (typeof e.kind !== 'string' || !KINDS.has(e.kind))
    return `${describe(e, i)} has kind ${JSON.stringify(e.kind)}; the kinds are ${FAILURE_KINDS.join(', ')}`;
  if (typeof e.key !== 'string' || e.key === '') return `${describe(e, i)} needs a "key" beside its kind`;
  return undefined;
}

function readEntries(file: string, keyless: boolean): Baseline {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new UsageError(`cannot read baseline ${file}: ${(e as Error).message.split('\n')[0]}`);
  }
  const entries = (data as Baseline | null)?.entries;
  if (!Array.isArray(entries))
    throw new UsageError(
      `baseline ${file} must be {"entries": [{"check", "operation", "kind", "key", "reason", ...}]}`,
    );
  entries.forEach((e, i) => {
    const problem = problemWith(e, i, keyless);
    if (problem) throw new UsageError(`baseline ${file}: ${problem}`);
  });
  return data as Baseline;
}

export function loadBaseline(file: string | undefined): Baseline {
  return file ? readEntries(file, false) : { entries: [] };
}

/** A baseline that may still hold entries without kind and key, for `baseline update` to rewrite. */
export function loadBaselineForUpdate(
  file: string | undefined,
): Omit<Baseline, 'entries'> & { entries: LegacyEntry[] } {
  return file ? readEntries(file, true) : { entries: [] };
}

/** What tells two entries apart: the failure they name, where, on which database, and the body that shows it. */
const entryIdentity = (e: BaselineEntry): string =>
  JSON.stringify([e.check, e.operation, e.kind, e.key, e.onlyOn ?? null, e.replay ?? null]);

/**
 * The entries of several releases' baselines as one (the neighbours of a release with none of its own), each
 * saying which of those releases hold it: an entry both hold is one entry written for both.
 */
export function mergedBaseline(baselines: ReadonlyArray<{ release: string; file: string }>): Baseline {
  const byIdentity = new Map<string, BaselineEntry>();
  for (const { release, file } of baselines)
    for (const e of loadBaseline(file).entries) {
      const id = entryIdentity(e);
      const seen = byIdentity.get(id);
      if (seen) seen.writtenFor = [...(seen.writtenFor ?? []), release];
      else byIdentity.set(id, { ...e, writtenFor: [release] });
    }
  return {
    target: `the entries of ${baselines.map((b) => b.release).join(' and ')}, each naming the releases it was written for`,
    entries: [...byIdentity.values()],
  };
}

/** Keep the entries that apply to this target (`onlyOn` against the target's label). */
export function appliesTo(entry: Pick<BaselineEntry, 'onlyOn'>, label: string | undefined): boolean {
  return !entry.onlyOn || (label ?? '').includes(entry.onlyOn);
}

/** What the run knows of its target that decides which entries apply, and how firmly. */
export interface TargetFacts {
  /** The target's label (`--target-label`, or `<profile> <release> on <database>`), which `onlyOn` is matched against. */
  label?: string;
  /** The target's database could not be told: an entry `onlyOn` a database applies as an either-database deviation. */
  databaseUnknown?: boolean;
  /** The baseline was written for this release, not the target's (baseline/choice.ts). */
  borrowedFrom?: string;
}

/** The databases `onlyOn` may name. */
const DATABASES: ReadonlySet<string> = new Set(['sqlite', 'postgres']);

/** The entries that apply to this target, each marked conditional where it may not hold there. */
export function forTarget(baseline: Baseline, facts: TargetFacts): Baseline {
  const entries = baseline.entries.flatMap((e): BaselineEntry[] => {
    const writtenFor = e.writtenFor?.join(' and ') ?? facts.borrowedFrom;
    if (appliesTo(e, facts.label))
      return [
        writtenFor
          ? {
              ...e,
              conditional: `written for release${e.writtenFor && e.writtenFor.length > 1 ? 's' : ''} ${writtenFor}`,
            }
          : e,
      ];
    if (facts.databaseUnknown && e.onlyOn && DATABASES.has(e.onlyOn))
      return [
        { ...e, conditional: `either-database: holds on ${e.onlyOn}, and the target's database could not be told` },
      ];
    return [];
  });
  return { ...baseline, entries };
}

/** The entry names this operation: equal, in its list, or `*`. */
export function covers(entry: Pick<BaselineEntry, 'operation'>, operation: string): boolean {
  const ops = entry.operation;
  return ops === '*' || ops === operation || (Array.isArray(ops) && ops.includes(operation));
}

/** The entry names the operation itself, not through `*`: a pass there means the entry is stale. */
export const namesOperation = (entry: Pick<BaselineEntry, 'operation'>, operation: string): boolean =>
  entry.operation !== '*' && covers(entry, operation);

export function isExpired(entry: Pick<BaselineEntry, 'expires'>, today = new Date()): boolean {
  return entry.expires !== undefined && entry.expires < today.toISOString().slice(0, 10);
}

/** The live entries for one check on one operation. */
export function entriesFor(baseline: Baseline, check: string, operation: string): BaselineEntry[] {
  return baseline.entries.filter((e) => e.check === check && covers(e, operation) && !isExpired(e));
}

/**
 * Whether an entry excuses a failure: the same kind, and the same key. A server error's key names the fields
 * its generated cause lies in (`500 generated {a}`): an entry excuses a failure whose fields include its own
 * (a shrink cut short leaves more), and an entry written before keys named fields (`500 generated`)
 * excuses every generated cause on its operation, as it did. An entry of no field (`500 generated {}`: the
 * state earlier requests left) excuses only that: no body's own cause.
 */
export function excuses(entry: Pick<BaselineEntry, 'kind' | 'key'>, f: Pick<Failure, 'kind' | 'key'>): boolean {
  if (entry.kind !== f.kind) return false;
  if (entry.key === f.key) return true;
  const named = generatedKey(f.key);
  if (!named) return false;
  if (entry.key === named.cls) return true;
  const own = generatedKey(entry.key);
  return own?.cls === named.cls && own.fields.length > 0 && own.fields.every((x) => named.fields.includes(x));
}

/** A generated server error's key split into its class and the fields it names (`500 generated {a,b}`). */
function generatedKey(key: string): { cls: string; fields: string[] } | undefined {
  const m = /^(\S+ generated) \{([^}]*)\}$/.exec(key);
  return m ? { cls: m[1], fields: m[2].split(',').filter(Boolean) } : undefined;
}

export interface BaselineJudgement<F> {
  status: ResultStatus;
  /** The entries that excused a failure of this verdict. */
  excusedBy: BaselineEntry[];
  /** The failures no entry excuses. */
  unexcused: F[];
  /** Entries naming this operation whose failure did not show (the verdict failed otherwise, or passed). */
  notShown: BaselineEntry[];
  /** Conditional entries naming this operation whose failure did not show: reported, not gated. */
  unconfirmed: BaselineEntry[];
}

/** Whether an entry's cause (its key less the status) is `cause`, or of the class `cause` names bare (an edge). */
const causeMatches = (own: string, cause: string) =>
  own === cause || (!cause.includes(' ') && own.startsWith(`${cause} {`));

/**
 * Why an entry whose failure did not show says nothing here: it may not hold on this target (conditional), what
 * shows it met only a busy server (load), or its edge was withheld from a server that is not the run's own.
 */
function unjudgedBecause(e: BaselineEntry, unanswered: Unanswered): string | undefined {
  if (e.conditional) return e.conditional;
  const replay = ownReplay(e);
  const cause = e.key.slice(e.key.indexOf(' ') + 1);
  if (
    (replay !== undefined && (unanswered.replaysUnanswered ?? []).includes(replay)) ||
    (unanswered.causesUnanswered ?? []).some((c) => causeMatches(cause, c))
  )
    return 'what shows it met a busy server (503 through the retries): load, not judged';
  if ((unanswered.causesWithheld ?? []).some((c) => causeMatches(cause, c)))
    return "its edge is not sent to a server that is not the run's own (--disposable): not judged";
  return undefined;
}

/** A verdict with the baseline applied: `failures` are the verdict's (empty when it passed). */
export function applyBaseline<F extends Pick<Failure, 'kind' | 'key'>>(
  status: 'passed' | 'failed' | 'skipped',
  failures: F[],
  entries: BaselineEntry[],
  operation: string,
  unanswered: Unanswered = {},
): BaselineJudgement<F> {
  const excusedBy = entries.filter((e) => failures.some((f) => excuses(e, f)));
  const unexcused = failures.filter((f) => !entries.some((e) => excuses(e, f)));
  // An entry for every operation ("*") excuses its failure where it shows, and says nothing elsewhere.
  const absent = entries.filter((e) => !excusedBy.includes(e) && namesOperation(e, operation) && !e.intermittent);
  const notShown: BaselineEntry[] = [];
  const unconfirmed: BaselineEntry[] = [];
  for (const e of absent) {
    const why = unjudgedBecause(e, unanswered);
    if (why === undefined) notShown.push(e);
    else unconfirmed.push({ ...e, conditional: why });
  }
  const judged = { excusedBy, unexcused, notShown, unconfirmed };
  if (status === 'failed') return { status: unexcused.length ? 'failed' : 'xfail', ...judged };
  if (status === 'passed' && notShown.length) return { status: 'xpass', ...judged };
  return { status, ...judged };
}

/**
 * A replay's identity, the same in the run that sends it and in the verify that reads the run: entries of one
 * key (two causes of one 500) are told apart by which replay showed the failure.
 */
export const replayId = (replay: Replay): string =>
  createHash('sha256').update(JSON.stringify(replay)).digest('hex').slice(0, 12);

/** The input class a key names (a server error's, an unavailable or unanswered request's: contract/eachExchange.ts inputClass). */
function keyClass({ kind, key }: Pick<BaselineEntry, 'kind' | 'key'>): string | undefined {
  if (kind === 'server-error') return key.split(' ')[1];
  return kind === 'unavailable' || kind === 'no-answer' ? key : undefined;
}

/**
 * The replay of an entry that must have shown its failure where the run judged it: one of the input class its
 * key names. An entry split from an older one per key carries the other keys' replay, which cannot show it.
 */
function ownReplay(e: BaselineEntry): string | undefined {
  if (!e.replay) return undefined;
  const replayClass = e.replay.kind === 'negative' ? `negative:${e.replay.negative}` : e.replay.kind;
  return keyClass(e) === replayClass ? replayId(e.replay) : undefined;
}

/**
 * Whether a verdict shows an entry's deviation (baseline verify, baseline update): a failure the entry
 * excuses, and, where the verdict judged the entry's own replay, one that replay showed. Two entries of one
 * key are two causes, each with its own replay: another cause's request showing the key says nothing of this one.
 */
export function showsEntry(
  e: BaselineEntry,
  verdict: { failures?: Array<Pick<Failure, 'kind' | 'key' | 'replays'>>; replaysJudged?: string[] },
): boolean {
  const excused = (verdict.failures ?? []).filter((f) => excuses(e, f));
  if (!excused.length) return false;
  const replay = ownReplay(e);
  const judgedOwn = replay !== undefined && (verdict.replaysJudged ?? []).includes(replay);
  return !judgedOwn || excused.some((f) => f.replays?.includes(replay));
}

export function replaysFor(baseline: Baseline, operation: string): Array<Replay & { id: string }> {
  const replays = baseline.entries
    .filter((e) => namesOperation(e, operation) && e.replay && !isExpired(e))
    .map((e) => ({ ...e.replay!, id: replayId(e.replay!) }));
  // An old entry rewritten into one entry per key carries its replay into each: send it once.
  return [...new Map(replays.map((r) => [r.id, r])).values()];
}

/** An entry as people name it in a line of text. */
export const entryName = (e: Pick<LegacyEntry, 'check' | 'operation' | 'kind' | 'key'>): string =>
  `${e.check} ${Array.isArray(e.operation) ? e.operation.join(', ') : e.operation}${e.kind ? ` ${e.kind} ${e.key}` : ''}`;

/** An extreme edge not sent to a shared target (BaselineEntry.harmsOthers): its label, the check it shows, and why. */
export interface WithheldEdge {
  edge: string;
  check: string;
  reason: string;
}

/**
 * The extreme edges of an operation that the baseline says break the server for its other clients: each
 * `contract.reads-back` entry with `harmsOthers` that covers the operation, by the edge its key names.
 */
export function withheldEdges(baseline: Baseline, operation: string): WithheldEdge[] {
  return baseline.entries.flatMap((e) => {
    const edge = /^\d{3} read-back (\S+)/.exec(e.key)?.[1];
    return e.harmsOthers && e.check === 'contract.reads-back' && edge && covers(e, operation)
      ? [{ edge, check: e.check, reason: e.harmsOthers }]
      : [];
  });
}
