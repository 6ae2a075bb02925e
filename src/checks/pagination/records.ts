/**
 * Family `pagination` (spec §4.3 rule 5, §8): `limit` and `offset` in the body cut consecutive windows
 * of the sorted result; limit 0 gives nothing; the maximum is accepted and one more refused; negative
 * values are refused; an offset past the end gives nothing.
 */
import { SendingStopped } from '../core/context.js';
import fc from 'fast-check';
import { JudgedOnce } from '../../cases/distinct.js';
import { drawsOf, SentAhead } from '../../cases/sentAhead.js';
import type { Obj } from '../../openapi/json.js';
import type { Operation } from '../../openapi/operations.js';
import { is2xx } from '../../openapi/request.js';
import { defineCheck } from '../core/check.js';
import type { CheckContext } from '../core/context.js';
import { corpusOf, isCoreFilter, sortEnum } from '../core/queryContext.js';
import { fail, isLoadAnswer, pass, skip, statusKey, unexpected, type Verdict } from '../core/verdict.js';

/** A sort without ties on the run's objects (id, else name), so that windows are well defined. */
function untiedSort(ctx: CheckContext, op: Operation): string | undefined {
  const values = sortEnum(ctx.model, op) ?? [];
  return values.find((v) => /^ID_/.test(v)) ?? values.find((v) => /^NAME_/.test(v));
}

const CLAUSE = '4.3 rule 5; 8';

const refusedWith4xx = (status: number) => status >= 400 && status < 500;

/** `pagination.windows`: drawn limit and offset windows over an untied sort must be the slices of the whole result. */
async function windows(op: Operation, ctx: CheckContext): Promise<Verdict> {
  const { q, key } = await corpusOf(ctx, op, 2);
  const sort = untiedSort(ctx, op);
  if (!sort) return skip('no sort value without ties (ID_* or NAME_*) to page by');
  const base = { ...q.scope(key), sort };
  const full = await q.query(op, { ...base, limit: q.pageSize(key) });
  if (isLoadAnswer(full.exchange)) return unexpected('the whole result', full.exchange);
  if (!is2xx(full.exchange))
    return fail('status.unexpected', statusKey(full.exchange), `the whole result answered ${full.exchange.status}`, [
      full.exchange,
    ]);
  const n = full.ids.length;
  let shown: Verdict | undefined;
  let busy = 0;
  const { seed, runs } = ctx.settings;
  const windows = new JudgedOnce<boolean>();
  const windowOf = (limit: number, offset: number) => q.query(op, { ...base, limit, offset });
  const limits = fc.integer({ min: 1, max: n + 1 });
  const offsets = fc.integer({ min: 0, max: n + 1 });
  const property = fc.asyncProperty(limits, offsets, (limit, offset) =>
    // The run ends at the first failure, so an outcome reused is a window that agreed.
    windows.outcome(`${limit} ${offset}`, async () => {
      const { exchange, ids } = await ahead.answer(`${limit} ${offset}`, () => windowOf(limit, offset));
      // A busy answer says nothing of the window: not judged, and counted.
      if (isLoadAnswer(exchange)) {
        busy++;
        return true;
      }
      const expected = full.ids.slice(offset, offset + limit);
      if (JSON.stringify(ids) === JSON.stringify(expected)) return true;
      shown = fail(
        'aggregate.mismatch',
        'window',
        `limit ${limit}, offset ${offset}: ${JSON.stringify(ids)}; the window is ${JSON.stringify(expected)}`,
        [exchange, full.exchange],
        { limit, offset },
      );
      return false;
    }),
  );
  const params = { seed, numRuns: runs, endOnFailure: true };
  // The draws' windows, asked side by side before the property judges them one by one.
  const ahead = new SentAhead(
    drawsOf([limits, offsets], params).map(([limit, offset]) => ({
      key: `${limit} ${offset}`,
      send: () => windowOf(limit, offset),
    })),
  );
  const result = await fc.check(property, params);
  // The time box stopped sending mid-property: not run, never a counterexample.
  if (result.errorInstance instanceof SendingStopped) throw result.errorInstance;
  if (result.failed) return { ...shown!, seed, path: result.counterexamplePath ?? undefined } as Verdict;
  const distinct = result.numRuns - windows.repeats;
  if (busy >= distinct) return skip(`every window met a busy server through the retries: load, not judged`);
  const unjudged = busy ? `; ${busy} met a busy server through the retries (load, not judged)` : '';
  return pass(`${distinct - busy} distinct windows of ${n} objects, sorted ${sort}${unjudged}`);
}

