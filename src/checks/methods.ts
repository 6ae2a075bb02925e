/**
 * Family `methods`: the verb semantics of spec §4.1. GET, PUT and DELETE are idempotent; GET takes
 * nothing from the body and changes nothing; DELETE removes exactly its object; PATCH changes only what
 * it names; a method a path does not offer gets 405.
 */
import { filterModel } from '../model/filters.js';
import { type ApiModel, namedCollection, type Collection } from '../model/model.js';
import type { Obj } from '../model/oracle.js';
import { type RelationGroups, relationGroups } from '../model/relations.js';
import { UNKNOWN_UUID } from '../model/profiles/profile.js';
import { resolveRef, type Operation } from '../openapi/operations.js';
import { is2xx, type RequestToSend } from '../openapi/request.js';
import { bodyDifference, differences, volatileOf } from './bodies.js';
import { defineCheck } from './check.js';
import type { CheckContext, Exchange } from './context.js';
import { once } from './once.js';
import {
  fail,
  failAll,
  failure,
  pass,
  skip,
  Skip,
  statusKey,
  unexpected,
  unexpectedAnswer,
  type Failure,
  type Verdict,
} from './verdict.js';

const readOf = (c: Collection, path: string): RequestToSend => ({ method: 'GET', template: c.read!.path, path });

/** The object's path with its identifier swapped for another object's. */
const pathNaming = (request: RequestToSend, id: unknown) =>
  request.path.replace(/[^/]+$/, encodeURIComponent(String(id)));

async function countOf(ctx: CheckContext, op: Operation): Promise<number | undefined> {
  const c = ctx.model.collectionOf(op);
  if (!c?.count || c.parentParams.length > 0) return undefined;
  const ex = await ctx.send({ method: 'POST', template: c.count.path, path: c.count.path, json: {} });
  return is2xx(ex) && typeof ex.json === 'number' ? ex.json : undefined;
}

interface DeleteScenario {
  first: Exchange;
  readAfter?: Exchange;
  second: Exchange;
  countBefore?: number;
  countAfter?: number;
  bystander?: Exchange;
  /** The collection's filter and paginate after the DELETE, asked for the target's id and the bystander's. */
  views: Array<{ name: 'filter' | 'paginate'; exchange: Exchange; target: string; bystander: string }>;
}

/**
 * The views of a collection that select by id (`<key>.id.any_` in the body of its filter and paginate), for an
 * object of it: where a deleted object must be gone from too.
 */
function viewsById(
  ctx: CheckContext,
  c: Collection,
): Array<{ name: 'filter' | 'paginate'; op: Operation; key: string }> {
  const model = filterModel(ctx.model, c);
  const key = model?.ownKey;
  const byId = key && model.filters[key].fields.some((f) => f.path.join('.') === 'id' && 'any_' in f.operators);
  if (!byId || c.parentParams.length > 0) return [];
  return [
    { name: 'filter' as const, op: c.filter },
    { name: 'paginate' as const, op: c.paginate },
  ].flatMap((v) => (v.op ? [{ ...v, op: v.op, key }] : []));
}

/** The ids a filter's or a paginate's answer holds (a list, or paginate's `results`). */
const idsIn = (json: unknown): string[] => {
  const items = Array.isArray(json) ? json : (json as { results?: unknown } | undefined)?.results;
  return Array.isArray(items) ? items.map((o) => String((o as Obj)?.id)) : [];
};

/** What a DELETE scenario acts on: the request, the object it deletes (and its id), another to stay. */
interface DeleteObjects {
  c: Collection;
  request: RequestToSend;
  target: Obj;
  targetId: unknown;
  bystander: Obj;
}

/**
 * The objects of an operation's DELETE scenario, made (and the target's id read) before the scenario runs
 * alone, beside other checks: the DELETE checks' `prepare`. What need not follow another goes side by side
 * (a far target's round trips are paid once for both). The recipe of a DELETE names a fresh object made for
 * it: that object is the target, rather than one more.
 */
function deleteObjects(ctx: CheckContext, op: Operation): Promise<DeleteObjects> {
  return once(ctx, `delete objects ${op.key}`, async () => {
    const c = namedCollection(ctx.model, op);
    if (!c) throw new Skip('the path names no object of a collection');
    const { param, ref } = ctx.model.recordOf(op).named!;
    const field = ref.field;
    const [built, bystander] = await Promise.all([ctx.validRequest(op), ctx.object(c.path, 'fresh')]);
    const named = built.pathParams[param];
    const target = field === c.idField && named !== undefined ? { [field]: named } : await ctx.object(c.path, 'fresh');
    const request = { ...built.request, path: pathNaming(built.request, target[field]) };
    // The target's id, for the views that select by id: read where its path names it otherwise.
    const targetId =
      target.id ??
      (c.read && viewsById(ctx, c).length > 0
        ? ((await ctx.send(readOf(c, await ctx.itemPath(c, target)))).json as Obj | undefined)?.id
        : undefined);
    return { c, request, target, targetId, bystander };
  });
}

