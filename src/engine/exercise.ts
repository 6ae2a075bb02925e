/**
 * Exchanges for one operation: its valid recipe, generated valid bodies (a fast-check property, so that a
 * failure shrinks to a minimal body and names its seed and path), negative bodies, and an unknown id.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import {
  type BuiltRequest,
  bodyArbitrary,
  buildRecipe,
  resolvePathParams,
  restrained,
  withPath,
  type CaseContext,
} from '../cases/requests.js';
import { JudgedOnce } from '../cases/distinct.js';
import { negativeCases } from '../cases/negative.js';
import { lookedBusy } from '../checks/contract/eachExchange.js';
import { timedOut } from '../http/exchange.js';
import {
  EXTREME,
  edgeRows,
  positiveAmounts,
  propertiesOf,
  singleField,
  unknownOnlyBody,
  type EdgeRow,
} from '../cases/edges.js';
import { BlockedByReadOnly, SendingStopped, type Exchange, type HttpClient } from '../http/client.js';
import { is2xx, isServerError, type RequestToSend } from '../openapi/request.js';
import type { Replay, WithheldEdge } from '../baseline/entries.js';
import type { ExchangeKind, OperationRun, Sent } from '../checks/core/context.js';
import type { FixturePool } from '../resources/pool.js';
import { isMissingPrerequisite, isTransientFixtureFailure } from '../resources/pool.js';
import { jsonBodySchema, resolveRef, type Operation, type Schema } from '../openapi/operations.js';
import { isUuid } from '../openapi/json.js';
import { createsAtOwnPath, type Collection } from '../model/model.js';
import { documentedBody } from '../cases/documented.js';
import type { SchemaValidators } from '../openapi/validators.js';

export interface ExerciseContext {
  cases: CaseContext;
  client: HttpClient;
  pool: FixturePool;
  validators: SchemaValidators;
  seed: number;
  runs: number;
  readOnly: boolean;
  disposable: boolean;
  /** Bodies the baseline says show a known deviation of this operation, each with its id (replayId). */
  replays(op: Operation): Array<Replay & { id: string }>;
  /**
   * The extreme edges the baseline says break the server for its other clients while they last (harmsOthers):
   * not sent to a target that is not the run's own (disposable), sent with the target to itself on one that is.
   */
  harmsOthers(op: Operation): WithheldEdge[];
  /** A problem with one exchange, for the generated-body property (contract rules that apply to valid input). */
  problemWithValidExchange(op: Operation, exchange: Exchange): string | undefined;
  /**
   * How many times in this run the server refused (503 through the retries) or did not answer an operation's
   * valid request: the recipe, or the valid request asked beside another (askedBesideTheValid).
   */
  validRefused: { count: number };
}

/** Requests one failing property may spend on shrinking its counterexample. */
const SHRINK_BUDGET = 30;

/** `"{{name}}"` in a replayed overlay becomes a fresh name of the run's, so that an upsert creates anew. */
function withFreshNames(value: Record<string, unknown>, fresh: () => string): Record<string, unknown> {
  return JSON.parse(JSON.stringify(value), (_k, v) => (v === '{{name}}' ? fresh() : v)) as Record<string, unknown>;
}

function stableHash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return (h >>> 0) % 2 ** 31;
}

/** Pause before building a recipe again whose fixture the server failed to create. */
const FIXTURE_RETRY_PAUSE_MS = 2000;

/**
 * The recipe, built a second time after a pause when a fixture it needs failed for a passing reason (a 5xx
 * or no answer on a busy server): one such failure would otherwise leave the operation unexercised.
 */
async function buildRecipeOnceMore(ctx: ExerciseContext, op: Operation): Promise<BuiltRequest> {
  try {
    return await buildRecipe(ctx.cases, op);
  } catch (e) {
    if (!isTransientFixtureFailure(e)) throw e;
    await new Promise((r) => setTimeout(r, FIXTURE_RETRY_PAUSE_MS));
    return buildRecipe(ctx.cases, op);
  }
}

/**
 * The top-level fields of a body that differ from the valid request's (absent there, or another value),
 * sorted. Two fresh names of the run's (`<runTag>-<n>`) are the same value: a body always has a name of its
 * own, and that is no cause.
 */
export function changedFields(body: unknown, recipe: unknown, runTag?: string): string[] {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return [];
  const base =
    recipe && typeof recipe === 'object' && !Array.isArray(recipe) ? (recipe as Record<string, unknown>) : {};
  // A fresh name as the run makes them, not one a generator decorated (`<runTag>-g0-B`, whose case may be the cause).
  const runName = (v: unknown) =>
    runTag !== undefined &&
    typeof v === 'string' &&
    /^\d+$/.test(v.slice(runTag.length + 1)) &&
    v.startsWith(`${runTag}-`);
  const differs = (k: string, v: unknown) =>
    JSON.stringify(base[k]) !== JSON.stringify(v) && !(runName(v) && runName(base[k]));
  return Object.entries(body as Record<string, unknown>)
    .filter(([k, v]) => !(k in base) || differs(k, v))
    .map(([k]) => k)
    .sort();
}

/** A body that is a JSON object, or undefined. */
const objectBody = (json: unknown): Record<string, unknown> | undefined =>
  json && typeof json === 'object' && !Array.isArray(json) ? (json as Record<string, unknown>) : undefined;

/**
 * What the edges are set on: the recipe's body when it is an object, or its one item when it is a list of
 * objects (`POST /logs/`); `schema` is that object's, and `sent` makes a request's body of it again.
 */
interface EdgeTarget {
  schema: Schema;
  body: Record<string, unknown>;
  sent(json: Record<string, unknown>): unknown;
}

function edgeTargetOf(ctx: ExerciseContext, schema: Schema, json: unknown): EdgeTarget | undefined {
  const body = objectBody(json);
  if (body) return { schema, body, sent: (j) => j };
  const items = resolveRef<Schema & { items?: Schema }>(ctx.cases.model.doc, schema).items;
  const item = Array.isArray(json) && json.length === 1 ? objectBody(json[0]) : undefined;
  return items && item ? { schema: items, body: item, sent: (j) => [j] } : undefined;
}

