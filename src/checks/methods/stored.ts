/**
 * methods.create-stored (spec §4.1, POST /collection creates a new member): what a create answers and what it set
 * is what a read of the member shows, names beyond ASCII too.
 */
import { isNameField } from '../../cases/safeValues.js';
import { nonNull } from '../../model/filters.js';
import { fitString } from '../../openapi/fitString.js';
import type { Obj } from '../../openapi/json.js';
import type { Operation } from '../../openapi/operations.js';
import { is2xx, type RequestToSend } from '../../openapi/request.js';
import { bodyDifference, volatileOf } from '../core/bodies.js';
import type { CheckContext } from '../core/context.js';
import { fail, failAll, failure, pass, statusKey, unexpected, type Failure, type Verdict } from '../core/verdict.js';
import { readOf } from './shared.js';

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
 * Characters beyond ASCII a name may hold (spec §2: a name is a string): a precomposed and a combining accent,
 * an emoji outside the Basic Multilingual Plane, right-to-left text. A server that stores them otherwise than
 * sent (`café` as `caf?`) changes the name its client will look the member up by.
 */
export const BEYOND_ASCII = '-café-e\u0301-😀-שלום';

/** The create's request with each name it sets carrying BEYOND_ASCII, in a form the document admits; undefined where no form of any keeps it. */
function namesBeyondAscii(ctx: CheckContext, op: Operation, request: RequestToSend): RequestToSend | undefined {
  const body = request.json;
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const schema = ctx.model.recordOf(op).bodySchema;
  const props = schema ? (nonNull(ctx.model.doc, schema).properties ?? {}) : {};
  const widened: Obj = { ...(body as Obj) };
  let any = false;
  for (const [field, value] of Object.entries(widened)) {
    if (!isNameField(field) || typeof value !== 'string' || !props[field]) continue;
    const fitted = fitString(`${value}${BEYOND_ASCII}`, nonNull(ctx.model.doc, props[field]) as { pattern?: string });
    if (fitted && /\P{ASCII}/u.test(fitted)) {
      widened[field] = fitted;
      any = true;
    }
  }
  return any ? { ...request, json: widened } : undefined;
}

/**
 * methods.create-stored: the valid create read back agrees with its answer and with what it set; and a create
 * whose names go beyond ASCII stores them as sent (its failures keyed `beyond-ascii`).
 */
export async function createStored(op: Operation, ctx: CheckContext): Promise<Verdict> {
  const built = await ctx.validRequest(op);
  const plain = await storedAsCreated(op, ctx, built.request, '');
  if (plain.status !== 'passed') return plain;
  // A recipe of its own: fresh names, so that a create that upserts by name does not answer with the first member.
  const wide = namesBeyondAscii(ctx, op, (await ctx.validRequest(op)).request);
  if (!wide) return plain;
  const beyond = await storedAsCreated(op, ctx, wide, ' beyond-ascii');
  if (beyond.status === 'passed') return pass(`${plain.message}; names beyond ASCII stored as sent`);
  // A create refused (4xx) stored nothing to compare: whether the document admits the name is not this check's.
  const refused = beyond.status === 'failed' && beyond.failures[0]?.data?.refused;
  return refused
    ? pass(`${plain.message}; names beyond ASCII refused (${refused}): nothing stored to compare`)
    : beyond;
}

/** One create, read back: the read agrees with the create's answer and with the fields the request set. */
async function storedAsCreated(
  op: Operation,
  ctx: CheckContext,
  request: RequestToSend,
  inputClass: string,
): Promise<Verdict> {
  const c = ctx.model.collectionOf(op)!;
  const created = await ctx.send(request, op);
  if (!is2xx(created) && inputClass) {
    const kind = created.status >= 500 ? 'server-error' : 'status.unexpected';
    return fail(
      kind,
      `${statusKey(created)}${inputClass}`,
      `the create${inputClass} answered ${created.status || created.error}: ${created.body.slice(0, 200)}`,
      [created],
      {
        ...(created.status >= 400 && created.status < 500 ? { refused: created.status } : {}),
      },
    );
  }
  if (!is2xx(created)) return unexpected(`the valid create${inputClass}`, created);
  const sent = (request.json ?? {}) as Obj;
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
      failure(
        'answer.differs',
        `${diff.key}${inputClass}`,
        `the create answered what a GET of it does not: ${diff.text}`,
        [created, read],
      ),
    );
  const lost = Object.keys(sent).filter((k) => k in stored && !storedAsSent(sent[k], stored[k]));
  if (lost.length)
    failures.push(
      failure(
        'state.changed',
        `${lost.map((k) => `/${k}`).join(' ')}${inputClass}`,
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
}
