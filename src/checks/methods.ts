/**
 * Family `methods`: the verb semantics of spec §4.1. GET, PUT and DELETE are idempotent; GET takes
 * nothing from the body and changes nothing; DELETE removes exactly its object; PATCH changes only what
 * it names; a method a path does not offer gets 405.
 */
import type { RequestSpec } from '../http/client.js';
import type { Session } from '../run/session.js';
import { namedParam } from '../model/model.js';
import { jsonBodySchema, resolveRef, type Operation } from '../spec/operations.js';
import { differences, freshObject, is2xx, itemPath, masked, namedCollection, probing, readSpec, recipe, send, Skip, unexpected, type Obj } from './probe.js';
import { fail, pass, skip, type Check, type Verdict } from './types.js';

const volatileOf = (session: Session) => new Set(['updated', ...(session.cases.profile.volatileFields ?? [])]);

async function countOf(session: Session, op: Operation): Promise<number | undefined> {
  const c = session.model.collectionOf(op);
  if (!c?.count || c.parentParams.length > 0) return undefined;
  const ex = await send(session, undefined, { method: 'POST', template: c.count.path, path: c.count.path, json: {} });
  return is2xx(ex) && typeof ex.json === 'number' ? ex.json : undefined;
}

/** One DELETE scenario per operation, shared by the three DELETE checks. */
const deleteScenarios = new WeakMap<Operation, Promise<DeleteScenario>>();
interface DeleteScenario {
  first: Awaited<ReturnType<typeof send>>;
  readAfter?: Awaited<ReturnType<typeof send>>;
  second: Awaited<ReturnType<typeof send>>;
  countBefore?: number;
  countAfter?: number;
  bystander?: Awaited<ReturnType<typeof send>>;
}

function deleteScenario(session: Session, op: Operation): Promise<DeleteScenario> {
  let s = deleteScenarios.get(op);
  if (!s) {
    s = (async () => {
      const c = namedCollection(session, op);
      if (!c) throw new Skip('the path names no object of a collection');
      const [target, bystander] = [await freshObject(session, c), await freshObject(session, c)];
      const field = namedParam(session.model, op)!.ref.field;
      const built = await recipe(session, op);
      const path = built.spec.path.replace(/[^/]+$/, encodeURIComponent(String(target[field])));
      const countBefore = await countOf(session, op);
      const first = await send(session, op, { ...built.spec, path });
      const readAfter = c.read ? await send(session, undefined, readSpec(c, await itemPath(session, c, target))) : undefined;
      const second = await send(session, op, { ...built.spec, path });
      const countAfter = await countOf(session, op);
      const bystanderRead = c.read ? await send(session, undefined, readSpec(c, await itemPath(session, c, bystander))) : undefined;
      return { first, readAfter, second, countBefore, countAfter, bystander: bystanderRead };
    })();
    deleteScenarios.set(op, s);
  }
  return s;
}

const isDeleteOfObject = (op: Operation, session: Session) => op.method === 'DELETE' && namedCollection(session, op) !== undefined;

/** A field PATCH can change that the object shows, and a new value for it. */
function patchField(body: Obj | undefined, current: Obj, schemaProps: Obj, session: Session): [string, unknown] | undefined {
  const tag = session.config.runTag;
  for (const [field, value] of [
    ['description', `${tag} patched`],
    ['tags', [tag, `${tag}-patched`]],
  ] as Array<[string, unknown]>)
    if (field in schemaProps && field in current) return [field, value];
  for (const field of Object.keys(schemaProps)) {
    if (!(field in current) || (body && field in body)) continue;
    if (typeof current[field] === 'boolean') return [field, !current[field]];
  }
  return undefined;
}

