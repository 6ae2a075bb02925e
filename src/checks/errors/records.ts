/**
 * Family `errors` (spec §7 and the document): identifiers that are not identifiers, bodies that are not
 * JSON, and error answers a client can read.
 */
import { exercisedWith } from '../core/exercised.js';
import type { Obj } from '../../openapi/json.js';
import { isJsonMediaType, resolveRef, type Operation } from '../../openapi/operations.js';
import { bodyDifference, volatileBetween, volatileOf } from '../core/bodies.js';
import { defineCheck } from '../core/check.js';
import type { BuiltRequest, CheckContext, Exchange } from '../core/context.js';
import { once } from '../core/once.js';
import { fail, pass, skip, statusKey, type Verdict } from '../core/verdict.js';

function uuidParams(op: Operation): string[] {
  return op.parameters
    .filter((p) => p.in === 'path' && (p.schema as { format?: string }).format === 'uuid')
    .map((p) => p.name);
}

/**
 * A query whose body takes a limit: `limit: 0` there changes the answer, so a body read is told from one
 * ignored. Only a read: a write whose body is ignored acts unscoped (a bulk delete of every object).
 */
function queryTakingLimit(op: Operation, ctx: CheckContext): boolean {
  const record = ctx.model.recordOf(op);
  if (op.method !== 'POST' || !record.reads || ctx.profile.safety(op)?.generated === false) return false;
  const schema = record.bodySchema;
  const props = schema && (resolveRef<Obj>(ctx.model.doc, schema).properties as Obj | undefined);
  return props !== undefined && 'limit' in props;
}

/**
 * How many times errors.text-plain-ignored asks a text/plain read between two reads without a body before it
 * says the collection never held still: with services on, Prefect's events move between most reads.
 */
const STEADY_ROUNDS = 3;

/** The same status and body, what changes by itself between two reads (durations from the clock) left out. */
const sameAnswer = (a: Exchange, b: Exchange, volatile: ReadonlySet<string>) =>
  a.status === b.status && bodyDifference(a.json ?? a.body, b.json ?? b.body, volatile) === undefined;

/**
 * A member for a query to find, so that `limit: 0` answers otherwise than no limit at all (under the shared
 * parent the valid request names, for a nested collection), and the query's valid request: what
 * errors.text-plain-ignored needs made before its reads.
 */
function memberToFind(op: Operation, ctx: CheckContext): Promise<BuiltRequest> {
  return once(ctx, `member to find ${op.key}`, async () => {
    const c = ctx.model.collectionOf(op);
    if (c?.create) await ctx.object(c.path, 'shared').catch(() => undefined);
    return ctx.validRequest(op);
  });
}

/** `errors.malformed-id`: the last UUID path parameter replaced by `not-a-uuid` must be answered 404 or 422. */
async function malformedId(op: Operation, ctx: CheckContext): Promise<Verdict> {
  const built = await ctx.validRequest(op);
  const name = uuidParams(op)[uuidParams(op).length - 1];
  const value = String(built.pathParams[name]);
  // A conforming server refuses it by its path, before its data: a PATCH or DELETE so takes no write's turn.
  const ex = await ctx.send(
    {
      ...built.request,
      path: built.request.path.replace(encodeURIComponent(value), 'not-a-uuid'),
      refusedBeforeData: true,
    },
    op,
  );
  return ex.status === 404 || ex.status === 422
    ? pass(`answered ${ex.status}`)
    : fail('status.unexpected', statusKey(ex), `{${name}} = "not-a-uuid" answered ${ex.status || ex.error}`, [ex], {
        param: name,
      });
}

/** `errors.wrong-content-type`: the exercise's JSON body sent as text/plain must be refused with a 4xx. */
async function wrongContentType(op: Operation, ctx: CheckContext): Promise<Verdict> {
  const exercised = ctx.exchangesOf(op);
  if (exercised.skipped) return skip(exercised.skipped);
  const ex = exercised.sent.find((s) => s.kind === 'wrong-content-type')!.exchange;
  return ex.status >= 400 && ex.status < 500
    ? pass(`answered ${ex.status}`)
    : fail('input.accepted', statusKey(ex), `a JSON body sent as text/plain answered ${ex.status || ex.error}`, [ex]);
}

/**
 * `errors.text-plain-ignored`: a query body sent as text/plain is refused, or read as JSON; answered as no body at
 * all, it was ignored (with the collection steady between the reads).
 */
