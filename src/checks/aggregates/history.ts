/**
 * `aggregates.history`'s judging. The spec names `POST /flow_runs/history` and leaves its body and answer to the
 * document (§4.2: "not shown"), so both are read off the document's schemas by their shape: a body with a start
 * and an end instant and an interval, an answer that is a list of bins, each with its start and end instants and a
 * list of counts by state type. Which instant of a run bins it the spec does not say: where the profile names it
 * (Prefect: the expected start), every bin is held to the run's own runs; elsewhere the window spans every
 * instant of theirs, and the counts by state type summed over the bins are held to them.
 */
import { micros } from '../../model/profiles/operators.js';
import { nonNull } from '../../model/filters.js';
import type { OpenApiDocument } from '../../openapi/document.js';
import type { Obj } from '../../openapi/json.js';
import { jsonSuccessSchema, type Operation, type Schema } from '../../openapi/operations.js';
import { is2xx } from '../../openapi/request.js';
import type { CheckContext, Exchange } from '../core/context.js';
import { queryContext } from '../core/queryContext.js';
import { fail, isLoadAnswer, pass, Skip, statusKey, unexpected, type Verdict } from '../core/verdict.js';

type S = Schema & {
  properties?: Record<string, Schema>;
  items?: Schema;
  format?: string;
  type?: unknown;
  enum?: unknown[];
};

/** The names a history's body and answer give their parts. */
export interface HistoryShape {
  start: string;
  end: string;
  interval: string;
  bin: { start: string; end: string; counts: string; stateType: string; count: string };
}

const INTERVAL_SECONDS = 600;
const MARGIN_MS = 1_800_000;

function propertiesOf(doc: OpenApiDocument, schema: Schema | undefined): Record<string, S> {
  const props = schema ? (nonNull(doc, schema).properties ?? {}) : {};
  return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, nonNull(doc, v) as S]));
}

const isInstant = (s: S) => s.format === 'date-time';
const isNumber = (s: S) => s.type === 'number' || s.type === 'integer';
const named = (props: Record<string, S>, test: (s: S) => boolean, word: RegExp) =>
  Object.keys(props).find((k) => test(props[k]) && word.test(k));

/** The history's parts by their shape in the document, or undefined where it has not that shape. */
export function historyShape(ctx: CheckContext, op: Operation): HistoryShape | undefined {
  const doc = ctx.model.doc;
  const body = propertiesOf(doc, ctx.model.recordOf(op).bodySchema);
  const [start, end] = [named(body, isInstant, /start/), named(body, isInstant, /end/)];
  const interval = named(body, isNumber, /interval/);
  const answer = jsonSuccessSchema(op);
  const items = answer ? (nonNull(doc, answer) as S).items : undefined;
  const bin = propertiesOf(doc, items);
  const counts = Object.keys(bin).find((k) => bin[k].items !== undefined);
  const count = counts ? propertiesOf(doc, bin[counts].items) : {};
  const shape = {
    start: start!,
    end: end!,
    interval: interval!,
    bin: {
      start: named(bin, isInstant, /start/)!,
      end: named(bin, isInstant, /end/)!,
      counts: counts!,
      stateType: Object.keys(count).find((k) => /type/.test(k) || count[k].enum !== undefined)!,
      count: named(count, isNumber, /count/)!,
    },
  };
  const parts = [shape.start, shape.end, shape.interval, ...Object.values(shape.bin)];
  return parts.every((p) => p !== undefined) ? shape : undefined;
}

function historyOf(
  ctx: CheckContext,
  op: Operation,
  shape: HistoryShape,
  key: string,
  ids: string[],
  start: number,
  end: number,
) {
  return ctx.send({
    method: 'POST',
    template: op.path,
    path: op.path,
    json: {
      [shape.start]: new Date(start).toISOString(),
      [shape.end]: new Date(end).toISOString(),
      [shape.interval]: INTERVAL_SECONDS,
      [key]: { id: { any_: ids } },
    },
  });
}

/** Every instant a run holds (created, its expected start, its state's time): the window that holds them all. */
function instantsOf(run: Obj): number[] {
  const values = [...Object.values(run), ...Object.values((run.state as Obj | undefined) ?? {})];
  return values.filter((v) => typeof v === 'string' && /^\d{4}-\d\d-\d\dT/.test(v)).map((v) => Date.parse(v as string));
}

const typeOf = (run: Obj) => String((run.state as Obj | undefined)?.type ?? run.state_type);
const show = (m: Map<string, number>) => JSON.stringify(Object.fromEntries([...m].sort()));

function countsOf(shape: HistoryShape, bin: Obj): Map<string, number> {
  const got = new Map<string, number>();
  for (const st of (bin[shape.bin.counts] as Obj[] | undefined) ?? []) {
    const type = String(st[shape.bin.stateType]);
    got.set(type, (got.get(type) ?? 0) + Number(st[shape.bin.count]));
  }
  return got;
}

/**
 * The bins are ceil((end - start) / interval) (at most the profile's maximum), each `interval` wide from `start`;
 * the last may end at `end` instead (the spec leaves open whether a bin past the window is cut).
 */