/**
 * The body with fresh names in place of the run's names its name fields hold, but for the fields `kept`: a
 * create's own path, or an edge of one name with fresh others. A member that shares a name with another of the
 * run's is one Prefect may answer with the other (a block type is read back by its name alone, in
 * models/block_types.py), and then the run could not know, nor delete, what it made.
 */
function renamedAfresh(
  ctx: ExerciseContext,
  body: Record<string, unknown>,
  kept: readonly string[] = [],
): Record<string, unknown> {
  const { safe } = ctx.cases;
  const isRunName = (k: string, v: unknown) =>
    !kept.includes(k) && safe.isNameField(k) && typeof v === 'string' && v.startsWith(safe.runTag);
  return Object.fromEntries(Object.entries(body).map(([k, v]) => [k, isRunName(k, v) ? safe.name() : v]));
}

/**
 * A create's body with fresh names (renamedAfresh): its answer could otherwise be the names' conflict with the
 * recipe's member. Any other operation's body as it is.
 */
function renamedIfCreate(ctx: ExerciseContext, op: Operation, body: Record<string, unknown>): Record<string, unknown> {
  return ctx.cases.model.recordOf(op).creates ? renamedAfresh(ctx, body) : body;
}

/**
 * The bodies the edges are set on: the recipe's, which reaches the member the recipe made or changed (an
 * upsert's or an update's path), and, for a create that names its member, the same with fresh names (a
 * create's path; `renames`: each request of it gets names of its own, or every row after the first that
 * made a member would meet that member's name and answer 409, its edges never stored). A server may take the
 * two paths through different code: one crashed where the other did not. On the recipe's member of a create,
 * its names stay as they are (`keepsNames`): an edge of one of two names would make a member that shares the
 * other with the recipe's (see renamedAfresh).
 */
function edgeBases(
  ctx: ExerciseContext,
  op: Operation,
  body: Record<string, unknown>,
): Array<{ body: Record<string, unknown>; keepsNames: boolean; renames: boolean }> {
  const fresh = renamedIfCreate(ctx, op, body);
  if (JSON.stringify(fresh) === JSON.stringify(body)) return [{ body, keepsNames: false, renames: false }];
  return [
    { body, keepsNames: true, renames: false },
    { body: fresh, keepsNames: false, renames: true },
  ];
}

const parsedBody = (text?: string): unknown => {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
};

/** An object an extreme value made or changed: its path parameters, what made it, and when the server took it. */
interface Touched {
  params: Record<string, unknown>;
  sent: Partial<Sent>;
  at: number;
}

/** One operation's exercise as it goes: what it sends with, and what it has sent. */
interface Exercise {
  ctx: ExerciseContext;
  op: Operation;
  run: OperationRun;
  /** The recipe's request: its path follows the object when a request renames it (followRename). */
  built: BuiltRequest;
  /** The objects an extreme value made or changed, read back and deleted once the exercise ends. */
  touchedByExtremes: Touched[];
  /**
   * A request sent again after pauses met a busy server every time: the operation's 503 is its answer (Prefect on
   * PostgreSQL answers 503 for a query it cannot run), and its other requests are not sent again until one is served.
   */
  busyIsItsAnswer?: boolean;
}

/**
 * A rename through the path that names the object by that name (`PATCH /work_pools/{work_pool_name}/queues/{name}`
 * with a new `name`) moves the object: the exercise's later requests follow it, or every one of them would meet
 * 404 and the operation would be exercised by its recipe alone.
 */
function followRename(ex: Exercise, request: RequestToSend, exchange: Exchange): void {
  const named = ex.ctx.cases.model.recordOf(ex.op).named;
  if (!named || ex.op.method === 'DELETE' || !is2xx(exchange) || request.path !== ex.built.request.path) return;
  const to = objectBody(request.json)?.[named.ref.field];
  if (typeof to !== 'string' || to === ex.built.pathParams[named.param]) return;
  const pathParams = { ...ex.built.pathParams, [named.param]: to };
  ex.built = { ...ex.built, pathParams, request: { ...ex.built.request, path: withPath(ex.op, pathParams) } };
  ex.ctx.pool.noteRenamed(ex.op, pathParams);
}

/** Send one request of the exercise and note what it made, deleted or renamed; not recorded. */
async function sendUnrecorded(ex: Exercise, request: RequestToSend, pathParams: Record<string, unknown>) {
  const exchange = await ex.ctx.client.send(request);
  ex.ctx.pool.noteCreated(ex.op, exchange, pathParams, request.json);
  ex.ctx.pool.noteDeleted(request, exchange);
  followRename(ex, request, exchange);
  return exchange;
}

/** Send one request of the exercise, note what it made, deleted or renamed, and record it with its kind. */
async function send(
  ex: Exercise,
  kind: ExchangeKind,
  request: RequestToSend,
  pathParams: Record<string, unknown>,
  extra: Partial<Sent> = {},
): Promise<Exchange> {
  const { exchange, ...busy } = await sentPatiently(ex, request, pathParams);
  ex.run.sent.push({ kind, exchange, ...extra, ...busy });
  return exchange;
}

/**
 * How long the exercise waits before it asks a busy server again (then three times that, and nine times):
 * past the client's own backoff. Two runs at once beside Prefect's own services on SQLite keep some writes
 * locked through the first two pauses: the third is for that lock.
 */
const BUSY_PAUSE_MS = 3000;
const BUSY_ASKS = 3;
/**
 * How many times an ordinary request refused right after its valid request was served is asked so again: a 503
 * counts as its own only when it comes back. Two runs at once on SQLite had a PATCH of a block document served
 * as the valid request and the edge after it refused through its attempts, the other run's write holding the
 * lock between them. An extreme value is asked once: its 503 is likelier its own (RequestToSend.valuesSuspect).
 */
const ROUNDS_BESIDE = 2;
/**
 * How many refusals of valid requests show a server that refuses under load (SQLite beside another client's
 * writes): from then on a request refused right after its served valid request is asked so BUSY_ASKS times,
 * after pauses that grow, an extreme value too, since a refusal beside a served one no longer tells its own
 * answer from the lock. Prefect on PostgreSQL refused no valid request in two runs at once, its run as long as
 * before: its 503s to a negative limit keep the short pauses.
 */
