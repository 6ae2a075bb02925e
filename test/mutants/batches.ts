/**
 * The kill matrix's batches: mutants of operations no other mutant of the batch touches, put in the proxy
 * together and judged by one run; and the members of a batch whose kill that run cannot vouch for.
 *
 * What a mutant's run sends, beyond its own operations, is learnt from a run of the unmutated proxy over all
 * of them: the exchange log says, of each request, which operation it was sent for (`for`), or none: the
 * corpus the query checks read, and the objects the whole run shares (one per collection, made for whichever
 * case asks first). A mutant joins a batch only when no member's run sends to its operations and its run sends
 * to none of theirs; without that run, every mutant runs alone.
 */
import type { Behaviour } from '../../src/config/exchangeLog.js';
import { isReadOperation } from '../../src/model/model.js';
import type { MutantCase } from './registry.js';
import { type Alteration, matches } from '../support/proxy.js';

export interface MutantBatch {
  target: 'plain' | 'cloud';
  /** The members' target label, where they play another database than SQLite. */
  label?: string;
  members: MutantCase[];
  /** The document's operations (`METHOD /path`) each mutant's selection selects. */
  operationsOf: Map<MutantCase, Set<string>>;
}

/** An operation (`METHOD /path`) that changes nothing on the server, as the model says (read-only mode's). */
const isRead = (key: string) => {
  const [method, path] = key.split(' ');
  return isReadOperation({ method, path });
};

/**
 * A mutant that rewrites a request which changes state may change what another operation of its batch reads:
 * it runs alone.
 */
const batchable = (m: MutantCase, operations: Set<string>) => !m.mutant.onRequest || [...operations].every(isRead);

const disjoint = (a: Set<string>, b: Set<string>) => ![...a].some((k) => b.has(k));

/**
 * What an unmutated run sent: for each operation, the operations its requests went to; those the corpus was
 * built with; and those sent for what the whole run shares.
 */
export interface Reach {
  sentFor: Map<string, Set<string>>;
  corpus: Set<string>;
  shared: Set<string>;
}

/** The corpus's requests: sent for no operation, by the corpus's own sender. */
const ofCorpus = (e: Behaviour) => !e.for && e.by === 'corpus';

export function reachOf(exchanges: Behaviour[]): Reach {
  const reach: Reach = { sentFor: new Map(), corpus: new Set(), shared: new Set() };
  for (const e of exchanges) {
    const to = `${e.method} ${e.template}`;
    if (ofCorpus(e)) reach.corpus.add(to);
    else if (!e.for) reach.shared.add(to);
    else reach.sentFor.set(e.for, (reach.sentFor.get(e.for) ?? new Set()).add(to));
  }
  return reach;
}

/**
 * Checks that read the corpus, which the run builds for no one operation (the exchange log has no `for`): a
 * member judged by one reaches the operations the corpus is built with. Should another check read it, the
 * corpus built in a batch of none of these shows in its exchanges, and `suspects` sends every member alone.
 */
const CORPUS_READERS = /^(filters|sorting|pagination|aggregates)\.|^contract\.default/;

/**
 * The mutants in batches, in their order: each joins the first batch of its target and label whose members'
 * runs and its own send nothing to each other's operations. Without a reach (no unmutated run), one each.
 */
export function batchesOf(mutants: MutantCase[], operations: string[], reach?: Reach): MutantBatch[] {
  const batches: Array<MutantBatch & { closed: boolean }> = [];
  const own = new Map(
    mutants.map((m) => {
      const selects = new RegExp(m.operations);
      return [m, new Set(operations.filter((k) => selects.test(k)))];
    }),
  );
  const reached = (m: MutantCase) =>
    new Set([
      ...[...own.get(m)!].flatMap((k) => [k, ...(reach?.sentFor.get(k) ?? [])]),
      ...(reach?.shared ?? []),
      ...(m.killedBy.some((k) => CORPUS_READERS.test(k)) ? (reach?.corpus ?? []) : []),
    ]);
  const apart = (a: MutantCase, b: MutantCase) =>
    disjoint(reached(a), own.get(b)!) && disjoint(reached(b), own.get(a)!);
  for (const m of mutants) {
    const target = m.target ?? 'plain';
    const alone = !reach || !batchable(m, own.get(m)!);
    const joins = alone
      ? undefined
      : batches.find(
          (b) => !b.closed && b.target === target && b.label === m.label && b.members.every((o) => apart(o, m)),
        );
    if (joins) joins.members.push(m);
    else batches.push({ target, label: m.label, members: [m], operationsOf: own, closed: alone });
  }
  return batches;
}

/** Answers that change how the suite's client treats every request after them: retries, pacing, a target gone. */
const CLIENT_WIDE = new Set([0, 429, 502, 503, 504]);

/**
 * The members of a batch whose kill its run cannot vouch for, because another member may have caused it: one
 * that changed an exchange sent for their operations (a check of theirs that set up its case through the
 * other's operation; the exchange log's `for`), or one whose change reaches further: an exchange of the corpus
 * reaches the members judged by a check that reads it, and every member when none is; an exchange sent for
 * what the whole run shares, a write rewritten or sent upstream of its own, an exchange that is none of the
 * log's (the document), or an answer that changes how the client treats every request reach every member.
 */
export function suspects(batch: MutantBatch, altered: Alteration[], exchanges: Behaviour[]): Set<string> {
  const suspected = new Set<string>();
  const memberFor = (key: string) => batch.members.find((m) => batch.operationsOf.get(m)!.has(key));
  const readers = batch.members.filter((m) => m.killedBy.some((k) => CORPUS_READERS.test(k)));
  for (const m of batch.members) {
    const others = batch.members.filter((o) => o !== m);
    const own = altered.filter((a) => a.mutant === m.mutant.id);
    // The log's requests each change is of (a log line holds its method and path template).
    const matched = own.map((a) => exchanges.filter((e) => matches(e.template, e.method, a)));
    const reachesAll = own.some(
      (a, i) =>
        (a.stage !== 'response' && matched[i].some((e) => !isRead(`${e.method} ${e.template}`))) ||
        a.handWritten ||
        (a.status !== undefined && CLIENT_WIDE.has(a.status)) ||
        matched[i].length === 0,
    );
    const victims = reachesAll
      ? others
      : matched.flat().flatMap((e) => {
          if (ofCorpus(e)) return readers.length ? readers.filter((r) => r !== m) : others;
          if (!e.for) return others;
          const victim = memberFor(e.for);
          return victim && victim !== m ? [victim] : [];
        });
    for (const v of victims) suspected.add(v.mutant.id);
  }
  return suspected;
}