function binsLaidOut(ctx: CheckContext, shape: HistoryShape, ex: Exchange, bins: Obj[], start: number, end: number) {
  const step = INTERVAL_SECONDS * 1000;
  const expected = Math.min(Math.ceil((end - start) / step), ctx.profile.historyMaxBins ?? Infinity);
  if (bins.length !== expected)
    return fail(
      'aggregate.mismatch',
      'bins',
      `${bins.length} bins; ceil((end - start) / interval) is ${expected}`,
      [ex],
      {
        bins: bins.length,
        expected,
      },
    );
  for (let i = 0; i < bins.length; i++) {
    const [from, to] = [start + i * step, start + (i + 1) * step];
    const [a, b] = [bins[i][shape.bin.start], bins[i][shape.bin.end]];
    const cut = i === bins.length - 1 && Date.parse(String(b)) === Math.min(to, end);
    if (Date.parse(String(a)) !== from || (Date.parse(String(b)) !== to && !cut))
      return fail(
        'aggregate.mismatch',
        'bin bounds',
        `bin ${i} is [${a}, ${b}); expected [${new Date(from).toISOString()}, ${new Date(to).toISOString()})`,
        [ex],
      );
  }
  return undefined;
}

/** Each bin counts, by state type, the runs whose `binnedBy` instant falls in it. */
function binsCounted(shape: HistoryShape, ex: Exchange, bins: Obj[], runs: Obj[], binnedBy: string, start: number) {
  const step = INTERVAL_SECONDS * 1000;
  for (let i = 0; i < bins.length; i++) {
    const [from, to] = [BigInt(start + i * step) * 1000n, BigInt(start + (i + 1) * step) * 1000n];
    const expected = new Map<string, number>();
    for (const r of runs) {
      const t = micros(r[binnedBy]);
      if (t >= from && t < to) expected.set(typeOf(r), (expected.get(typeOf(r)) ?? 0) + 1);
    }
    const got = countsOf(shape, bins[i]);
    if (show(got) !== show(expected))
      return fail(
        'aggregate.mismatch',
        'bin counts',
        `bin ${i} [${bins[i][shape.bin.start]}) counts ${show(got)}; the run's objects give ${show(expected)}`,
        [ex],
      );
  }
  return undefined;
}

/** Summed over every bin of a window that holds all their instants, the counts by state type are the runs'. */
function totalsCounted(shape: HistoryShape, ex: Exchange, bins: Obj[], runs: Obj[]) {
  const got = new Map<string, number>();
  for (const bin of bins) for (const [type, n] of countsOf(shape, bin)) got.set(type, (got.get(type) ?? 0) + n);
  const expected = new Map<string, number>();
  for (const r of runs) expected.set(typeOf(r), (expected.get(typeOf(r)) ?? 0) + 1);
  return show(got) === show(expected)
    ? undefined
    : fail(
        'aggregate.mismatch',
        'totals',
        `the bins count ${show(got)} in all; the run's objects give ${show(expected)}`,
        [ex],
      );
}

/** aggregates.history: the run's own runs, binned as the document's history says. */
export async function historyAgrees(op: Operation, ctx: CheckContext): Promise<Verdict> {
  const shape = historyShape(ctx, op);
  if (!shape) throw new Skip("the history's body or answer has not the shape of start, end, interval and bins");
  const q = await queryContext(ctx);
  const key = op.path.split('/')[1];
  const runs = q.built.corpus[key] ?? [];
  if (!runs.length) throw new Skip(`no corpus of ${key}`);
  const binnedBy = ctx.profile.historyBinnedBy;
  const times = binnedBy ? runs.map((r) => Date.parse(String(r[binnedBy]))) : [...runs.flatMap(instantsOf), Date.now()];
  const start = Math.floor(Math.min(...times) / 1000) * 1000 - MARGIN_MS;
  const end = Math.ceil(Math.max(...times) / 1000) * 1000 + MARGIN_MS;
  const ex = await historyOf(ctx, op, shape, key, q.ids(key), start, end);
  if (isLoadAnswer(ex)) return unexpected('history', ex);
  if (!is2xx(ex) || !Array.isArray(ex.json))
    return fail('status.unexpected', statusKey(ex), `history answered ${ex.status}`, [ex]);
  const bins = ex.json as Obj[];
  const failed =
    binsLaidOut(ctx, shape, ex, bins, start, end) ??
    (binnedBy ? binsCounted(shape, ex, bins, runs, binnedBy, start) : totalsCounted(shape, ex, bins, runs));
  return (
    failed ??
    pass(
      `${bins.length} bins agree with ${runs.length} ${key}${binnedBy ? '' : ' (in all: the spec names no instant to bin by)'}`,
    )
  );
}

/** A history of the run's runs over the last hour with the interval given (for the invalid-interval check). */
export function recentHistory(
  ctx: CheckContext,
  op: Operation,
  intervalSeconds: number,
): Promise<Exchange> | undefined {
  const shape = historyShape(ctx, op);
  if (!shape) return undefined;
  const now = Date.now();
  return ctx.send({
    method: 'POST',
    template: op.path,
    path: op.path,
    json: {
      [shape.start]: new Date(now - 3_600_000).toISOString(),
      [shape.end]: new Date(now).toISOString(),
      [shape.interval]: intervalSeconds,
      [op.path.split('/')[1]]: { id: { any_: [] } },
    },
  });
}
