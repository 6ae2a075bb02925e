/**
 * `contract.default-read` and `contract.default-write`: a default the document declares for a request's field
 * (a body property at the top level, a query or header parameter) is what the server assumes where the field
 * is left out (OpenAPI: "the value … assumed … if one is not provided"). The valid request is sent without the
 * field and with the default stated, and the two answers must be the same. What two sends of the very same
 * request answer differently (ids and names of the objects each made, the clock) is left out of the
 * comparison; where two identical requests answer differently beyond that, the default cannot be judged.
 */
import { masked } from '../../config/exchangeLog.js';
import type { Obj } from '../../openapi/json.js';
import { resolveRef, type Operation, type Schema } from '../../openapi/operations.js';
import type { RequestToSend } from '../../openapi/request.js';
import { bodyDifference, inOneOrder, volatileBetween, volatileOf } from '../core/bodies.js';
import { differenceThatReturns, pastLoad } from '../core/load.js';
import type { CheckContext, Exchange } from '../core/context.js';
import { fail, pass, skip, type Verdict } from '../core/verdict.js';

/** Where a request carries a field the document gives a default. */
type Where = 'body' | 'query' | 'header';

export interface DocumentedDefault {
  where: Where;
  name: string;
  value: unknown;
}

/** A documented default's variant name: `body.sort`, `query.include_secrets`. */
export const variantOf = (d: Pick<DocumentedDefault, 'where' | 'name'>): string => `${d.where}.${d.name}`;

/** The variants of both defaults checks: one per documented default of the operation's request. */
export const defaultVariants = (op: Operation, ctx: Pick<CheckContext, 'model'>): string[] =>
  documentedDefaults(ctx, op).map(variantOf);

/** Null says "absent" in the document's words, not a value the server assumes: only non-null defaults count. */
const stated = (schema: Schema | undefined): schema is Schema & { default: unknown } =>
  !!schema && 'default' in schema && schema.default !== null && schema.default !== undefined;

/** A schema's default: its own (beside a `$ref`, as `sort` has one beside its enum's), or its target's. */
const defaultOf = (doc: CheckContext['model']['doc'], schema: Schema | undefined): Schema | undefined =>
  schema && 'default' in schema ? schema : schema && resolveRef<Schema>(doc, schema);

/** Every non-null default the operation's request declares: its top-level body properties, its query and header parameters. */
export function documentedDefaults(ctx: Pick<CheckContext, 'model'>, op: Operation): DocumentedDefault[] {
  const doc = ctx.model.doc;
  const found: DocumentedDefault[] = [];
  for (const p of op.parameters) {
    const schema = defaultOf(doc, p.schema);
    if ((p.in === 'query' || p.in === 'header') && stated(schema))
      found.push({ where: p.in, name: p.name, value: schema.default });
  }
  const body = ctx.model.recordOf(op).bodySchema;
  const properties = body
    ? (resolveRef<Schema>(doc, body).properties as Record<string, Schema> | undefined)
    : undefined;
  for (const [name, property] of Object.entries(properties ?? {})) {
    const schema = defaultOf(doc, property);
    if (stated(schema)) found.push({ where: 'body', name, value: schema.default });
  }
  return found;
}

/** The request with the field left out, or set to `value`. */
function withField(request: RequestToSend, d: DocumentedDefault, value?: unknown): RequestToSend {
  const set = <T extends Record<string, unknown>>(into: T | undefined): T => {
    const copy = { ...(into ?? {}) } as Record<string, unknown>;
    if (value === undefined) delete copy[d.name];
    else copy[d.name] = value;
    return copy as T;
  };
  if (d.where === 'body') {
    const body = request.json;
    if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) return request;
    return { ...request, json: set(body as Obj | undefined) };
  }
  if (d.where === 'query') return { ...request, query: set(request.query as Obj) as RequestToSend['query'] };
  return { ...request, headers: set(request.headers) as RequestToSend['headers'] };
}

/** The value as the request carries it: a header's as text, a query's as a scalar or JSON, a body's as it is. */
const onTheWire = (d: DocumentedDefault): unknown => {
  if (d.where === 'body') return d.value;
  const scalar = typeof d.value !== 'object' ? d.value : JSON.stringify(d.value);
  return d.where === 'header' ? String(scalar) : scalar;
};

/**
 * The three requests a variant sends: without the field, with the default stated, and without it again (the
 * control). A read sends one request three times over; a write sends each on objects of its own (the valid
 * request makes fresh ones where the operation changes what it names), so that one does not act on another's.
 */