/**
 * One DELETE scenario per operation, judged by the DELETE checks: the count, the DELETE, then everything that
 * follows it side by side: the read, the second DELETE, the count, the reads of the bystander and the views.
 * Three round trips: behind latency each is paid in full, and a lane's scenarios go one at a time. The count
 * beside the second DELETE is exact on a conforming server, whose second DELETE changes nothing (§4.1 rule 1:
 * 404); a server whose second DELETE deletes again answers it 2xx, which delete-twice-404 judges.
 */
function deleteScenario(ctx: CheckContext, op: Operation): Promise<DeleteScenario> {
  return once(ctx, `delete ${op.key}`, async () => {
    const { c, request, target, targetId, bystander } = await deleteObjects(ctx, op);
    const read = async (obj: Obj) => ctx.send(readOf(c, await ctx.itemPath(c, obj)));
    const countBefore = await countOf(ctx, op);
    const first = await ctx.send(request, op);
    // By id only where the object's id is known: the target named by its id, or made fresh for the scenario.
    const ids = { target: targetId, bystander: bystander.id };
    const [readAfter, second, countAfter, bystanderRead, views] = await Promise.all([
      c.read ? read(target) : undefined,
      ctx.send(request, op),
      countOf(ctx, op),
      c.read ? read(bystander) : undefined,
      typeof ids.target === 'string' && typeof ids.bystander === 'string'
        ? Promise.all(
            viewsById(ctx, c).map(async (v) => {
              const json = { [v.key]: { id: { any_: [ids.target, ids.bystander] } } };
              const exchange = await ctx.send({ method: 'POST', template: v.op.path, path: v.op.path, json });
              return { name: v.name, exchange, target: ids.target as string, bystander: ids.bystander as string };
            }),
          )
        : ([] as DeleteScenario['views']),
    ]);
    return { first, readAfter, second, countBefore, countAfter, bystander: bystanderRead, views };
  });
}

const groupsOf = new WeakMap<ApiModel, RelationGroups>();

/**
 * The lane of a check that runs alone on an object of a collection: the collection's group of related ones
 * (model/relations.ts). A DELETE scenario deletes fresh objects nothing names, and a PUT changes its own
 * object: neither changes a collection outside that group, nor sees a change made outside it.
 */
function relatedGroup(op: Operation, ctx: CheckContext): string | undefined {
  const c = namedCollection(ctx.model, op);
  if (!c) return undefined;
  let groups = groupsOf.get(ctx.model);
  if (!groups) groupsOf.set(ctx.model, (groups = relationGroups(ctx.model, ctx.profile.deleteReaches)));
  return groups(c.path);
}

/** The DELETE checks' preparation: the scenario's objects, made beside other checks before it runs alone. */
const prepareDelete = (op: Operation, ctx: CheckContext) => deleteObjects(ctx, op);

const isDeleteOfObject = (op: Operation, ctx: CheckContext) =>
  op.method === 'DELETE' && namedCollection(ctx.model, op) !== undefined;

/** A DELETE whose collection offers a GET of one object, to see the object gone. */
const isDeleteOfReadableObject = (op: Operation, ctx: CheckContext) =>
  isDeleteOfObject(op, ctx) && namedCollection(ctx.model, op)!.read !== undefined;

/** A DELETE whose collection offers a read or a count, to see what else the DELETE removed. */
const isDeleteOfObservableObject = (op: Operation, ctx: CheckContext) => {
  const c = isDeleteOfObject(op, ctx) ? namedCollection(ctx.model, op)! : undefined;
  return c !== undefined && (c.read !== undefined || (c.count !== undefined && c.parentParams.length === 0));
};

/**
 * Every field PATCH can change that the object shows, each with a new value: a description, tags, each
 * boolean flipped, each string the schema leaves free (a task run's name, `-patched` added), and each
 * object with a string member, that member changed (the shape is kept, for a schema of the server's may
 * check it), or, where the schema takes any object, a member added (a block document's data).
 */