const LOAD_SHOWN = 2;

/**
 * The request a busy server refused through the retries, sent again after pauses that grow: load passes
 * (another client's writes, the server's own services), and a difference of availability counts only when it
 * comes back. An operation whose 503 came back every time is not asked again until it is served (busyIsItsAnswer).
 */
async function sendAgainLater(ex: Exercise, request: RequestToSend, pathParams: Record<string, unknown>) {
  let exchange: Exchange | undefined;
  for (let ask = 0; ask < BUSY_ASKS; ask++) {
    await new Promise((r) => setTimeout(r, BUSY_PAUSE_MS * 3 ** ask));
    exchange = await sendUnrecorded(ex, request, pathParams);
    if (!lookedBusy(exchange)) break;
  }
  return exchange!;
}

/** A request that got no answer in time, sent once more after the pause. */
async function sendOnceLater(ex: Exercise, request: RequestToSend, pathParams: Record<string, unknown>) {
  await new Promise((r) => setTimeout(r, BUSY_PAUSE_MS));
  return sendUnrecorded(ex, request, pathParams);
}

/**
 * How a request is asked again once the server was busy for it: after no answer in time, once more after a pause,
 * never through a busy server's growing ones, which an operation that hangs would spend on each of its requests.
 */
const laterAfter = (first: Exchange) => (timedOut(first) ? sendOnceLater : sendAgainLater);

/**
 * One row of edges. Where the server does not take it as the row's validity asks (a valid body refused or
 * crashing, an invalid one accepted), its fields go one at a time, so that the cause is named by its field and
 * no field's edge hides behind another's refusal; the row itself is judged only when no single field shows
 * what it showed (the cause lies in the fields together).
 */
async function sendEdgeRow(ex: Exercise, target: EdgeTarget, later: LaterRow): Promise<Exchange | undefined> {
  const { ctx, op, run } = ex;
  const { row, base, renames } = later;
  // An edge of one of an object's names comes with fresh others (renamedAfresh), and so does every request
  // on a base that renames.
  const withOtherNamesFresh = (json: Record<string, unknown>, fields: string[]) =>
    renames || fields.some((f) => ctx.cases.safe.isNameField(f)) ? renamedAfresh(ctx, json, fields) : json;
  const extreme = EXTREME.has(row.label);
  const asSent = (json: Record<string, unknown>, fields: string[]): [ExchangeKind, RequestToSend, Partial<Sent>] => {
    const detail = `${extreme ? 'extreme' : 'edge'} ${row.label}: ${fields.map((f) => `/${f}`).join(', ')}`;
    const body = target.sent(withOtherNamesFresh(json, fields));
    const request = { ...ex.built.request, json: restrained(ctx.cases, op, body) };
    if (!row.valid)
      return [
        'negative',
        { ...request, refusedBeforeData: true },
        { negative: 'out-of-range', detail, fields, edge: row.label },
      ];
    if (extreme) return ['extreme', { ...request, valuesSuspect: true }, { detail, fields, edge: row.label }];
    return ['edge', request, { detail, fields, edge: row.label }];
  };
  const refused = (exchange: Exchange) =>
    exchange.status >= 400 && exchange.status < 500 && exchange.status !== 404 && exchange.status !== 409;
  const unexpected = (exchange: Exchange) => {
    if (!row.valid) return (exchange.status !== 0 && exchange.status < 400) || isServerError(exchange);
    // An extreme value may be refused, but one field's refusal would hide another's crash.
    if (extreme) return isServerError(exchange) || refused(exchange);
    return ctx.problemWithValidExchange(op, exchange) !== undefined || refused(exchange);
  };
  const [kind, request, extra] = asSent(row.json, row.fields);
  // An invalid row's refusal may be one field's alone, and hide another's acceptance: each field goes alone.
  if (!row.valid && row.fields.length > 1) {
    for (const field of row.fields) {
      const [k, single, detail] = asSent(singleField(row, field, base), [field]);
      await send(ex, k, single, ex.built.pathParams, detail);
    }
    return undefined;
  }
  if (row.fields.length === 1) {
    const exchange = await send(ex, kind, request, ex.built.pathParams, extra);
    if (extreme) await readBack(ex, noteTouched(ex, exchange, extra), extra);
    return exchange;
  }
  const { exchange, ...busy } = await sentPatiently(ex, request);
  if (extreme) await readBack(ex, noteTouched(ex, exchange, extra), extra);
  if (!unexpected(exchange)) {
    run.sent.push({ kind, exchange, ...extra, ...busy });
    return exchange;
  }
  let shown = false;
  for (const field of row.fields) {
    const [k, single, detail] = asSent(singleField(row, field, base), [field]);
    const alone = await send(ex, k, single, ex.built.pathParams, detail);
    if (extreme) await readBack(ex, noteTouched(ex, alone, detail), detail);
    shown ||= Math.floor(alone.status / 100) === Math.floor(exchange.status / 100);
  }
  if (!shown) run.sent.push({ kind, exchange, ...extra, ...busy });
  return exchange;
}

/**
 * A request of the exercise sent, and sent again where a busy server refused it through the retries or did not
 * answer it in time, unrecorded: its answer, and the busy one before it. The operation's valid request tells whether the server is
 * busy (askedBesideTheValid), where it can be sent again without changing what the request meant: not for the
 * valid request itself, nor beside a DELETE (it would delete the object). An operation whose 503 came back
 * through every pause is not asked again (busyIsItsAnswer). A 503 shown to be the request's own says nothing of
 * the operation's other requests.
 */
