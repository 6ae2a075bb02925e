/**
 * Family `methods`: the verb semantics of spec §4.1. GET, PUT and DELETE are idempotent; GET takes
 * nothing from the body and changes nothing; DELETE removes exactly its object; PATCH changes only what
 * it names; a method a path does not offer gets 405.
 */
import type { Exchange } from '../http/client.js';
import { namedCollection, namedParam, type Collection } from '../model/model.js';
import type { Obj } from '../model/oracle.js';
import { UNKNOWN_UUID } from '../model/profiles/profile.js';
import { jsonBodySchema, resolveRef, type Operation } from '../openapi/operations.js';
import { is2xx, type RequestToSend } from '../openapi/request.js';
import { bodyDifference } from './bodies.js';
import { defineCheck } from './check.js';
import type { CheckContext } from './context.js';
import { once } from './once.js';
import { fail, pass, skip, Skip, statusKey, unexpected, type Verdict } from './verdict.js';

const volatileOf = (ctx: CheckContext) => new Set(['updated', ...(ctx.profile.volatileFields ?? [])]);

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
}

/** One DELETE scenario per operation, judged by the three DELETE checks. */
function deleteScenario(ctx: CheckContext, op: Operation): Promise<DeleteScenario> {
  return once(ctx, `delete ${op.key}`, async () => {
    const c = namedCollection(ctx.model, op);
    if (!c) throw new Skip('the path names no object of a collection');
    const { param, ref } = namedParam(ctx.model, op)!;
    const field = ref.field;
    // The recipe of a DELETE names a fresh object made for it: that object is the target, rather than one more.
    const built = await ctx.validRequest(op);
    const named = built.pathParams[param];
    const target = field === c.idField && named !== undefined ? { [field]: named } : await ctx.object(c.path, 'fresh');
    const bystander = await ctx.object(c.path, 'fresh');
    const request = { ...built.request, path: pathNaming(built.request, target[field]) };
    const countBefore = await countOf(ctx, op);
    const first = await ctx.send(request, op);
    const readAfter = c.read ? await ctx.send(readOf(c, await ctx.itemPath(c, target))) : undefined;
    const second = await ctx.send(request, op);
    const countAfter = await countOf(ctx, op);
    const bystanderRead = c.read ? await ctx.send(readOf(c, await ctx.itemPath(c, bystander))) : undefined;
    return { first, readAfter, second, countBefore, countAfter, bystander: bystanderRead };
  });
}

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

/** A field PATCH can change that the object shows, and a new value for it. */
export function patchField(current: Obj, schemaProps: Obj, tag: string): [string, unknown] | undefined {
  for (const [field, value] of [
    ['description', `${tag} patched`],
    ['tags', [tag, `${tag}-patched`]],
  ] as Array<[string, unknown]>)
    if (field in schemaProps && field in current) return [field, value];
  for (const field of Object.keys(schemaProps))
    if (field in current && typeof current[field] === 'boolean') return [field, !current[field]];
  // Else a string the schema leaves free (no format, pattern, enum or const): a task run's name.
  for (const [field, schema] of Object.entries(schemaProps))
    if (field in current && typeof current[field] === 'string' && freeString(schema)) return [field, `${tag}-patched`];
  return undefined;
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
    return ctx.send({ method: method!, template: op.path, path, json: method === 'GET' ? undefined : {} });
  });
}

