/**
 * What an exchange did, as a line of the run's exchange log (config/exchangeLog.ts: its format and masking),
 * and the answer times a client learns the target's distance from, read back from a log.
 */
import { createHash } from 'node:crypto';
import { type Behaviour, MAX_ITEMS, masked, shapeOf } from '../config/exchangeLog.js';
import { isUuid } from '../openapi/json.js';
import { Overlap, SETTLED } from './pacing/overlap.js';

/**
 * The answer times of the last `count` exchanges the target served (http/pacing/overlap.ts), from an exchange
 * log read; of one method's only, when it is given.
 */
export function servedAnswerTimes(log: Behaviour[], count: number, method?: string): number[] {
  return log
    .filter((b) => Overlap.served(b.status) && (method === undefined || b.method === method))
    .slice(-count)
    .map((b) => b.ms);
}

/**
 * The answer times a client that will send only `method`'s requests (cleanup: DELETE) learns the target's
 * distance from (pacing/overlap.ts): the last served ones of that method, where there are enough to move the
 * factor, and the fastest answer of all; else the last served of all. A run's last answers are mostly its
 * heaviest reads, queued at the server: they make a far target look near, and cleanup then started with few
 * deletes in flight. The fastest answer of any kind is the way there and back: one method's answers alone
 * would take a near server that serves them in a steady time for a far one.
 */
export function distanceSample(log: Behaviour[], count: number, method: string): number[] {
  const own = servedAnswerTimes(log, count, method);
  if (own.length < SETTLED) return servedAnswerTimes(log, count);
  // Folded rather than spread: a long run's log holds more answers than a call's arguments may.
  const fastest = servedAnswerTimes(log, log.length).reduce((a, b) => Math.min(a, b), Number.POSITIVE_INFINITY);
  return [fastest, ...own.slice(1 - count)];
}

function shortHash(text: string): string {
  return createHash('sha1').update(text).digest('base64url').slice(0, 12);
}

export function behaviourOf(
  request: { method: string; template: string; pathAndQuery: string; body?: string },
  response: { status: number; ms: number; json?: unknown },
  runTag?: string,
): Behaviour {
  const q = masked(`${request.method} ${request.pathAndQuery} ${request.body ?? ''}`, runTag);
  const b: Behaviour = {
    key: shortHash(q),
    request: q.slice(0, 300),
    method: request.method,
    template: request.template,
    status: response.status,
    ms: response.ms,
  };
  if (response.json !== undefined) {
    b.shape = shapeOf(response.json);
    if (Array.isArray(response.json)) {
      const items = response.json.slice(0, MAX_ITEMS);
      b.items = items.map((item) => shortHash(masked(JSON.stringify(item), runTag)));
      const ord = maskedOrders(items);
      if (ord.length) b.orders = ord;
    }
  }
  return b;
}

/**
 * Whether a sequence of a field's values is in order by `key`, its nulls (if any) together at one end: the
 * order's name (`asc`, `asc nulls first`, `asc nulls last`), or undefined. Where the nulls go is part of the
 * name: SQLite puts them first ascending, PostgreSQL last, and that is a difference of behaviour.
 */
function orderOf(
  values: unknown[],
  key: (v: string | number | boolean) => number | string,
  sign: 1 | -1,
): string | undefined {
  const firstValue = values.findIndex((v) => v !== null);
  const lastValue = values.length - 1 - [...values].reverse().findIndex((v) => v !== null);
  const nulls = firstValue > 0 ? ' nulls first' : lastValue < values.length - 1 ? ' nulls last' : '';
  if (firstValue < 0 || (firstValue > 0 && lastValue < values.length - 1)) return undefined;
  if (values.slice(firstValue, lastValue + 1).includes(null)) return undefined;
  const seq = values.slice(firstValue, lastValue + 1).map((v) => key(v as string | number | boolean));
  if (new Set(seq).size < 2) return undefined;
  const ordered = seq.every((v, i) => i === 0 || sign * (v < seq[i - 1] ? -1 : v > seq[i - 1] ? 1 : 0) >= 0);
  return ordered ? `${sign === 1 ? 'asc' : 'desc'}${nulls}` : undefined;
}

/**
 * The fields the served order follows, as "field:asc" or "field:desc" (with where its nulls are): a masked
 * field (an identifier, a time), or a plain scalar field whose values differ. Items tied on a sort key come in any order; two runs whose
 * orders both follow the same field differ in the order of ties, or of masked values, not in behaviour.
 */
function maskedOrders(items: unknown[]): string[] {
  if (items.length < 2 || !items.every((i) => i && typeof i === 'object' && !Array.isArray(i))) return [];
  const rows = items as Array<Record<string, unknown>>;
  const out: string[] = [];
  for (const field of Object.keys(rows[0])) {
    const values = rows.map((r) => r[field]);
    const scalar = (v: unknown) => v === null || ['string', 'number', 'boolean'].includes(typeof v);
    if (!values.every(scalar) || new Set(values).size < 2) continue;
    // Times compare as instants; identifiers as the strings the server sorted; the rest as served.
    const key = (v: string | number | boolean) =>
      typeof v !== 'string' ? Number(v) : isUuid(v) ? v.toLowerCase() : masked(v) !== v ? Date.parse(v) : v;
    for (const sign of [1, -1] as const) {
      const order = orderOf(values, key, sign);
      if (order) out.push(`${field}:${order}`);
    }
  }
  return out;
}