async function sentPatiently(
  ex: Exercise,
  request: RequestToSend,
  pathParams: Record<string, unknown> = ex.built.pathParams,
): Promise<Pick<Sent, 'exchange' | 'busyFirst' | 'busyBeside'>> {
  const first = await sendUnrecorded(ex, request, pathParams);
  if (!lookedBusy(first)) {
    ex.busyIsItsAnswer = false;
    return { exchange: first };
  }
  // The operation stayed busy through every pause before: not asked again until it is served.
  if (ex.busyIsItsAnswer) return { exchange: first, busyBeside: true };
  if (request === ex.built.request) ex.ctx.validRefused.count++;
  const beside = request !== ex.built.request && ex.op.method !== 'DELETE';
  const { exchange, busy } = beside
    ? await askedBesideTheValid(ex, request, pathParams, first)
    : { exchange: await laterAfter(first)(ex, request, pathParams), busy: true };
  if (busy && !request.valuesSuspect) ex.busyIsItsAnswer = lookedBusy(exchange);
  return { exchange, busyFirst: first, ...(beside && busy ? { busyBeside: true as const } : {}) };
}

/**
 * A request the server refused with 503 through its attempts, or did not answer in time: its own answer (Prefect on PostgreSQL answers 503
 * to a negative limit, and to a value its database cannot store, whatever the load), or a busy server (SQLite
 * locked by another client's writes). After the pause the operation's valid request goes first, with few
 * attempts: served, the server is not busy, and the request is sent once more right after it with every attempt
 * an ordinary request gets, its answer then its own where it comes back (ROUNDS_BESIDE times; BUSY_ASKS, after
 * growing pauses, on a server that has refused LOAD_SHOWN valid requests); refused too, the server is busy, and
 * the request is asked
 * again as patiently as any (sendAgainLater). Two runs at once on SQLite kept values past 64 bits 503 through
 * one pause, and some through their two attempts right after the valid request was served; on PostgreSQL the
 * pauses alone took a shared server's run from 3 to 9 minutes, 40 s for each negative limit a body was drawn with.
 * A timeout may be load as a 503 may: on a CI machine running every test file at once, the tests' shared
 * PostgreSQL server with its services on left 7 of 36 requests for a flow run's input unanswered for 10 s.
 */
async function askedBesideTheValid(
  ex: Exercise,
  request: RequestToSend,
  pathParams: Record<string, unknown>,
  first: Exchange,
): Promise<{ exchange: Exchange; busy: boolean }> {
  const own = pathParams === ex.built.pathParams;
  const underLoad = ex.ctx.validRefused.count >= LOAD_SHOWN;
  const rounds = timedOut(first) ? 1 : underLoad ? BUSY_ASKS : request.valuesSuspect ? 1 : ROUNDS_BESIDE;
  for (let round = 1; ; round++) {
    await new Promise((r) => setTimeout(r, BUSY_PAUSE_MS * (underLoad ? 3 ** (round - 1) : 1)));
    const probe = await sendUnrecorded(ex, { ...ex.built.request, valuesSuspect: true }, ex.built.pathParams);
    // The valid request names the exercise's object as the recipe did: where that renamed it (a queue's name is
    // its path), a request for that object goes to its path now.
    const params = own ? ex.built.pathParams : pathParams;
    const again = { ...request, path: own ? withPath(ex.op, params) : request.path };
    if (lookedBusy(probe)) {
      ex.ctx.validRefused.count++;
      return { exchange: await laterAfter(first)(ex, again, params), busy: true };
    }
    const exchange = await sendUnrecorded(ex, { ...again, valuesSuspect: false }, params);
    if (!lookedBusy(exchange) || round === rounds) return { exchange, busy: false };
  }
}

/**
 * The object an accepted extreme value made (a create's answer) or changed (the request's own object), to be
 * deleted when the operation's exercise ends: a value the server stored may break every later read of its
 * collection (Prefect's v2 concurrency limits answer 503 to every list while one decays 2^64 slots a second),
 * and no other check should meet that. The extreme values are the exercise's last requests.
 */
function noteTouched(ex: Exercise, exchange: Exchange, sent: Partial<Sent>): Array<Record<string, unknown>> {
  const record = ex.ctx.cases.model.recordOf(ex.op);
  const c = record.collection;
  if (!is2xx(exchange) || record.reads || !c?.delete || !c.item) return [];
  const touched: Array<Record<string, unknown>> = [];
  if (c.create?.key === ex.op.key) {
    const items = Array.isArray(exchange.json) ? exchange.json : [exchange.json];
    for (const item of items as Array<Record<string, unknown> | null>) {
      const id = item?.[c.idField];
      if (id !== undefined) touched.push({ ...ex.built.pathParams, [c.item.param]: id });
    }
  } else if (record.named && record.mutates.has(record.named.param) && c.item.path === ex.op.path)
    touched.push(ex.built.pathParams);
  ex.touchedByExtremes.push(...touched.map((params) => ({ params, sent, at: Date.now() })));
  return touched;
}

/** The reads of one object: by id, and through its collection's filter, scoped to it. */
function readsOf(ex: Exercise, c: Collection, params: Record<string, unknown>): RequestToSend[] {
  const reads: RequestToSend[] = [];
  if (c.read) reads.push({ method: 'GET', template: c.read.path, path: withPath(c.read, params) });
  const scoped = { [c.name]: { [c.idField]: { any_: [params[c.item!.param]] } } };
  const json = c.filter ? documentedBody(ex.ctx.cases.model.doc, jsonBodySchema(c.filter), scoped) : undefined;
  // Only a list scoped to the object: an unscoped one would meet whatever another exercise left in the collection
  // at that moment (a queue another operation renamed in the pool both use), and blame this request for it.
  if (c.filter && JSON.stringify(json) === JSON.stringify(scoped))
    reads.push({ method: 'POST', template: c.filter.path, path: withPath(c.filter, params), json });
  return reads;
}

const crashed = (exchange: Exchange) => exchange.status >= 500 || exchange.status === 0;

/**
 * A read back, sent once more after a pause where no answer came in time: a read may be repeated, and one
 * timeout of a busy server says nothing of what the value left; a second is the read's answer.
 */
async function readPatiently(ex: Exercise, request: RequestToSend): Promise<Exchange> {
  const first = await ex.ctx.client.send(request);
  if (!timedOut(first)) return first;
  await new Promise((r) => setTimeout(r, BUSY_PAUSE_MS));
  return ex.ctx.client.send(request);
}

