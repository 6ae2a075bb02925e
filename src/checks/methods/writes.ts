/** The `methods` checks of PUT and PATCH (spec §4.1): idempotent, partial; and upserts. */
import { namedCollection } from '../../model/model.js';
import type { Obj } from '../../openapi/json.js';
import { resolveRef, type Operation } from '../../openapi/operations.js';
import { is2xx } from '../../openapi/request.js';
import { bodyDifference, differences, volatileOf } from '../core/bodies.js';
import { isLoadAnswer, pastLoad } from '../core/load.js';
import type { CheckContext, Exchange } from '../core/context.js';
import {
  fail,
  failAll,
  failure,
  pass,
  skip,
  unexpected,
  unexpectedAnswer,
  type Failure,
  type Verdict,
} from '../core/verdict.js';
import { pathNaming, readOf } from './shared.js';

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

/** The same PUT twice: the same class of status, and the same state after. */
export async function putIdempotent(op: Operation, ctx: CheckContext): Promise<Verdict> {
  const built = await ctx.validRequest(op);
  const getSame = ctx.model.operations.find((o) => o.method === 'GET' && o.path === op.path);
  const state = async (answer: Exchange) =>
    getSame ? ctx.send({ ...built.request, method: 'GET', json: undefined }) : answer;
  // A busy answer to either PUT (or its read) says nothing of the second PUT: both are sent again (checks/core/load.ts).
  const pair = await pastLoad(async () => {
    const first = await ctx.send(built.request, op);
    const read1 = await state(first);
    const second = await ctx.send(built.request, op);
    return [first, second, read1, await state(second)];
  }, 'two identical PUTs');
  if (typeof pair === 'string') return skip(pair);
  const [first, second, { json: s1 }, { json: s2 }] = pair;
  if (Math.floor(first.status / 100) !== Math.floor(second.status / 100))
    return fail('answer.differs', 'status', `first PUT ${first.status}, second ${second.status}`, [first, second], {
      statuses: [first.status, second.status],
    });
  const diff = bodyDifference(s1, s2, volatileOf(ctx));
  return diff
    ? fail('state.changed', diff.key, `the second PUT changed the state: ${diff.text}`, [first, second])
    : pass(`${first.status} then ${second.status}`);
}

/** Each field PATCH can change, and the valid PATCH: only the fields named change. */
/**
 * What one PATCH changed that it must not, or did not change that it must: the field it set read back other
 * than set, or a field it does not name changed (the server's own, those that move by themselves and those it
 * derives from the named ones left out).
 */
function patchChanges(
  ctx: CheckContext,
  { body, what, applied }: { body: Obj; what: string; applied?: [string, unknown] },
  [before, patched, after]: [Exchange, Exchange, Exchange],
  bySelf: string[],
): Failure[] {
  const failures: Failure[] = [];
  const named = Object.keys(body);
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
  return failures;
}

/**
 * `methods.patch-partial`: a PATCH of one field of a fresh object changes that field and no other, as a read before
 * and after shows.
 */
export async function patchPartial(op: Operation, ctx: CheckContext): Promise<Verdict> {
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
  const [judged, refused, busy]: string[][] = [[], [], []];
  for (const { body, what, applied } of patches) {
    const patched = await ctx.send({ ...target, json: body }, op);
    // A value of the check's choosing may break a rule of the server's (a template's shape, a run's state):
    // its refusal is not this rule's to judge. The valid request's refusal, or a server error, is.
    if (applied && patched.status >= 400 && patched.status < 500 && !isLoadAnswer(patched)) {
      refused.push(`${applied[0]} (${patched.status})`);
      continue;
    }
    // A busy server (503, 429, no answer) says nothing of what the PATCH changes: not judged, said so.
    if (isLoadAnswer(patched)) {
      busy.push(`${what} (${patched.status || 'no answer'})`);
      continue;
    }
    if (!is2xx(patched)) {
      failures.push(unexpectedAnswer(what, patched));
      continue;
    }
    const after = await read();
    if (isLoadAnswer(after)) {
      busy.push(`the read after ${what} (${after.status || 'no answer'})`);
      continue;
    }
    judged.push(Object.keys(body).join('+') || '{}');
    failures.push(...patchChanges(ctx, { body, what, applied }, [before, patched, after], bySelf));
    before = after;
  }
  if (failures.length) return failAll(failures);
  const notJudged = [
    refused.length ? `; refused, so not judged: ${refused.join(', ')}` : '',
    busy.length ? `; met a busy server, so not judged: ${busy.join(', ')}` : '',
  ].join('');
  if (judged.length === 0 && busy.length) return skip(`every PATCH met a busy server: ${busy.join(', ')}`);
  return pass(`${judged.length} PATCHes changed only what each named (${judged.join(', ')})${notJudged}`);
}

/** The same upsert twice: the same id. */
export async function upsert(op: Operation, ctx: CheckContext): Promise<Verdict> {
  const built = await ctx.validRequest(op);
  const first = await ctx.send(built.request, op);
  const second = await ctx.send(built.request, op);
  if (!is2xx(first) || !is2xx(second)) return unexpected('the upsert', is2xx(first) ? second : first);
  const [a, b] = [(first.json as Obj)?.id, (second.json as Obj)?.id];
  return a === b
    ? pass(`the same ${ctx.profile.upserts![op.key].join('+')} gave the same id`)
    : fail('answer.differs', '/id', `the same key gave ids ${a} and ${b}`, [first, second]);
}

/** Two upserts of one key at once: one member. */
export async function upsertConcurrent(op: Operation, ctx: CheckContext): Promise<Verdict> {
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
}