async function textPlainIgnored(op: Operation, ctx: CheckContext): Promise<Verdict> {
  const built = await memberToFind(op, ctx);
  const body = { ...((built.request.json as Obj | undefined) ?? {}), limit: 0 };
  // The three reads go side by side (nothing writes between them: the check runs alone), so that a far
  // target's round trip is paid once; the fourth follows the third, as what changes by itself between two
  // answers is measured over a round trip.
  const asTextPlain = {
    ...built.request,
    json: undefined,
    raw: JSON.stringify(body),
    headers: { 'content-type': 'text/plain' },
  };
  const noBody = { ...built.request, json: undefined };
  const [asJson, asText, none] = await Promise.all([
    ctx.send({ ...built.request, json: body }, op),
    ctx.send(asTextPlain, op),
    ctx.send(noBody, op),
  ]);
  if (asText.status >= 400 && asText.status < 500) return pass(`refused with ${asText.status}`);
  if (asText.status === 0 || asText.status >= 500)
    return skip(`answered ${asText.status || asText.error}: contract.no-5xx's to judge`);
  // Twice: what differs between two answers to the same request changes by itself, and tells nothing.
  const noneAgain = await ctx.send(noBody, op);
  const volatile = volatileBetween(none.json ?? none.body, noneAgain.json ?? noneAgain.body, volatileOf(ctx));
  if (sameAnswer(asJson, none, volatile))
    return skip(`${JSON.stringify(body)} answers as no body does here: nothing tells a body read from one ignored`);
  if (sameAnswer(asText, asJson, volatile))
    return pass('read as JSON (errors.wrong-content-type judges that it was accepted)');
  const ignored = (text: Exchange, answeredNone: Exchange) =>
    fail(
      'input.ignored',
      statusKey(text),
      `${JSON.stringify(body)} as text/plain answered what no body answers, not what it answers as JSON (${asJson.status} ${asJson.body.slice(0, 40)})`,
      [asJson, text, answeredNone],
    );
  if (sameAnswer(asText, none, volatile)) return ignored(asText, none);
  // The collection may change by itself between two reads side by side (a server's services storing the
  // events it records, the scheduler making runs), which no body read twice in a row shows. The text/plain
  // read goes again between two reads without a body: an answer like either is an ignored body; two
  // that differ from each other say the collection moved meanwhile, and the round tells nothing.
  for (let round = 0; round < STEADY_ROUNDS; round++) {
    const [before, text, after] = await Promise.all([
      ctx.send(noBody, op),
      ctx.send(asTextPlain, op),
      ctx.send(noBody, op),
    ]);
    if (sameAnswer(text, before, volatile)) return ignored(text, before);
    if (sameAnswer(text, after, volatile)) return ignored(text, after);
    if (sameAnswer(before, after, volatile))
      return pass('answered neither as JSON nor as no body, with the collection steady: read some other way');
  }
  return skip(
    `the answers without a body changed between reads side by side in each of ${STEADY_ROUNDS} rounds (the server adds to the collection by itself): nothing tells a body read from one ignored`,
  );
}

/** `errors.4xx-json`: every 4xx of the operation's exercise must be a parsable JSON body. */
function n4xxJson(op: Operation, ctx: CheckContext): Verdict {
  const exercised = ctx.exchangesOf(op);
  if (exercised.skipped) return skip(exercised.skipped);
  const errors = exercised.sent.map((s) => s.exchange).filter((ex) => ex.status >= 400 && ex.status < 500);
  if (errors.length === 0) return skip('no 4xx was answered for this operation');
  const bad = errors.find((ex) => !isJsonMediaType(ex.contentType) || ex.parseError !== undefined);
  if (!bad) return pass(`${errors.length} 4xx answer(s), all JSON`);
  return fail(
    isJsonMediaType(bad.contentType) ? 'json.unparsable' : 'content-type.mismatch',
    `${bad.status} ${bad.contentType || 'none'}`,
    `a ${bad.status} came as "${bad.contentType}"${bad.parseError ? ` and does not parse: ${bad.parseError}` : ''}`,
    [bad],
  );
}

export const errorsChecks = [
  defineCheck({
    id: 'errors.malformed-id',
    level: 'MUST',
    clause: '7; OpenAPI document (format: uuid)',
    title: 'MUST answer 404 or 422 to an identifier that is not a UUID where one is documented, never a 5xx',
    appliesTo: (op) => uuidParams(op).length > 0,
    run: malformedId,
  }),
  defineCheck({
    id: 'errors.wrong-content-type',
    level: 'SHOULD',
    clause:
      'open: the document takes application/json only, and no source says what a server does with another type (RFC 9110 lets it refuse with 415): reported, not gated; 4.2; OpenAPI document (requestBody content: application/json)',
    title: 'SHOULD refuse a JSON body sent as text/plain with a 4xx',
    // The exercise sends the recipe's body as text/plain (engine/exercise.ts); a server error there is also
    // contract.no-5xx's, a MUST failure.
    reads: 'exercise',
    appliesTo: exercisedWith((s) => s.kind === 'wrong-content-type'),
    run: wrongContentType,
  }),
  defineCheck({
    id: 'errors.text-plain-ignored',
    level: 'SHOULD',
    clause:
      'open: no source says what a server does with a body of a type the document does not take: answering another query than the one sent is reported, not gated; 4.2; OpenAPI document (requestBody content: application/json)',
    title:
      'SHOULD NOT answer a JSON body sent as text/plain as if no body had been sent: the client gets the answer to another query, and nothing says so',
    // Its four answers are compared whole: no other check may add to the collection between them. It sends
    // reads alone, its member to find made before (`prepare`): it goes beside other checks that only read.
    isolation: 'quiet',
    prepare: (op, ctx) => memberToFind(op, ctx),
    appliesTo: queryTakingLimit,
    run: textPlainIgnored,
  }),
  defineCheck({
    id: 'errors.4xx-json',
    level: 'SHOULD',
    clause:
      'open: the error body shape is not shown by the spec (7): a JSON one is expected, and reported, not gated; 7',
    title: 'SHOULD answer a 4xx with a JSON body a client can read',
    // An operation the server never answered with a 4xx gives this check nothing to look at.
    reads: 'exercise',
    appliesTo: exercisedWith(({ exchange: ex }) => ex.status >= 400 && ex.status < 500),
    run: n4xxJson,
  }),
];