/**
 * What an accepted extreme value made or changed, read back at once: by id, and through its collection's filter.
 * A value the server stores but cannot serve breaks every later read of the collection (Prefect: a work queue
 * renamed `a&b` by PATCH, a v2 limit decaying 2^64 slots a second), and which other check met it would hang on
 * the order of requests. Where a read-back answers a 5xx the value is undone now (undoExtreme), and the crash is
 * the accepting request's finding (contract.reads-back), never another check's.
 */
async function readBack(ex: Exercise, touched: Array<Record<string, unknown>>, sent: Partial<Sent>): Promise<void> {
  const c = ex.ctx.cases.model.recordOf(ex.op).collection;
  if (!c?.item || touched.length === 0) return;
  for (const params of touched) {
    let broken = false;
    for (const request of readsOf(ex, c, params)) {
      const exchange = await readPatiently(ex, request);
      const detail = `read back after ${sent.detail ?? 'an extreme value'}`;
      ex.run.sent.push({ kind: 'read-back', exchange, edge: sent.edge, fields: sent.fields, detail });
      broken ||= crashed(exchange);
    }
    if (broken) await undoExtreme(ex, c, params, sent.fields ?? []);
  }
}

/**
 * Undo an extreme value its collection cannot serve. The exercise's own object (a PATCH's) is set back, the
 * changed fields to the recipe's values (a name of the run's afresh where the recipe set none), so that the
 * exercise's later requests still reach it; a member the value made, or one setting back does not mend, is
 * deleted.
 */
async function undoExtreme(ex: Exercise, c: Collection, params: Record<string, unknown>, fields: readonly string[]) {
  const own = params === ex.built.pathParams && ex.op.method !== 'POST';
  if (own && fields.length) {
    const recipe = objectBody(ex.built.request.json) ?? {};
    const restored: Record<string, unknown> = { ...recipe };
    for (const f of fields)
      if (!(f in recipe)) {
        if (ex.ctx.cases.safe.isNameField(f)) restored[f] = ex.ctx.cases.safe.name();
        else delete restored[f];
      }
    await sendUnrecorded(
      ex,
      { ...ex.built.request, json: restrained(ex.ctx.cases, ex.op, restored) },
      ex.built.pathParams,
    );
    const after = await Promise.all(readsOf(ex, c, ex.built.pathParams).map((r) => ex.ctx.client.send(r)));
    if (!after.some(crashed)) return;
  }
  await deleteObject(ex, c, params);
}

/** DELETE an object of the exercise's collection by its path parameters, noted in the pool (the ledger's). */
async function deleteObject(ex: Exercise, c: Collection, params: Record<string, unknown>): Promise<void> {
  if (!c.delete) return;
  const request = { method: 'DELETE', template: c.delete.path, path: withPath(c.delete, params) };
  ex.ctx.pool.noteDeleted(request, await ex.ctx.client.send(request));
}

/**
 * How long after a number past 64 bits was taken its object is read again: a value a server multiplies by the
 * time gone by (Prefect's v2 limit decaying 2^64 slots a second) overflows only once a second or so has passed,
 * and a read at once meets nothing.
 */
const SETTLED_MS = 2000;

/**
 * What the extreme values made or changed (noteTouched), read back once more and then deleted; cleanup lists
 * whatever this leaves. The second read comes at the exercise's end, a number past 64 bits at least SETTLED_MS
 * after the server took it: a crash there is still the accepting request's finding (contract.reads-back).
 */
async function deleteTouched(ex: Exercise): Promise<void> {
  const c = ex.ctx.cases.model.recordOf(ex.op).collection;
  const seen = new Set<string>();
  for (const touched of ex.touchedByExtremes) {
    const path = c?.delete ? withPath(c.delete, touched.params) : undefined;
    if (!c?.delete || !path || seen.has(path)) continue;
    seen.add(path);
    await readAgain(ex, c, touched);
    await deleteObject(ex, c, touched.params);
  }
}

/** What an extreme value made or changed, read again once it settled (SETTLED_MS for a number past 64 bits). */
async function readAgain(ex: Exercise, c: Collection, { params, sent, at }: Touched): Promise<boolean> {
  const wait = sent.edge === 'past-64-bits' ? at + SETTLED_MS - Date.now() : 0;
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  let broken = false;
  for (const request of readsOf(ex, c, params)) {
    const exchange = await readPatiently(ex, request);
    const detail = `read back again, ${((Date.now() - at) / 1000).toFixed(1)} s after ${sent.detail ?? 'an extreme value'}`;
    ex.run.sent.push({ kind: 'read-back', exchange, edge: sent.edge, fields: sent.fields, detail });
    broken ||= crashed(exchange);
  }
  return broken;
}

/**
 * A row the baseline says breaks the server for its other clients while it lasts (harmsOthers), sent with the
 * target to itself (HttpClient.alone): the row, its reads back, and the undoing of what it made or changed
 * (a member deleted, the exercise's own object set back) all end before any other request of the run starts,
 * so that no other check meets the object its collection cannot serve. On a target the run does not own the
 * row is not sent at all (withheld).
 */
async function sentAlone(ex: Exercise, target: EdgeTarget, later: LaterRow): Promise<void> {
  const c = ex.ctx.cases.model.recordOf(ex.op).collection;
  await ex.ctx.client.alone(async () => {
    const from = ex.touchedByExtremes.length;
    await sendEdgeRow(ex, target, later);
    if (!c?.item) return;
    for (const touched of ex.touchedByExtremes.splice(from)) {
      await readAgain(ex, c, touched);
      await undoExtreme(ex, c, touched.params, touched.sent.fields ?? []);
      // The exercise's own object, set back: read once more after it settled again, and deleted if still broken
      // (a field the recipe does not set is not set back by leaving it out).
      const own = touched.params === ex.built.pathParams && ex.op.method !== 'POST';
      if (own && c.delete && (await readAgain(ex, c, { ...touched, at: Date.now() })))
        await deleteObject(ex, c, touched.params);
    }
  });
}

/** A row of edges kept for the end of the exercise, with the body it is set on. */
interface LaterRow {
  row: EdgeRow;
  base: Record<string, unknown>;
  renames: boolean;
}