export function patchFields(current: Obj, schemaProps: Obj, tag: string): Array<[string, unknown]> {
  const fields: Array<[string, unknown]> = [];
  const add = (field: string, value: unknown) => {
    if (!fields.some(([f]) => f === field)) fields.push([field, value]);
  };
  if ('description' in schemaProps && 'description' in current) add('description', `${tag} patched`);
  if ('tags' in schemaProps && 'tags' in current) add('tags', [tag, `${tag}-patched`]);
  for (const field of Object.keys(schemaProps))
    if (field in current && typeof current[field] === 'boolean') add(field, !current[field]);
  // The object's own value, lengthened: unique where the field must be (a name), as each object's is.
  for (const [field, schema] of Object.entries(schemaProps))
    if (field in current && typeof current[field] === 'string' && freeString(schema))
      add(field, `${current[field] || tag}-patched`);
  for (const [field, schema] of Object.entries(schemaProps)) {
    const value = current[field];
    if (!value || typeof value !== 'object' || Array.isArray(value)) continue;
    // A string of asterisks is a secret the read hides: its real value is unknown, so another is chosen.
    const member = Object.keys(value).find(
      (k) => typeof (value as Obj)[k] === 'string' && !/^\*+$/.test((value as Obj)[k] as string),
    );
    if (member) add(field, { ...(value as Obj), [member]: `${tag}-patched` });
    else if (freeObject(schema)) add(field, { ...(value as Obj), conformance: `${tag}-patched` });
  }
  return fields;
}

/** A property schema that takes any object (alone or with null): no properties of its own to refuse a new member. */
function freeObject(schema: unknown): boolean {
  const text = JSON.stringify(schema);
  return /"type":"object"/.test(text) && !/"(properties|\$ref|additionalProperties":false)"/.test(text);
}

/** A property schema that takes any string (alone or with null): no format, pattern, enum, const or short maximum. */
function freeString(schema: unknown): boolean {
  const text = JSON.stringify(schema);
  return (
    /"type":"string"/.test(text) &&
    !/"(format|pattern|enum|const|\$ref)"/.test(text) &&
    !/"maxLength":([0-9]|[1-3][0-9])[,}]/.test(text)
  );
}

/**
 * Whether a value the request set is what a read shows: each member the request named agrees (the server
 * may add members and defaults), arrays item by item, and timestamps as the same instant in any notation.
 */
export function storedAsSent(sent: unknown, stored: unknown): boolean {
  if (Array.isArray(sent))
    return Array.isArray(stored) && sent.length === stored.length && sent.every((v, i) => storedAsSent(v, stored[i]));
  if (sent && typeof sent === 'object')
    return (
      !!stored &&
      typeof stored === 'object' &&
      Object.entries(sent as Obj).every(([k, v]) => !(k in (stored as Obj)) || storedAsSent(v, (stored as Obj)[k]))
    );
  if (typeof sent === 'string' && typeof stored === 'string' && TIMESTAMP.test(sent) && TIMESTAMP.test(stored))
    return Date.parse(sent) === Date.parse(stored);
  return JSON.stringify(sent) === JSON.stringify(stored);
}

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;

/**
 * How many rounds methods.get-repeatable and methods.get-safe ask before a change they saw is the GETs' doing.
 * A server with its services on writes by itself (the scheduler adds runs for deployments with schedules,
 * late-run marking and the foreman change a run's state and a pool's status), and other clients write to a
 * shared one: such a write can fall inside a round's few round trips once. A GET that changes what it reads
 * changes it again in the next round; a change that does not come back was a write beside the GETs.
 */
const REPEAT_ROUNDS = 3;

/**
 * Asks `round` (its change, or undefined) until a round sees no change, at most REPEAT_ROUNDS times: that
 * round's note names round 1's change as a write beside the GETs; `changed` is round 1's when every round saw one.
 */
async function untilNoChange(
  round: () => Promise<Verdict | undefined>,
): Promise<{ note?: string; changed?: undefined } | { changed: Verdict }> {
  let first: Verdict | undefined;
  for (let n = 1; n <= REPEAT_ROUNDS; n++) {
    const changed = await round();
    if (!changed) {
      if (first?.status !== 'failed') return {};
      return {
        note: `round ${n} saw no change, where round 1 did (${first.failures[0].message}): a write beside the GETs, not theirs`,
      };
    }
    first ??= changed;
  }
  return { changed: first! };
}

/** The same answer twice: status, then body (volatile fields left out). */
function sameAnswer(a: Exchange, b: Exchange, ctx: CheckContext, what: string): Verdict | undefined {
  if (a.status !== b.status)
    return fail('answer.differs', 'status', `${what}: status ${a.status}, then ${b.status}`, [a, b], {
      statuses: [a.status, b.status],
    });
  const diff = bodyDifference(a.json ?? a.body, b.json ?? b.body, volatileOf(ctx));
  return diff ? fail('answer.differs', diff.key, `${what}: ${diff.text}`, [a, b]) : undefined;
}