export const methodsChecks: Array<Check<Session>> = [
  {
    id: 'methods.get-repeatable',
    family: 'methods',
    level: 'MUST',
    clause: '4.1 rule 1',
    title: 'MUST answer a repeated GET with the same status and body (GET is idempotent)',
    appliesTo: (op) => op.method === 'GET',
    run: (op, session) =>
      probing(async () => {
        const built = await recipe(session, op);
        const answers = [];
        for (let i = 0; i < 3; i++) answers.push(await send(session, op, built.spec));
        const volatile = volatileOf(session);
        for (const later of answers.slice(1)) {
          if (later.status !== answers[0].status) return fail(`status changed from ${answers[0].status} to ${later.status}`, [answers[0], later]);
          const diff = differences(masked(answers[0].json ?? answers[0].body, volatile), masked(later.json ?? later.body, volatile));
          if (diff.length) return fail(`body changed between identical GETs: ${diff.join('; ')}`, [answers[0], later]);
        }
        return pass(`3 GETs answered ${answers[0].status} alike`);
      }),
  },
  {
    id: 'methods.get-safe',
    family: 'methods',
    level: 'MUST',
    clause: '4.1 rule 1',
    title: 'MUST change nothing on GET: the object and the count of its collection are the same after many GETs',
    appliesTo: (op, session) => op.method === 'GET' && namedCollection(session, op)?.read !== undefined,
    run: (op, session) =>
      probing(async () => {
        const c = namedCollection(session, op)!;
        const built = await recipe(session, op);
        const readPath = built.spec.path.startsWith(c.path + '/') && op === c.read ? built.spec.path : undefined;
        const read = () => send(session, undefined, readPath ? readSpec(c, readPath) : built.spec);
        const [before, countBefore] = [await read(), await countOf(session, op)];
        for (let i = 0; i < 5; i++) await send(session, op, built.spec);
        const [after, countAfter] = [await read(), await countOf(session, op)];
        const diff = differences(masked(before.json, volatileOf(session)), masked(after.json, volatileOf(session)));
        if (diff.length) return fail(`the object changed after GETs: ${diff.join('; ')}`, [before, after]);
        if (countBefore !== countAfter) return fail(`the count of ${c.path} changed from ${countBefore} to ${countAfter} after GETs`, [before, after]);
        return pass();
      }),
  },
  {
    id: 'methods.get-ignores-body',
    family: 'methods',
    level: 'MUST',
    clause: '4.1 rule 2',
    title: 'MUST answer a GET with a request body as it answers one without (GET takes nothing from the body)',
    appliesTo: (op) => op.method === 'GET',
    run: (op, session) =>
      probing(async () => {
        const built = await recipe(session, op);
        const plain = await send(session, op, built.spec);
        const withBody = await send(session, op, { ...built.spec, json: { limit: 0, conformance: 'a GET body must be ignored' } });
        if (plain.status !== withBody.status) return fail(`status ${plain.status} without a body, ${withBody.status} with one`, [plain, withBody]);
        const diff = differences(masked(plain.json ?? plain.body, volatileOf(session)), masked(withBody.json ?? withBody.body, volatileOf(session)));
        return diff.length ? fail(`the body changed the answer: ${diff.join('; ')}`, [plain, withBody]) : pass();
      }),
  },
  {
    id: 'methods.put-idempotent',
    family: 'methods',
    level: 'MUST',
    clause: '4.1 rule 1',
    title: 'MUST leave the same state and answer the same class of status when a PUT is applied twice',
    appliesTo: (op) => op.method === 'PUT',
    run: (op, session) =>
      probing(async () => {
        const built = await recipe(session, op);
        const getSame = session.model.operations.find((o) => o.method === 'GET' && o.path === op.path);
        const state = async (answer: Awaited<ReturnType<typeof send>>) =>
          getSame ? (await send(session, undefined, { ...built.spec, method: 'GET', json: undefined })).json : answer.json;
        const first = await send(session, op, built.spec);
        const s1 = await state(first);
        const second = await send(session, op, built.spec);
        const s2 = await state(second);
        if (Math.floor(first.status / 100) !== Math.floor(second.status / 100)) return fail(`first PUT ${first.status}, second ${second.status}`, [first, second]);
        const diff = differences(masked(s1, volatileOf(session)), masked(s2, volatileOf(session)));
        return diff.length ? fail(`the second PUT changed the state: ${diff.join('; ')}`, [first, second]) : pass(`${first.status} then ${second.status}`);
      }),
  },
  {
    id: 'methods.delete-then-404',
    family: 'methods',
    level: 'MUST',
    clause: '4.1',
    title: 'MUST answer 404 to a GET of an object after its DELETE',
    appliesTo: isDeleteOfObject,
    run: (op, session) =>
      probing(async () => {
        const s = await deleteScenario(session, op);
        if (!is2xx(s.first)) return unexpected('the DELETE of a fresh object', s.first);
        if (!s.readAfter) return skip('the collection offers no GET of one object');
        return s.readAfter.status === 404 ? pass() : fail(`GET after DELETE answered ${s.readAfter.status}`, [s.first, s.readAfter]);
      }),
  },
  {
    id: 'methods.delete-twice-404',
    family: 'methods',
    level: 'MUST',
    clause: '4.1 rule 1',
    title: 'MUST answer 404 to a second DELETE of the same object',
    appliesTo: isDeleteOfObject,
    run: (op, session) =>
      probing(async () => {
        const s = await deleteScenario(session, op);
        if (!is2xx(s.first)) return unexpected('the DELETE of a fresh object', s.first);
        return s.second.status === 404 ? pass() : fail(`the second DELETE answered ${s.second.status}`, [s.first, s.second]);
      }),
  },
  {
    id: 'methods.delete-only-target',
    family: 'methods',
    level: 'MUST',
    clause: '4.1',
    title: 'MUST delete only the object named: the collection shrinks by one and other objects remain',
    appliesTo: isDeleteOfObject,
    run: (op, session) =>
      probing(async () => {
        const s = await deleteScenario(session, op);
        if (!is2xx(s.first)) return unexpected('the DELETE of a fresh object', s.first);
        if (s.bystander && s.bystander.status !== 200) return fail(`another object of the collection is gone after the DELETE: ${s.bystander.status}`, [s.first, s.bystander]);
        if (s.countBefore !== undefined && s.countAfter !== undefined && s.countAfter !== s.countBefore - 1)
          return fail(`the count went from ${s.countBefore} to ${s.countAfter} for one DELETE`, [s.first]);
        return s.bystander || s.countBefore !== undefined ? pass() : skip('the collection offers neither a read nor a count to see it');
      }),
  },
  {
    id: 'methods.patch-partial',
    family: 'methods',
    level: 'MUST',
    clause: '4.1',
    title: 'MUST change only the fields a PATCH names',
    appliesTo: (op, session) => op.method === 'PATCH' && namedCollection(session, op)?.read !== undefined,
    run: (op, session) =>
      probing(async () => {
        const c = namedCollection(session, op)!;
        const obj = await freshObject(session, c);
        const path = await itemPath(session, c, obj);
        const before = await send(session, undefined, readSpec(c, path));
        const schema = jsonBodySchema(op);
        const props = ((schema && resolveRef<Obj>(session.model.doc, schema).properties) ?? {}) as Obj;
        const change = patchField(undefined, (before.json ?? {}) as Obj, props, session);
        if (!change) return skip('no field PATCH can change that a read shows');
        const built = await recipe(session, op);
        const field = namedParam(session.model, op)!.ref.field;
        const spec: RequestSpec = { ...built.spec, path: built.spec.path.replace(/[^/]+$/, encodeURIComponent(String(obj[field]))), json: { [change[0]]: change[1] } };
        const patched = await send(session, op, spec);
        if (!is2xx(patched)) return unexpected(`PATCH of ${change[0]}`, patched);
        const after = await send(session, undefined, readSpec(c, path));
        const a = (after.json ?? {}) as Obj;
        if (JSON.stringify(a[change[0]]) !== JSON.stringify(change[1])) return fail(`${change[0]} is ${JSON.stringify(a[change[0]])} after PATCH to ${JSON.stringify(change[1])}`, [patched, after]);
        const volatile = new Set([...volatileOf(session), change[0]]);
        const diff = differences(masked(before.json, volatile), masked(after.json, volatile));
        return diff.length ? fail(`PATCH of ${change[0]} changed other fields: ${diff.join('; ')}`, [before, patched, after]) : pass(`PATCH changed ${change[0]} only`);
      }),
  },
  {
    id: 'methods.upsert',
    family: 'methods',
    level: 'MAY',
    clause: '4.1 rule 1 (POST is not required to be idempotent); the profile documents the upsert',
    title: 'MAY upsert: a create the target documents as an upsert returns the same object for the same key',
    appliesTo: (op, session) => op.key in (session.cases.profile.upserts ?? {}),
    run: (op, session) =>
      probing(async () => {
        const built = await recipe(session, op);
        const first = await send(session, op, built.spec);
        const second = await send(session, op, built.spec);
        if (!is2xx(first) || !is2xx(second)) return unexpected('the upsert', is2xx(first) ? second : first);
        const [a, b] = [(first.json as Obj)?.id, (second.json as Obj)?.id];
        return a === b ? pass(`the same ${session.cases.profile.upserts![op.key].join('+')} gave the same id`) : fail(`the same key gave ids ${a} and ${b}`, [first, second]);
      }),
  },
  ...methodNotAllowedChecks(),
];