/**
 * Each field's edges, deterministically, before the random bodies: a seed changes only the random part that
 * follows. The extreme rows are returned, to be sent last (sendExtremes).
 */
async function sendEdges(ex: Exercise, target: EdgeTarget): Promise<LaterRow[]> {
  const { ctx, op } = ex;
  const { schema } = target;
  const profile = ctx.cases.profile;
  const record = ctx.cases.model.recordOf(op);
  const isName = (f: string) => ctx.cases.safe.isNameField(f) || (profile.namesMadeOnDemand ?? []).includes(f);
  const extremes: LaterRow[] = [];
  for (const { body: base, keepsNames, renames } of edgeBases(ctx, op, target.body)) {
    const rows = edgeRows({
      doc: ctx.cases.model.doc,
      bodySchema: schema,
      body: base,
      keeps: (f) =>
        f in ex.built.refs ||
        (profile.fieldsNeverSent ?? []).includes(f) ||
        (keepsNames && ctx.cases.safe.isNameField(f)),
      marks: (f) => f === 'tags',
      // An update of the exercise's own object: the ledger holds it by its path, so that a null name or null
      // tags leave it the run's to delete.
      marksMayBeNull: ['PATCH', 'PUT'].includes(op.method) && !!record.named && record.mutates.has(record.named.param),
      isName,
      // Each operation's own: POST /variables/ and PATCH /variables/{id} padded one name to its length, and
      // which of the two answered 409 followed the order they happened to reach the server in.
      nameStem: `${ctx.cases.safe.runTag}-edge${createHash('sha1').update(op.key).digest('hex').slice(0, 4)}`,
      accepts: (json) => ctx.validators.validate(schema, json) === undefined,
    });
    // The body of the largest ordinary numbers, where the server took it: a number past 64 bits goes alone on
    // it, as a value may break only beside others that use it (a v2 limit decaying 2^64 slots a second breaks
    // every read of its collection only while slots are taken, and the recipe takes none).
    let largest: Record<string, unknown> | undefined;
    for (const row of rows)
      if (EXTREME.has(row.label))
        extremes.push({ row, base: row.label === 'past-64-bits' ? (largest ?? base) : base, renames });
      else {
        const exchange = await sendEdgeRow(ex, target, { row, base, renames });
        if (row.label === 'maximum' && row.valid && exchange && is2xx(exchange)) largest = row.json;
      }
  }
  return extremes;
}

/**
 * The extreme rows, the unknown-only body and the unknown references, then the deletion of what they made
 * (noteTouched).
 */
async function sendExtremes(ex: Exercise, target: EdgeTarget, rows: LaterRow[]): Promise<void> {
  const harmful = ex.ctx.harmsOthers(ex.op);
  const withheld = ex.ctx.disposable ? [] : harmful;
  for (const later of rows) {
    const harm = withheld.find((w) => w.edge === later.row.label);
    if (!harm && harmful.some((w) => w.edge === later.row.label)) await sentAlone(ex, target, later);
    else if (!harm) await sendEdgeRow(ex, target, later);
    else if (!ex.run.withheld?.some((w) => w.check === harm.check && w.edge === harm.edge))
      (ex.run.withheld ??= []).push({
        check: harm.check,
        edge: harm.edge,
        reason: `the ${harm.edge} edge is not sent to a server that is not the run's own (--disposable): ${harm.reason}`,
      });
  }
  await sendUnknownOnly(ex, target);
  await sendUnknownReferences(ex, target);
  await deleteTouched(ex);
}

/**
 * The recipe's body with one reference to another object (a block document's `block_schema_id`) naming none:
 * an identifier of the form of the one it replaces, one field at a time, so that a crash names its field.
 */
async function sendUnknownReferences(ex: Exercise, target: EdgeTarget): Promise<void> {
  const { ctx, op } = ex;
  for (const [field, value] of Object.entries(ex.built.refs)) {
    if (!(field in target.body)) continue;
    const unknown = ctx.cases.profile.unknownValue(isUuid(value) ? { format: 'uuid' } : {});
    const json = restrained(ctx.cases, op, target.sent(renamedIfCreate(ctx, op, { ...target.body, [field]: unknown })));
    const detail = `/${field} names no object: ${JSON.stringify(unknown)}`;
    const request = { ...ex.built.request, json };
    const sent = { detail, fields: [field] };
    noteTouched(ex, await send(ex, 'unknown-reference', request, ex.built.pathParams, sent), sent);
  }
}

/** The random valid bodies (a fast-check property), shrunk on a failure; their server errors' fields named. */
async function sendGenerated(ex: Exercise): Promise<void> {
  const { ctx, op, run } = ex;
  const arb = bodyArbitrary(ctx.cases, op, ex.built.refs);
  if (!arb) return;
  // One seed per operation, derived from the run's seed: a replay of one operation needs only its key.
  const seed = (ctx.seed + stableHash(op.key)) % 2 ** 31;
  // Shrinking is bounded by a count of requests, not by time, so that a replay sends the same ones.
  let budget = ctx.runs + SHRINK_BUDGET;
  const judged = new JudgedOnce<boolean>();
  const result = await fc.check(
    fc.asyncProperty(arb, (body) =>
      judged.outcome(JSON.stringify(body), async () => {
        if (budget-- <= 0) return true;
        const exchange = await send(ex, 'generated', { ...ex.built.request, json: body }, ex.built.pathParams);
        return ctx.problemWithValidExchange(op, exchange) === undefined;
      }),
    ),
    { seed, numRuns: ctx.runs, endOnFailure: false, maxSkipsPerRun: 10 },
  );
  // The time box stopped sending mid-property: not run, never a counterexample.
  if (result.errorInstance instanceof SendingStopped) throw result.errorInstance;
  run.generation = {
    seed,
    runs: ctx.runs,
    path: result.failed ? (result.counterexamplePath ?? undefined) : undefined,
    counterexample: result.failed ? result.counterexample?.[0] : undefined,
  };
  // Every random body that failed is on the way to the counterexample: its cause lies where that one's does.
  // Only a server error's key names its fields (contract.no-5xx).
  const tag = ctx.cases.safe.runTag;
  const cause = result.failed ? changedFields(result.counterexample?.[0], ex.built.request.json, tag) : undefined;
  for (const sent of run.sent)
    if (sent.kind === 'generated' && sent.exchange.status >= 500)
      sent.fields = cause ?? changedFields(parsedBody(sent.exchange.requestBody), ex.built.request.json, tag);
}