const PROBE_ORDER = ['GET', 'PUT', 'PATCH', 'DELETE', 'POST'];

const firstOfPath = (op: Operation, ctx: CheckContext) => ctx.model.operations.find((o) => o.path === op.path) === op;

const templateMatches = (template: string, path: string) =>
  new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path);

/** A method the path does not offer, and the path with parameters that name nothing (a route the document does not list can do no harm). */
function notOffered(op: Operation, ctx: CheckContext) {
  const offered = new Set(ctx.model.operations.filter((o) => o.path === op.path).map((o) => o.method));
  const path = op.path.replace(/\{[^}]+\}/g, UNKNOWN_UUID);
  // `GET /work_pools/count` is `GET /work_pools/{name}` for name "count": a method another template serves is offered.
  const servedElsewhere = (m: string) =>
    ctx.model.operations.some((o) => o.method === m && o.path !== op.path && templateMatches(o.path, path));
  return { method: PROBE_ORDER.find((m) => !offered.has(m) && !servedElsewhere(m)), offered, path };
}

const probes405 = (op: Operation, ctx: CheckContext) =>
  firstOfPath(op, ctx) && notOffered(op, ctx).method !== undefined;

function answerTo405Probe(ctx: CheckContext, op: Operation): Promise<Exchange> {
  return once(ctx, `405 ${op.path}`, () => {
    const { method, path } = notOffered(op, ctx);
    return ctx.send({
      method: method!,
      template: op.path,
      path,
      json: method === 'GET' ? undefined : {},
      refusedBeforeData: true,
    });
  });
}

