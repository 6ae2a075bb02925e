/**
 * filters.oracle's judging of one filter: the server's answer, read across pages for an `or_` filter, against
 * the oracle's, and the readings the spec leaves open that may agree instead.
 */
import { type Criterion, tripleOf } from '../../cases/filters.js';
import type { SentAhead } from '../../cases/sentAhead.js';
import type { FilterModel } from '../../model/filters.js';
import { evaluate, withReading, type FilterSemantics } from '../../model/oracle.js';
import type { Obj } from '../../openapi/json.js';
import { emptyPatternsApplied, isOpenOperand } from '../../model/profiles/operators.js';
import type { Operation } from '../../openapi/operations.js';
import { is2xx } from '../../openapi/request.js';
import type { CheckContext, Exchange } from '../core/context.js';
import { isLoadAnswer } from '../core/verdict.js';
import type { QueryContext } from '../core/queryContext.js';

/** The page a filter is asked for, at most (QueryContext.pageSize); an `or_` filter's answer that fills it is read on (`ownAcrossPages`). */
export const PAGE = 200;
/** Pages an `or_` filter is read to, at most: past them the run's own objects may lie unread. */
export const OR_PAGES = 10;

/** Scope a body to the run's own objects, a page of `page` (QueryContext.pageSize): `id.any_` ANDed in, unless the filter ORs its fields. */
export function scoped(body: Obj, own: string, ids: string[], or: boolean, page: number): Obj {
  if (or) return { ...body, limit: page };
  const ownFilter = { ...((body[own] as Obj) ?? {}) };
  ownFilter.id = { ...((ownFilter.id as Obj) ?? {}), any_: (ownFilter.id as Obj | undefined)?.any_ ?? ids };
  return { ...body, [own]: ownFilter, limit: page };
}

/**
 * The run's own objects among all an `or_` filter selects, page after page from the first answer. Such a
 * filter cannot be scoped (the run's ids would be one more alternative), so on a server that holds more than
 * a page of matching objects the run's own may lie past the first page. Read on until a page is not full, up
 * to OR_PAGES pages; `complete` is false when the last page read was still full. `exchange` is the first
 * page's, or the page that was refused: the answer a failure shows.
 */
async function ownAcrossPages(
  q: QueryContext,
  op: Operation,
  sent: Obj,
  first: { exchange: Exchange; ids: string[] },
): Promise<{ exchange: Exchange; ids: string[]; complete: boolean }> {
  const ids = new Set(first.ids);
  const size = typeof sent.limit === 'number' ? sent.limit : PAGE;
  let page = first.exchange;
  for (let n = 1; ; n++) {
    if (!is2xx(page)) return { exchange: page, ids: [...ids], complete: true };
    const full = Array.isArray(page.json) && page.json.length >= size;
    if (!full || n >= OR_PAGES) return { exchange: first.exchange, ids: [...ids], complete: !full };
    const next = await q.query(op, { ...sent, offset: n * size });
    for (const id of next.ids) ids.add(id);
    page = next.exchange;
  }
}

/** The semantics with empty patterns read the other way the spec allows. */
const withEmptyPatternsApplied = (semantics: FilterSemantics): FilterSemantics => ({
  ...semantics,
  operators: { ...semantics.operators, ...emptyPatternsApplied },
});

/** A filter the server answered otherwise than the oracle. */
export interface Mismatch {
  body: Obj;
  criteria: Criterion[];
  server: string[];
  oracle: Set<string>;
  exchange: Exchange;
}

/** Two answers as sets of ids: equal, or what one has more and fewer of. */
export function setDifference(server: string[], oracle: Set<string>) {
  return { extra: server.filter((id) => !oracle.has(id)), missing: [...oracle].filter((id) => !server.includes(id)) };
}

/** What one filters.oracle judgement keeps while its property runs: its budget, and what agreed otherwise than plainly. */
export interface OracleRun {
  ctx: CheckContext;
  op: Operation;
  q: QueryContext;
  model: FilterModel;
  /** The draws' filters, sent side by side before the property judges them one by one. */
  ahead?: SentAhead<Awaited<ReturnType<QueryContext['query']>>>;
  budget: number;
  implementationDefined: Set<string>;
  otherReadings: Set<string>;
  unread: number;
  /** Filters whose answer was a busy server's: not judged. */
  busy: number;
}

export type Drawn = { body: Obj; criteria: Criterion[]; or: boolean };

/** The server's answer to a filter, against the oracle's: undefined when they agree. */
export async function judgeFilter(
  run: OracleRun,
  drawn: Drawn,
  sent: Obj,
  expected: Set<string>,
): Promise<Mismatch | undefined> {
  const { ctx, op, q } = run;
  const { criteria, or } = drawn;
  if (run.budget-- <= 0) return undefined;
  for (const c of criteria) ctx.noteFilterCoverage(tripleOf(c), { checked: 1 });
  const first = await run.ahead!.answer(JSON.stringify(sent), () => q.query(op, sent));
  const { exchange, ids, complete } = or ? await ownAcrossPages(q, op, sent, first) : { ...first, complete: true };
  // A busy answer (503, 429 or none, through the client's retries) says nothing of the filter: not judged, counted.
  if (isLoadAnswer(exchange)) {
    run.busy++;
    return undefined;
  }
  const same = (oracle: Set<string>) => ids.length === oracle.size && ids.every((id) => oracle.has(id));
  if (is2xx(exchange) && same(expected)) return undefined;
  if (is2xx(exchange) && agreesOtherwise(run, drawn, same)) return undefined;
  // Read to its last page, an or_ filter that still selects more can only be judged by what it should not select.
  if (is2xx(exchange) && !complete && ids.every((id) => expected.has(id))) {
    run.unread++;
    return undefined;
  }
  return { body: sent, criteria, server: is2xx(exchange) ? ids : [], oracle: expected, exchange };
}

/** The answer agrees with a reading the spec leaves open (noted as implementation-defined). */
function agreesOtherwise(run: OracleRun, { body, criteria }: Drawn, same: (oracle: Set<string>) => boolean): boolean {
  const { q, model } = run;
  // An empty pattern means what the implementation makes of it: either reading agrees, and is reported.
  const open = criteria.filter((c) => isOpenOperand(c.operator, c.operand)).map(tripleOf);
  if (open.length > 0 && same(evaluate(model, withEmptyPatternsApplied(q.semantics), q.built.corpus, body))) {
    for (const triple of open) run.implementationDefined.add(triple);
    return true;
  }
  // A criterion the spec leaves open, read the other way a release of the profile reads it.
  for (const reading of q.semantics.otherReadings ?? []) {
    if (!criteria.some((c) => reading.applies(c))) continue;
    if (same(evaluate(model, withReading(q.semantics, reading), q.built.corpus, body))) {
      run.otherReadings.add(reading.description);
      return true;
    }
  }
  return false;
}