export const methodsChecks = [
  defineCheck({
    id: 'methods.get-repeatable',
    isolation: 'quiet',
    level: 'MUST',
    clause: '4.1 rule 1',
    title: 'MUST answer a repeated GET with the same status and body (GET is idempotent)',
    appliesTo: (op) => op.method === 'GET',
    run: async (op, ctx) => {
      const built = await ctx.validRequest(op);
      const answers: Exchange[] = [];
      for (let i = 0; i < 3; i++) answers.push(await ctx.send(built.request, op));
      for (const later of answers.slice(1)) {
        const differs = sameAnswer(answers[0], later, ctx, 'identical GETs answered differently');
        if (differs) return differs;
      }
      return pass(`3 GETs answered ${answers[0].status} alike`);
    },
  }),
  defineCheck({
    id: 'methods.get-safe',
    isolation: 'quiet',
    level: 'MUST',
    clause: '4.1 rule 1',
    title: 'MUST change nothing on GET: the object and the count of its collection are the same after many GETs',
    appliesTo: (op, ctx) => op.method === 'GET' && namedCollection(ctx.model, op)?.read !== undefined,
    run: async (op, ctx) => {
      const c = namedCollection(ctx.model, op)!;
      const built = await ctx.validRequest(op);
      const readPath = built.request.path.startsWith(`${c.path}/`) && op === c.read ? built.request.path : undefined;
      const read = () => ctx.send(readPath ? readOf(c, readPath) : built.request);
      const [before, countBefore] = [await read(), await countOf(ctx, op)];
      for (let i = 0; i < 5; i++) await ctx.send(built.request, op);
      const [after, countAfter] = [await read(), await countOf(ctx, op)];
      const diff = bodyDifference(before.json, after.json, volatileOf(ctx));
      if (diff) return fail('state.changed', diff.key, `the object changed after GETs: ${diff.text}`, [before, after]);
      if (countBefore !== countAfter)
        return fail(
          'state.changed',
          'count',
          `the count of ${c.path} changed from ${countBefore} to ${countAfter} after GETs`,
          [before, after],
          { countBefore, countAfter },
        );
      return pass();
    },
  }),
  defineCheck({
    id: 'methods.get-ignores-body',
    isolation: 'quiet',
    level: 'MUST',
    clause: '4.1 rule 2',
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
    isolation: 'alone',
    level: 'MUST',
    clause: '4.1 rule 1',
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
    isolation: 'alone',
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
    level: 'MUST',
    clause: '4.1 rule 1',
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
    level: 'MUST',
    clause: '4.1',
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
      if (s.countBefore !== undefined && s.countAfter !== undefined && s.countAfter !== s.countBefore - 1)
        return fail(
          'state.changed',
          'count',
          `the count went from ${s.countBefore} to ${s.countAfter} for one DELETE`,
          [s.first],
          { countBefore: s.countBefore, countAfter: s.countAfter },
        );
      return s.bystander || s.countBefore !== undefined
        ? pass()
        : skip('the collection offers neither a read nor a count to see it');
    },
  }),
  defineCheck({
    id: 'methods.patch-partial',
    level: 'MUST',
    clause: '4.1',
    title: 'MUST change only the fields a PATCH names',
    appliesTo: (op, ctx) => op.method === 'PATCH' && namedCollection(ctx.model, op)?.read !== undefined,
    run: async (op, ctx) => {
      const c = namedCollection(ctx.model, op)!;
      const obj = await ctx.object(c.path, 'fresh');
      const path = await ctx.itemPath(c, obj);
      const before = await ctx.send(readOf(c, path));
      const schema = jsonBodySchema(op);
      const props = ((schema && resolveRef<Obj>(ctx.model.doc, schema).properties) ?? {}) as Obj;
      const change = patchField((before.json ?? {}) as Obj, props, ctx.settings.runTag);
      if (!change) return skip('no field PATCH can change that a read shows');
      const [field, value] = change;
      const built = await ctx.validRequest(op);
      const named = namedParam(ctx.model, op)!.ref.field;
      const patched = await ctx.send(
        { ...built.request, path: pathNaming(built.request, obj[named]), json: { [field]: value } },
        op,
      );
      if (!is2xx(patched)) return unexpected(`PATCH of ${field}`, patched);
      const after = await ctx.send(readOf(c, path));
      const now = ((after.json ?? {}) as Obj)[field];
      if (JSON.stringify(now) !== JSON.stringify(value))
        return fail(
          'state.changed',
          `/${field}`,
          `${field} is ${JSON.stringify(now)} after PATCH to ${JSON.stringify(value)}`,
          [patched, after],
        );
      const diff = bodyDifference(before.json, after.json, new Set([...volatileOf(ctx), field]));
      return diff
        ? fail('state.changed', diff.key, `PATCH of ${field} changed other fields: ${diff.text}`, [
            before,
            patched,
            after,
          ])
        : pass(`PATCH changed ${field} only`);
    },
  }),
  defineCheck({
    id: 'methods.upsert',
    level: 'MAY',
    clause: '4.1 rule 1 (POST is not required to be idempotent); profile (the target documents the upsert)',
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
    id: 'methods.405',
    level: 'SHOULD',
    clause: '4.1',
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
    level: 'SHOULD',
    clause: '4.1; RFC 9110 §15.5.6',
    title: 'SHOULD list in Allow every method the path offers, with a 405',
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