/** `pagination.limit-zero`: limit 0 answers an empty list, or is refused where the document's minimum is above 0. */
async function limitZero(op: Operation, ctx: CheckContext): Promise<Verdict> {
  const { q, key } = await corpusOf(ctx, op);
  const { exchange } = await q.query(op, { ...q.scope(key), limit: 0 });
  if (isLoadAnswer(exchange)) return unexpected('limit 0', exchange);
  // A document whose `limit` starts above 0 (spec §8 leaves the range open) promises to refuse 0.
  const minimum = q.models.get(key)?.limit?.minimum;
  if (minimum !== undefined && minimum > 0)
    return refusedWith4xx(exchange.status)
      ? pass(`the document's minimum is ${minimum}: limit 0 refused with ${exchange.status}`)
      : fail(
          'input.accepted',
          'limit 0',
          `limit 0 is below the document's minimum ${minimum} and answered ${exchange.status}`,
          [exchange],
        );
  if (!is2xx(exchange))
    return fail('status.unexpected', statusKey(exchange), `limit 0 answered ${exchange.status}`, [exchange]);
  return Array.isArray(exchange.json) && exchange.json.length === 0
    ? pass()
    : fail('aggregate.mismatch', 'limit 0', `limit 0 returned ${(exchange.json as Obj[]).length} object(s)`, [
        exchange,
      ]);
}

/**
 * `pagination.maximum-limit`: the documented (or profiled) maximum limit is accepted and one more refused with a
 * 4xx.
 */
async function maximumLimit(op: Operation, ctx: CheckContext): Promise<Verdict> {
  const { q, key } = await corpusOf(ctx, op);
  const max = q.models.get(key)?.limit?.maximum ?? ctx.profile.maxLimit;
  if (max === undefined) return skip('neither the document nor the profile gives a maximum limit');
  const ok = await q.query(op, { ...q.scope(key), limit: max });
  const over = await q.query(op, { ...q.scope(key), limit: max + 1 });
  if (isLoadAnswer(ok.exchange)) return unexpected(`limit ${max}`, ok.exchange);
  if (!is2xx(ok.exchange))
    return fail('input.refused', statusKey(ok.exchange), `limit ${max} answered ${ok.exchange.status}`, [ok.exchange], {
      limit: max,
    });
  if (isLoadAnswer(over.exchange)) return unexpected(`limit ${max + 1}`, over.exchange);
  return refusedWith4xx(over.exchange.status)
    ? pass(`${max} accepted, ${max + 1} → ${over.exchange.status}`)
    : fail(
        'input.accepted',
        statusKey(over.exchange),
        `limit ${max + 1} answered ${over.exchange.status}`,
        [over.exchange],
        { limit: max + 1 },
      );
}

/** `pagination.negative-refused`: a negative limit and a negative offset must each be refused with a 4xx. */
async function negativeRefused(op: Operation, ctx: CheckContext): Promise<Verdict> {
  const { q, key } = await corpusOf(ctx, op);
  for (const extra of [{ limit: -1 }, { offset: -1 }]) {
    const { exchange } = await q.query(op, { ...q.scope(key), ...extra });
    if (isLoadAnswer(exchange)) return unexpected(JSON.stringify(extra), exchange);
    if (!refusedWith4xx(exchange.status))
      return fail(
        'input.accepted',
        `${Object.keys(extra)[0]} ${statusKey(exchange)}`,
        `${JSON.stringify(extra)} answered ${exchange.status}`,
        [exchange],
        extra,
      );
  }
  return pass();
}

/** `pagination.offset-past-end`: an offset past the run's objects answers an empty list. */
async function offsetPastEnd(op: Operation, ctx: CheckContext): Promise<Verdict> {
  const { q, key } = await corpusOf(ctx, op);
  const { exchange } = await q.query(op, { ...q.scope(key), offset: q.ids(key).length + 5 });
  if (isLoadAnswer(exchange)) return unexpected('an offset past the last object', exchange);
  if (!is2xx(exchange))
    return fail('status.unexpected', statusKey(exchange), `answered ${exchange.status}`, [exchange]);
  return Array.isArray(exchange.json) && exchange.json.length === 0
    ? pass()
    : fail('aggregate.mismatch', 'past the end', `returned ${(exchange.json as Obj[]).length} object(s) past the end`, [
        exchange,
      ]);
}

export const paginationChecks = [
  defineCheck({
    id: 'pagination.windows',
    level: 'MUST',
    clause: CLAUSE,
    title: 'MUST return consecutive windows of the sorted result for limit and offset, with no gap and no duplicate',
    isolation: 'reads',
    appliesTo: isCoreFilter,
    run: windows,
  }),
  defineCheck({
    id: 'pagination.limit-zero',
    level: 'MUST',
    clause: CLAUSE,
    title: 'MUST return nothing for limit 0 (or refuse it, where the document starts limit above 0)',
    isolation: 'reads',
    appliesTo: isCoreFilter,
    run: limitZero,
  }),
  defineCheck({
    id: 'pagination.maximum-limit',
    level: 'MUST',
    clause: CLAUSE,
    title: 'MUST accept the maximum limit and refuse one more with a 4xx',
    isolation: 'reads',
    appliesTo: isCoreFilter,
    run: maximumLimit,
  }),
  defineCheck({
    id: 'pagination.negative-refused',
    level: 'MUST',
    clause: CLAUSE,
    title: 'MUST refuse a negative limit or offset with a 4xx',
    isolation: 'reads',
    appliesTo: isCoreFilter,
    run: negativeRefused,
  }),
  defineCheck({
    id: 'pagination.offset-past-end',
    level: 'MUST',
    clause: CLAUSE,
    title: 'MUST return nothing for an offset past the end',
    isolation: 'reads',
    appliesTo: isCoreFilter,
    run: offsetPastEnd,
  }),
];