async function threeRequests(
  op: Operation,
  ctx: CheckContext,
  d: DocumentedDefault,
  read: boolean,
): Promise<[RequestToSend, RequestToSend, RequestToSend]> {
  const without = async () => withField((await ctx.validRequest(op)).request, d);
  const first = await without();
  const withDefault = withField(read ? first : await without(), d, onTheWire(d));
  return [first, withDefault, read ? first : await without()];
}

/**
 * The answers without the field and with its default stated, held equal beyond what identical requests vary in;
 * past load (checks/core/load.ts), and a difference only where it comes back when the three are sent again.
 */
export async function judgeDefault(
  op: Operation,
  ctx: CheckContext,
  variant: string | undefined,
  read: boolean,
): Promise<Verdict> {
  const d = documentedDefaults(ctx, op).find((x) => variantOf(x) === variant);
  if (!d) return skip(`no documented default ${variant} on ${op.key}`);
  return differenceThatReturns(() => judgeDefaultOnce(op, ctx, d, variant, read));
}

async function judgeDefaultOnce(
  op: Operation,
  ctx: CheckContext,
  d: DocumentedDefault,
  variant: string | undefined,
  read: boolean,
): Promise<Verdict> {
  const what = `${variant} left out, then stated as its documented default ${JSON.stringify(d.value)}`;
  const answers = await pastLoad(async () => {
    const [withoutIt, withIt, control] = await threeRequests(op, ctx, d, read);
    return [await ctx.send(withoutIt, op), await ctx.send(withIt, op), await ctx.send(control, op)];
  }, what);
  if (typeof answers === 'string') return skip(answers);
  const [a, b, again] = answers;
  if (a.status !== again.status || a.status === 0)
    return skip(
      `${what}: two identical requests answered ${a.status}, then ${again.status}: nothing to hold the default to`,
    );
  // A write's three requests each made or acted on objects of their own: their ids, names and times are
  // masked (config/exchangeLog.ts), where a read's answers keep them (an order by id is what a sort default sets).
  const answer = (x: Exchange) => (read ? (x.json ?? x.body) : maskedJson(x.json ?? x.body, ctx.settings.runTag));
  const volatile = volatileBetween(answer(a), answer(again), volatileOf(ctx));
  const unsteady = bodyDifference(answer(a), answer(again), volatile);
  if (unsteady)
    return skip(
      `${what}: two identical requests answered differently (${unsteady.text}): nothing to hold the default to`,
    );
  if (a.status !== b.status)
    return fail('answer.differs', `${variant} status`, `${what}: status ${a.status}, then ${b.status}`, [a, b], {
      statuses: [a.status, b.status],
      default: d.value,
    });
  const diff = bodyDifference(answer(a), answer(b), volatile);
  // The same items in another order: where the sort (the spec's one sorting field, §4.3 rule 6) is not the field
  // left out, both requests asked one order, and items it ties come in either (PostgreSQL gives no order to ties:
  // another client's events of one instant). The order of ties is the implementation's.
  if (
    diff &&
    read &&
    d.name !== 'sort' &&
    !bodyDifference(inOneOrder(answer(a), volatile), inOneOrder(answer(b), volatile), volatile)
  )
    // Where, not what: the items' values (ids, instants) differ from run to run, and a message `compare` holds
    // side by side says nothing then but that.
    return pass(
      `${what}: the same items (${a.status}), in another order: implementation-defined, the order of items the sort ties (first at ${diff.key})`,
    );
  if (diff)
    return fail('answer.differs', `${variant} ${diff.key}`, `${what}: ${diff.text}`, [a, b], { default: d.value });
  return pass(`${what}: the same answer (${a.status})`);
}

const maskedJson = (value: unknown, runTag: string): unknown =>
  value === undefined ? undefined : JSON.parse(masked(JSON.stringify(value), runTag));

/**
 * contract.default-read's preparation, beside the other checks: a list of one object reads alike in every
 * order, and the run's corpus (flows of names in every case, runs in every state) gives the core collections'
 * reads several objects to order. It is built by a job that may write, so not in the check's quiet; without it
 * (read-only mode), the target's own objects are read.
 */
export async function prepareDefaultRead(_op: Operation, ctx: CheckContext): Promise<unknown> {
  if (ctx.settings.readOnly) return undefined;
  return ctx.corpus().catch(() => undefined);
}

/** contract.default-read: a read, sent three times over with no write beside it. */
export const readDefault = (op: Operation, ctx: CheckContext, variant?: string): Promise<Verdict> =>
  judgeDefault(op, ctx, variant, true);

/** contract.default-write: a write, each of its three requests on objects of its own. */
export async function writeDefault(op: Operation, ctx: CheckContext, variant?: string): Promise<Verdict> {
  if (ctx.settings.readOnly) return skip('read-only mode: the operation changes state');
  return judgeDefault(op, ctx, variant, false);
}