export const methodsChecks = [
  defineCheck({
    id: 'methods.get-repeatable',
    exchangesPerCase: 3,
    isolation: 'quiet',
    level: 'MUST',
    clause: '4.1 rule 1',
    title: 'MUST answer a repeated GET with the same status and body (GET is idempotent)',
    appliesTo: (op) => op.method === 'GET',
    run: async (op, ctx) => {
      const built = await ctx.validRequest(op);
      let status = 0;
      const rounds = await untilNoChange(async () => {
        const answers: Exchange[] = [];
        for (let i = 0; i < 3; i++) answers.push(await ctx.send(built.request, op));
        status = answers[0].status;
        return answers
          .slice(1)
          .map((later) => sameAnswer(answers[0], later, ctx, 'identical GETs answered differently'))
          .find(Boolean);
      });
      if (rounds.changed) return rounds.changed;
      return pass([`3 GETs answered ${status} alike`, rounds.note].filter(Boolean).join('; '));
    },
  }),
  defineCheck({
    id: 'methods.get-safe',
    exchangesPerCase: 8,
    isolation: 'quiet',
    level: 'MUST',
    clause: '4.1 rule 1',
    catches: 1,
    title: 'MUST change nothing on GET: the object and the count of its collection are the same after many GETs',
    appliesTo: (op, ctx) => op.method === 'GET' && namedCollection(ctx.model, op)?.read !== undefined,
    run: async (op, ctx) => {
      const c = namedCollection(ctx.model, op)!;
      const built = await ctx.validRequest(op);
      const readPath = built.request.path.startsWith(`${c.path}/`) && op === c.read ? built.request.path : undefined;
      const read = () => ctx.send(readPath ? readOf(c, readPath) : built.request);
      // Side by side where order says nothing: nothing that writes runs beside a quiet check, so the reads
      // before all GETs see one state, and the reads after the GETs another (three round trips, not nine).
      let lastMs = 0;
      const rounds = await untilNoChange(async () => {
        const [before, countBefore] = await Promise.all([read(), countOf(ctx, op)]);
        const started = Date.now();
        await Promise.all(Array.from({ length: 5 }, () => ctx.send(built.request, op)));
        lastMs = Date.now() - started;
        const [after, countAfter] = await Promise.all([read(), countOf(ctx, op)]);
        const diff = bodyDifference(before.json, after.json, volatileOf(ctx));
        if (diff)
          return fail('state.changed', diff.key, `the object changed after GETs: ${diff.text}`, [before, after]);
        if (countBefore === countAfter) return undefined;
        return fail(
          'state.changed',
          'count',
          `the count of ${c.path} changed from ${countBefore} to ${countAfter} after GETs`,
          [before, after],
          { countBefore, countAfter },
        );
      });
      const first = rounds.changed;
      if (!first) return pass(rounds.note);
      // A count that changed in every round: the GETs' doing, unless it changes as well with no GET between two
      // counts (a server whose services or other clients add to the collection all the time).
      if (first.status === 'failed' && first.failures[0].key === 'count') {
        const before = await countOf(ctx, op);
        await new Promise((r) => setTimeout(r, lastMs));
        const after = await countOf(ctx, op);
        if (before !== after)
          return skip(
            `the count of ${c.path} changed in each of ${REPEAT_ROUNDS} rounds of GETs, and from ${before} to ${after} with no GET between two counts: the collection moves by itself, and nothing tells a GET's change from the others'`,
          );
      }
      return first;
    },
  }),
  defineCheck({
    id: 'methods.get-ignores-body',
    exchangesPerCase: 2,
    isolation: 'quiet',
    level: 'MUST',
    clause: '4.1 rule 2',
    catches: 1,
    title: 'MUST answer a GET with a request body as it answers one without (GET takes nothing from the body)',
    appliesTo: (op) => op.method === 'GET',
    run: async (op, ctx) => {
      const built = await ctx.validRequest(op);
      const plain = await ctx.send(built.request, op);
      const withBody = await ctx.send(
        { ...built.request, json: { limit: 0, conformance: 'a GET body must be ignored' } },
        op,
      );
      return sameAnswer(plain, withBody, ctx, 'the body changed the answer') ?? pass();
    },
  }),
  defineCheck({
    id: 'methods.put-idempotent',
    exchangesPerCase: 3.7,
    isolation: 'alone',
    lane: relatedGroup,
    level: 'MUST',
    clause: '4.1 rule 1',
    catches: 1,
    title: 'MUST leave the same state and answer the same class of status when a PUT is applied twice',
    appliesTo: (op) => op.method === 'PUT',
    run: async (op, ctx) => {
      const built = await ctx.validRequest(op);
      const getSame = ctx.model.operations.find((o) => o.method === 'GET' && o.path === op.path);
      const state = async (answer: Exchange) =>
        getSame ? (await ctx.send({ ...built.request, method: 'GET', json: undefined })).json : answer.json;
      const first = await ctx.send(built.request, op);
      const s1 = await state(first);
      const second = await ctx.send(built.request, op);
      const s2 = await state(second);
      if (Math.floor(first.status / 100) !== Math.floor(second.status / 100))
        return fail('answer.differs', 'status', `first PUT ${first.status}, second ${second.status}`, [first, second], {
          statuses: [first.status, second.status],
        });
      const diff = bodyDifference(s1, s2, volatileOf(ctx));
      return diff
        ? fail('state.changed', diff.key, `the second PUT changed the state: ${diff.text}`, [first, second])
        : pass(`${first.status} then ${second.status}`);
    },
  }),
  defineCheck({
    id: 'methods.delete-then-404',
    exchangesPerCase: 8,
    isolation: 'alone',
    lane: relatedGroup,
    prepare: prepareDelete,
    level: 'MUST',
    clause: '4.1',
    title: 'MUST answer 404 to a GET of an object after its DELETE',
    appliesTo: isDeleteOfReadableObject,
    run: async (op, ctx) => {
      const s = await deleteScenario(ctx, op);
      if (!is2xx(s.first)) return unexpected('the DELETE of a fresh object', s.first);
      if (!s.readAfter) return skip('the collection offers no GET of one object');
      return s.readAfter.status === 404
        ? pass()
        : fail('state.changed', statusKey(s.readAfter), `GET after DELETE answered ${s.readAfter.status}`, [
            s.first,
            s.readAfter,
          ]);
    },
  }),
  defineCheck({
    id: 'methods.delete-twice-404',
    isolation: 'alone',
    lane: relatedGroup,
    prepare: prepareDelete,
    level: 'MUST',
    clause: '4.1 rule 1',
    catches: 1,
    title: 'MUST answer 404 to a second DELETE of the same object',
    appliesTo: isDeleteOfObject,
    run: async (op, ctx) => {
      const s = await deleteScenario(ctx, op);
      if (!is2xx(s.first)) return unexpected('the DELETE of a fresh object', s.first);
      return s.second.status === 404
        ? pass()
        : fail('status.unexpected', statusKey(s.second), `the second DELETE answered ${s.second.status}`, [
            s.first,
            s.second,
          ]);
    },
  }),
  defineCheck({
    id: 'methods.delete-only-target',
    isolation: 'alone',
    lane: relatedGroup,
    prepare: prepareDelete,
    level: 'MUST',
    clause: '4.1',
    catches: 1,
    title: 'MUST delete only the object named: the collection shrinks by one and other objects remain',
    appliesTo: isDeleteOfObservableObject,
    run: async (op, ctx) => {
      const s = await deleteScenario(ctx, op);
      if (!is2xx(s.first)) return unexpected('the DELETE of a fresh object', s.first);
      if (s.bystander && s.bystander.status !== 200)
        return fail(
          'state.changed',
          'bystander',
          `another object of the collection is gone after the DELETE: ${s.bystander.status}`,
          [s.first, s.bystander],
        );
      const { countBefore: before, countAfter: after } = s;
      if (before !== undefined && after !== undefined && after < before - 1)
        return fail('state.changed', 'count', `the count went from ${before} to ${after} for one DELETE`, [s.first], {
          countBefore: before,
          countAfter: after,
        });
      // A count that fell by less than one: objects were added beside the DELETE (a server's scheduler, another
      // client), or the target stayed (delete-then-404 judges that); either way it cannot show what else went.
      const note =
        before !== undefined && after !== undefined && after > before - 1
          ? `the count went from ${before} to ${after}, less than one fewer: objects were added beside the DELETE, or the target stayed (methods.delete-then-404 judges that), and the count cannot show what else the DELETE took`
          : undefined;
      if (s.bystander) return pass(note);
      if (note) return skip(note);
      return before !== undefined ? pass() : skip('the collection offers neither a read nor a count to see it');
    },
  }),
  defineCheck({
    id: 'methods.delete-gone-from-views',
    exchangesPerCase: 10,
    isolation: 'alone',
    lane: relatedGroup,
    prepare: prepareDelete,
    level: 'MUST',
    clause: '4.1; 4.3',
    catches: 1,
    title: "MUST leave a deleted object out of the collection's filter and paginate, and keep the others there",
    appliesTo: (op, ctx) => isDeleteOfObject(op, ctx) && viewsById(ctx, namedCollection(ctx.model, op)!).length > 0,
    run: async (op, ctx) => {
      const s = await deleteScenario(ctx, op);
      if (!is2xx(s.first)) return unexpected('the DELETE of a fresh object', s.first);
      if (s.views.length === 0) return skip("the objects' ids are not known to select them by");
      for (const v of s.views) {
        if (!is2xx(v.exchange)) return unexpected(`the ${v.name} by id after the DELETE`, v.exchange);
        const ids = idsIn(v.exchange.json);
        if (ids.includes(v.target))
          return fail('state.changed', v.name, `the ${v.name} by id still answers the deleted object`, [
            s.first,
            v.exchange,
          ]);
        if (!ids.includes(v.bystander))
          return fail('state.changed', `${v.name} bystander`, `the ${v.name} by id lost another object too`, [
            s.first,
            v.exchange,
          ]);
      }
      return pass(s.views.map((v) => v.name).join(' and '));
    },
  }),
  defineCheck({
    id: 'methods.patch-partial',
    exchangesPerCase: 10,
    level: 'MUST',
    clause: '4.1',
    catches: 1,
    title: 'MUST change only the fields a PATCH names, for every field PATCH can change and for the valid request',
    appliesTo: (op, ctx) => op.method === 'PATCH' && namedCollection(ctx.model, op)?.read !== undefined,
    run: async (op, ctx) => {
      const c = namedCollection(ctx.model, op)!;
      const obj = await ctx.object(c.path, 'fresh');
      const read = async () => ctx.send(readOf(c, await ctx.itemPath(c, obj)));
      const first = await read();
      const schema = ctx.model.recordOf(op).bodySchema;
      const props = ((schema && resolveRef<Obj>(ctx.model.doc, schema).properties) ?? {}) as Obj;
      const built = await ctx.validRequest(op);
      // The field the path names is left alone: a PATCH that renamed it would lose the object for the next.
      const pathField = ctx.model.recordOf(op).named!.ref.field;
      const { [pathField]: _renamed, ...recipe } =
        built.request.json && typeof built.request.json === 'object' ? (built.request.json as Obj) : {};
      const patches: Array<{ body: Obj; what: string; applied?: [string, unknown] }> = [
        ...patchFields((first.json ?? {}) as Obj, props, ctx.settings.runTag)
          .filter(([field]) => field !== pathField)
          .map(([field, value]) => ({
            body: { [field]: value },
            what: `PATCH of ${field}`,
            applied: [field, value] as [string, unknown],
          })),
        { body: recipe, what: `the valid PATCH ${JSON.stringify(recipe).slice(0, 80)}` },
      ];
      if (patches.length === 1 && Object.keys(recipe).length === 0)
        return skip('no field PATCH can change that a read shows, and the valid request names none');
      const target = { ...built.request, path: pathNaming(built.request, obj[pathField]) };
      // The fields the server maintains: the profile's volatile ones, those two reads with no write between
      // answer differently, and those the profile says the server derives from the field a PATCH names.
      let before = await read();
      const bySelf = differences(first.json, before.json).map((d) => d.path.split('/')[1]);
      const failures: Failure[] = [];
      const [judged, refused]: string[][] = [[], []];
      for (const { body, what, applied } of patches) {
        const patched = await ctx.send({ ...target, json: body }, op);
        // A value of the check's choosing may break a rule of the server's (a template's shape, a run's state):
        // its refusal is not this rule's to judge. The valid request's refusal, or a server error, is.
        if (applied && patched.status >= 400 && patched.status < 500) {
          refused.push(`${applied[0]} (${patched.status})`);
          continue;
        }
        if (!is2xx(patched)) {
          failures.push(unexpectedAnswer(what, patched));
          continue;
        }
        const after = await read();
        const named = Object.keys(body);
        judged.push(named.join('+') || '{}');
        if (applied) {
          const [field, value] = applied;
          const now = ((after.json ?? {}) as Obj)[field];
          if (JSON.stringify(now) !== JSON.stringify(value))
            failures.push(
              failure(
                'state.changed',
                `/${field}`,
                `${field} is ${JSON.stringify(now)} after PATCH to ${JSON.stringify(value)}`,
                [patched, after],
              ),
            );
        }
        const derived = named.flatMap((f) => ctx.profile.derivedFields?.[f] ?? []);
        const left = new Set([...volatileOf(ctx), ...bySelf, ...named, ...derived]);
        const diff = bodyDifference(before.json, after.json, left);
        if (diff)
          failures.push(
            failure('state.changed', diff.key, `${what} changed fields it does not name: ${diff.text}`, [
              before,
              patched,
              after,
            ]),
          );
        before = after;
      }
      if (failures.length) return failAll(failures);
      const notJudged = refused.length ? `; refused, so not judged: ${refused.join(', ')}` : '';
      return pass(`${judged.length} PATCHes changed only what each named (${judged.join(', ')})${notJudged}`);
    },
  }),
  defineCheck({
    id: 'methods.create-stored',
    exchangesPerCase: 2,
    level: 'MUST',
    clause: '4.1 (POST /collection creates a new member)',
    catches: 1,
    title:
      'MUST store the member a create answers: a GET of it right after agrees with the answer and with the fields the request set',
    appliesTo: (op, ctx) => {
      const c = ctx.model.collectionOf(op);
      return c?.create === op && c.read !== undefined && c.item !== undefined;
    },
    run: async (op, ctx) => {
      const c = ctx.model.collectionOf(op)!;
      const built = await ctx.validRequest(op);
      const created = await ctx.send(built.request, op);
      if (!is2xx(created)) return unexpected('the valid create', created);
      const sent = (built.request.json ?? {}) as Obj;
      // A create that answers no body is read by the identifier its request named (a flow run input's key).
      const answered = created.json && typeof created.json === 'object' ? (created.json as Obj) : undefined;
      const id = answered?.[c.idField] ?? (answered ? undefined : sent[c.idField]);
      if (id === undefined)
        return fail('answer.differs', `/${c.idField}`, `the create answered no ${c.idField} to read it by`, [created]);
      const read = await ctx.send(readOf(c, await ctx.itemPath(c, { ...answered, [c.idField]: id })));
      if (read.status !== 200)
        return fail('state.changed', statusKey(read), `a GET of the member just created answered ${read.status}`, [
          created,
          read,
        ]);
      const failures: Failure[] = [];
      // The create and the read may answer different views of the member (a v2 concurrency limit's create
      // adds its slot statistics): the fields both show must agree.
      const both = (a: Obj, b: Obj) => Object.fromEntries(Object.entries(a).filter(([k]) => k in b));
      const stored = (read.json ?? {}) as Obj;
      const diff = answered && bodyDifference(both(answered, stored), both(stored, answered), volatileOf(ctx));
      if (diff)
        failures.push(
          failure('answer.differs', diff.key, `the create answered what a GET of it does not: ${diff.text}`, [
            created,
            read,
          ]),
        );
      const lost = Object.keys(sent).filter((k) => k in stored && !storedAsSent(sent[k], stored[k]));
      if (lost.length)
        failures.push(
          failure(
            'state.changed',
            lost.map((k) => `/${k}`).join(' '),
            `the member stored differs from what the create set: ${lost
              .map(
                (k) =>
                  `${k} sent ${JSON.stringify(sent[k])?.slice(0, 60)}, read ${JSON.stringify(stored[k])?.slice(0, 60)}`,
              )
              .join('; ')}`,
            [created, read],
          ),
        );
      return failures.length
        ? failAll(failures)
        : pass(`stored as created (${Object.keys(sent).join(', ') || 'no field'} set)`);
    },
  }),
  defineCheck({
    id: 'methods.upsert',
    exchangesPerCase: 2,
    level: 'MAY',
    clause:
      "open: POST need not be idempotent (4.1 rule 1), so an upsert is the target's choice, reported where its profile documents one; 4.1 rule 1; profile (the target documents the upsert)",
    title: 'MAY upsert: a create the target documents as an upsert returns the same object for the same key',
    appliesTo: (op, ctx) => op.key in (ctx.profile.upserts ?? {}),
    run: async (op, ctx) => {
      const built = await ctx.validRequest(op);
      const first = await ctx.send(built.request, op);
      const second = await ctx.send(built.request, op);
      if (!is2xx(first) || !is2xx(second)) return unexpected('the upsert', is2xx(first) ? second : first);
      const [a, b] = [(first.json as Obj)?.id, (second.json as Obj)?.id];
      return a === b
        ? pass(`the same ${ctx.profile.upserts![op.key].join('+')} gave the same id`)
        : fail('answer.differs', '/id', `the same key gave ids ${a} and ${b}`, [first, second]);
    },
  }),
  defineCheck({
    id: 'methods.upsert-concurrent',
    exchangesPerCase: 2,
    level: 'SHOULD',
    clause:
      'open: no source says what two upserts of one key sent at once make: a second member is reported, not gated; 4.1 rule 1; profile (the target documents the upsert)',
    title: 'SHOULD make one member of two upserts of the same key sent at once',
    appliesTo: (op, ctx) => op.key in (ctx.profile.upserts ?? {}),
    run: async (op, ctx) => {
      const built = await ctx.validRequest(op);
      // Two clients registering the same flow (or deployment) at the same moment.
      const [first, second] = await Promise.all([0, 1].map(() => ctx.send({ ...built.request, racing: true }, op)));
      const refused = is2xx(first) ? second : first;
      if (refused.status === 503) return skip('the server stayed unavailable (503) for an upsert of the race');
      if (!is2xx(refused)) return unexpected('an upsert raced by another', refused);
      const [a, b] = [(first.json as Obj)?.id, (second.json as Obj)?.id];
      return a === b
        ? pass(`two at once gave the one id ${a}`)
        : fail('answer.differs', '/id', `two upserts of the same key at once made two members: ${a} and ${b}`, [
            first,
            second,
          ]);
    },
  }),
  defineCheck({
    id: 'methods.405',
    level: 'SHOULD',
    clause: 'RFC 9110 §9.1; 4.1',
    catches: 2,
    title: 'SHOULD answer 405 to a method the path does not offer',
    appliesTo: probes405,
    run: async (op, ctx) => {
      const ex = await answerTo405Probe(ctx, op);
      return ex.status === 405
        ? pass(`${ex.method} answered 405`)
        : fail(
            'status.unexpected',
            statusKey(ex),
            `${ex.method} ${op.path}, which the document does not offer, answered ${ex.status || ex.error}`,
            [ex],
            { method: ex.method },
          );
    },
  }),
  defineCheck({
    id: 'methods.405-allow',
    level: 'MUST',
    clause: 'RFC 9110 §15.5.6; 4.1',
    catches: 1,
    title: 'MUST list in Allow every method the path offers, with a 405',
    appliesTo: probes405,
    run: async (op, ctx) => {
      const ex = await answerTo405Probe(ctx, op);
      if (ex.status !== 405) return skip(`no 405 to look at (answered ${ex.status})`);
      const allowed = (ex.responseHeaders.allow ?? '').split(',').map((m) => m.trim().toUpperCase());
      const allow = new Set(allowed.filter((m) => m && m !== 'HEAD' && m !== 'OPTIONS'));
      const missing = [...notOffered(op, ctx).offered].filter((m) => !allow.has(m));
      return missing.length === 0
        ? pass(`Allow: ${ex.responseHeaders.allow}`)
        : fail(
            'header.incomplete',
            'allow',
            `Allow is "${ex.responseHeaders.allow ?? ''}"; the path also offers ${missing.join(', ')}`,
            [ex],
            { missing },
          );
    },
  }),
];