/** The invalid bodies, each of a kind of its own, and the valid body sent as text/plain. */
async function sendInvalid(ex: Exercise, schema: Schema): Promise<void> {
  const { ctx } = ex;
  for (const negative of negativeCases(ctx.cases.model.doc, schema, ex.built.request.json, ctx.validators)) {
    const body: Partial<RequestToSend> =
      negative.raw !== undefined
        ? { json: undefined, raw: negative.raw, headers: { 'content-type': 'application/json' } }
        : { json: negative.json };
    const negativeRequest: RequestToSend = { ...ex.built.request, ...body, refusedBeforeData: true };
    await send(ex, 'negative', negativeRequest, ex.built.pathParams, {
      negative: negative.kind,
      detail: negative.detail,
    });
  }
  // In the exercise, so that every check of every answer judges it: a server error here is contract.no-5xx's
  // (MUST), whether the body was refused is errors.wrong-content-type's (SHOULD). It takes turns as a write:
  // a server that does not read the body (Prefect) serves the request as if it had none.
  const textPlain: RequestToSend = {
    ...ex.built.request,
    json: undefined,
    raw: JSON.stringify(ex.built.request.json ?? {}),
    headers: { 'content-type': 'text/plain' },
  };
  await send(ex, 'wrong-content-type', textPlain, ex.built.pathParams, { detail: 'the JSON body sent as text/plain' });
}

/** The bodies the baseline's entries replay, as their entries give them. */
async function sendReplays(ex: Exercise): Promise<void> {
  const { ctx, op } = ex;
  const replays = ctx.replays(op);
  if (replays.length === 0) return;
  // An object of the operation's own, fresh, which the replays share in their order (one entry's replay may
  // need the state an earlier one left): the exercise's own is in whatever state the seed's generated bodies
  // left it, and a task run they completed rejects the transitions the replays send.
  const params = ctx.cases.model.recordOf(op).mutates.size
    ? await resolvePathParams(ctx.cases, op, 'recipe')
    : ex.built.pathParams;
  const path = withPath(op, params);
  for (const replay of replays) {
    for (let i = 0; i < (replay.repeat ?? 1); i++) {
      const overlay = replay.overlay ? withFreshNames(replay.overlay, () => ctx.cases.safe.name()) : undefined;
      const json = restrained(
        ctx.cases,
        op,
        overlay ? { ...(ex.built.request.json as object), ...overlay } : replay.json,
      );
      await send(ex, replay.kind, { ...ex.built.request, path, json }, params, {
        negative: replay.negative,
        detail: "the baseline's replayed body",
        replay: replay.id,
        ...(replay.kind === 'generated'
          ? { fields: changedFields(json, ex.built.request.json, ctx.cases.safe.runTag) }
          : {}),
      });
    }
  }
}

/**
 * A DELETE of each member the server made itself under an object of the run's own: a parent made for this
 * request alone holds no member of the run's, so every member its collection's filter lists there is the
 * server's (a work pool's default queue). A server may refuse to delete one; it may not crash on it.
 */
async function sendServerMade(ex: Exercise): Promise<void> {
  const { ctx, op } = ex;
  const record = ctx.cases.model.recordOf(op);
  const { filter, item, parentParams = [] } = record.collection ?? {};
  if (record.collection?.delete?.key !== op.key || !filter || !item || parentParams.length === 0) return;
  const parents: Record<string, unknown> = {};
  for (const param of parentParams) {
    const ref = record.pathRefs[param];
    if (!ref) return;
    parents[param] = await ctx.cases.fixtures.value(ref, 'fresh');
  }
  const listed = await ctx.client.send({
    method: filter.method,
    template: filter.path,
    path: withPath(filter, parents),
    json: ctx.cases.model.recordOf(filter).bodySchema ? {} : undefined,
  });
  const members = Array.isArray(listed.json) ? (listed.json as Array<Record<string, unknown> | null>) : [];
  for (const id of members.map((m) => m?.[record.collection!.idField]).filter((v) => v !== undefined)) {
    const params = { ...parents, [item.param]: id };
    const detail = `a member the server made under the run's own ${parentParams.map((p) => `{${p}}`).join(', ')}: ${JSON.stringify(id)}`;
    await send(ex, 'server-made', { ...ex.built.request, path: withPath(op, params) }, params, { detail });
  }
}

/** How many creates of one name go at once: two clients registering it, and a retry of one of them. */
const AT_ONCE = 3;

/**
 * A create of its collection sent AT_ONCE times at the same moment under one fresh name (`at-once`): clients
 * that register one name together (workers starting side by side). One may make the member and the others be
 * refused (409) or given the same one (an upsert); none may crash, as a server that checks a name and then
 * inserts it meets its own unique index between the two. A request still busy through the retries, or not
 * answered in time, is asked once more alone, after a pause: a lock held by the others is load, not the answer.
 */
async function sendAtOnce(ex: Exercise): Promise<void> {
  const { ctx, op } = ex;
  const { safe } = ctx.cases;
  const body = objectBody(ex.built.request.json);
  if (!body || ctx.cases.model.recordOf(op).collection?.create?.key !== op.key) return;
  const names = Object.keys(body).filter((f) => {
    const v = body[f];
    return safe.isNameField(f) && typeof v === 'string' && v.startsWith(safe.runTag);
  });
  if (names.length === 0) return;
  const request = { ...ex.built.request, json: restrained(ctx.cases, op, renamedAfresh(ctx, body)), racing: true };
  const detail = `the create sent ${AT_ONCE} times at once with one ${names.map((n) => `/${n}`).join(', ')}`;
  const sent = () => sendUnrecorded(ex, request, ex.built.pathParams);
  for (const first of await Promise.all(Array.from({ length: AT_ONCE }, sent))) {
    const busy = lookedBusy(first);
    // Sent again alone, it races nothing: a 503 or a timeout then is a busy server's, asked as patiently as any
    // request.
    const exchange = busy ? await laterAfter(first)(ex, { ...request, racing: false }, ex.built.pathParams) : first;
    ex.run.sent.push({ kind: 'at-once', exchange, detail, fields: names, ...(busy ? { busyFirst: first } : {}) });
  }
}