const PROBE_ORDER = ['GET', 'PUT', 'PATCH', 'DELETE', 'POST'];

function firstOfPath(op: Operation, session: Session): boolean {
  return session.model.operations.find((o) => o.path === op.path) === op;
}

function templateMatches(template: string, path: string): boolean {
  return new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path);
}

function probeFor(op: Operation, session: Session) {
  const offered = new Set(session.model.operations.filter((o) => o.path === op.path).map((o) => o.method));
  // Path parameters name nothing, so that a route the document does not list can do no harm.
  const path = op.path.replace(/\{[^}]+\}/g, '5f0e0c6a-0000-4000-8000-00000000beef');
  // `GET /work_pools/count` is `GET /work_pools/{name}` for name "count": a method another template serves is offered.
  const servedElsewhere = (m: string) => session.model.operations.some((o) => o.method === m && o.path !== op.path && templateMatches(o.path, path));
  const method = PROBE_ORDER.find((m) => !offered.has(m) && !servedElsewhere(m));
  return { method, offered, path };
}

const notAllowed = new WeakMap<Operation, Promise<Awaited<ReturnType<typeof send>>>>();

function methodNotAllowedChecks(): Array<Check<Session>> {
  const answer = (op: Operation, session: Session) => {
    let p = notAllowed.get(op);
    if (!p) {
      const { method, path } = probeFor(op, session);
      p = send(session, undefined, { method: method!, template: op.path, path, json: method === 'GET' ? undefined : {} });
      notAllowed.set(op, p);
    }
    return p;
  };
  return [
    {
      id: 'methods.405',
      family: 'methods',
      level: 'SHOULD',
      clause: '4.1',
      title: 'SHOULD answer 405 to a method the path does not offer',
      appliesTo: (op, session) => firstOfPath(op, session) && probeFor(op, session).method !== undefined,
      run: (op, session) =>
        probing(async (): Promise<Verdict> => {
          const ex = await answer(op, session);
          return ex.status === 405 ? pass(`${ex.method} answered 405`) : fail(`${ex.method} ${op.path}, which the document does not offer, answered ${ex.status || ex.error}`, [ex]);
        }),
    },
    {
      id: 'methods.405-allow',
      family: 'methods',
      level: 'SHOULD',
      clause: '4.1; RFC 9110 §15.5.6',
      title: 'SHOULD list in Allow every method the path offers, with a 405',
      appliesTo: (op, session) => firstOfPath(op, session) && probeFor(op, session).method !== undefined,
      run: (op, session) =>
        probing(async (): Promise<Verdict> => {
          const ex = await answer(op, session);
          if (ex.status !== 405) return skip(`no 405 to look at (answered ${ex.status})`);
          const allow = new Set((ex.responseHeaders.allow ?? '').split(',').map((m) => m.trim().toUpperCase()).filter((m) => m && m !== 'HEAD' && m !== 'OPTIONS'));
          const offered = probeFor(op, session).offered;
          const missing = [...offered].filter((m) => !allow.has(m));
          return missing.length === 0 ? pass(`Allow: ${ex.responseHeaders.allow}`) : fail(`Allow is "${ex.responseHeaders.allow ?? ''}"; the path also offers ${missing.join(', ')}`, [ex]);
        }),
    },
  ];
}