/** How many times in a row an action's amount is sent, and its largest: the generators' largest integer. */
const REPEATS = 3;
const LARGEST_AMOUNT = 2 ** 31 - 1;

/**
 * An action that moves a counter by an amount (cases/edges.ts positiveAmounts), sent REPEATS times in a row on
 * the recipe's object with its least amount, then REPEATS times with its largest (`repeated-amount`): a decrement
 * of what was never taken drives the counter below zero, an increment past its limit (the least amount is the
 * one that reaches the limit and is told to wait, Prefect's 423 with Retry-After; the largest, one refused
 * outright or past a 32-bit counter). A server may refuse or clamp; it may not crash, and what it answers is
 * held to the document like any answer.
 */
async function sendRepeatedAmount(ex: Exercise, schema: Schema): Promise<void> {
  const { ctx, op } = ex;
  const record = ctx.cases.model.recordOf(op);
  const body = objectBody(ex.built.request.json);
  if (!body || op.method !== 'POST' || record.reads || record.collection?.create?.key === op.key) return;
  const amounts = positiveAmounts(ctx.cases.model.doc, schema);
  if (amounts.length === 0) return;
  const json: Record<string, unknown> = { ...body };
  // An action of the collection's own path that names its members in a list (`names` beside a create's `name`)
  // moves theirs: it names one made for it, which holds nothing yet, or the counter it moves would be no one's.
  const c = record.collection;
  const own = c?.create ? jsonBodySchema(c.create) : undefined;
  const ownFields = own ? propertiesOf(ctx.cases.model.doc, own) : [];
  const list = Object.keys(json).find((f) => Array.isArray(json[f]) && ownFields.includes(f.replace(/s$/, '')));
  const member =
    c && list
      ? await ctx.cases.fixtures.value({ collection: c.path, field: list.replace(/s$/, '') }, 'fresh')
      : undefined;
  if (list && member !== undefined) json[list] = [member];
  const sizes = amounts.flatMap((a) => [a.least, LARGEST_AMOUNT].map((size) => ({ amount: a.field, size })));
  for (const { amount, size } of sizes) {
    const request = { ...ex.built.request, json: restrained(ctx.cases, op, { ...json, [amount]: size }) };
    for (let i = 1; i <= REPEATS; i++) {
      const detail = `/${amount} at ${size}, ${i} of ${REPEATS} in a row`;
      await send(ex, 'repeated-amount', request, ex.built.pathParams, { detail, fields: [amount] });
    }
  }
}

/** A body of one property the document does not name (cases/edges.ts unknownOnlyBody), judged for crashes only. */
async function sendUnknownOnly(ex: Exercise, target: EdgeTarget): Promise<void> {
  const body = unknownOnlyBody(ex.ctx.cases.model.doc, target.schema);
  if (!body) return;
  const json = target.sent(body);
  const detail = `extreme unknown-only: ${JSON.stringify(json)}`;
  const request = { ...ex.built.request, json, valuesSuspect: true };
  const sent: Partial<Sent> = { detail, edge: 'unknown-only' };
  noteTouched(ex, await send(ex, 'extreme', request, ex.built.pathParams, sent), sent);
}

/** Why the operation is not exercised at all, if it is not: read-only mode, a shared target, a schema that does not compile. */
function notExercised(ctx: ExerciseContext, op: Operation): string | undefined {
  const safety = ctx.cases.profile.safety(op);
  if (ctx.readOnly && !ctx.cases.model.recordOf(op).reads) return 'read-only mode: the operation changes state';
  if (safety?.disposableOnly && !ctx.disposable)
    return `${safety.reason} (on a disposable target, --disposable runs it)`;
  return ctx.validators.uncompilable(op);
}

export async function exerciseOperation(ctx: ExerciseContext, op: Operation): Promise<OperationRun> {
  const run: OperationRun = { op, sent: [] };
  const skipped = notExercised(ctx, op);
  if (skipped) return { ...run, skipped };
  run.unreachable = ctx.cases.profile.unreachable?.(op);
  let built: BuiltRequest;
  try {
    built = await buildRecipeOnceMore(ctx, op);
  } catch (e) {
    if (isMissingPrerequisite(e)) return { ...run, skipped: `prerequisite missing: ${e.message}` };
    if (e instanceof BlockedByReadOnly) return { ...run, skipped: e.message };
    throw e;
  }
  const ex: Exercise = { ctx, op, run, built, touchedByExtremes: [] };
  await send(ex, 'recipe', built.request, built.pathParams);
  const record = ctx.cases.model.recordOf(op);
  const schema = record.bodySchema;
  const mayGenerate = ctx.cases.profile.safety(op)?.generated ?? true;
  const target = schema && mayGenerate ? edgeTargetOf(ctx, schema, ex.built.request.json) : undefined;
  const extremes = target ? await sendEdges(ex, target) : undefined;
  if (schema && mayGenerate) {
    await sendGenerated(ex);
    await sendInvalid(ex, schema);
  }
  await sendReplays(ex);
  await sendAtOnce(ex);
  try {
    if (schema && mayGenerate) await sendRepeatedAmount(ex, schema);
  } catch (e) {
    if (!isMissingPrerequisite(e)) throw e;
  }
  if ((record.named && !createsAtOwnPath(record)) || record.actsOn) {
    try {
      const params = await resolvePathParams(ctx.cases, op, 'unknown');
      await send(ex, 'unknown', { ...ex.built.request, path: withPath(op, params) }, params);
    } catch (e) {
      if (!isMissingPrerequisite(e)) throw e;
    }
  }
  try {
    await sendServerMade(ex);
  } catch (e) {
    if (!isMissingPrerequisite(e)) throw e;
  }
  if (target && extremes) await sendExtremes(ex, target, extremes);
  return run;
}
