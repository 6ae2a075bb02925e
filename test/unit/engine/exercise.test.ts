import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { SafeValues } from '../../../src/cases/safeValues.js';
import { UNKNOWN_UUID } from '../../../src/model/profiles/profile.js';
import type { OperationRun } from '../../../src/checks/core/context.js';
import type { Exchange, HttpClient } from '../../../src/http/client.js';
import type { Operation } from '../../../src/openapi/operations.js';
import { buildModel } from '../../../src/model/model.js';
import { seedProfile } from '../../../src/model/profiles/seed.js';
import type { RequestToSend } from '../../../src/openapi/request.js';
import { SchemaValidators } from '../../../src/openapi/validators.js';
import { Ledger } from '../../../src/resources/ledger.js';
import { FixturePool } from '../../../src/resources/pool.js';
import { type ExerciseContext, changedFields, exerciseOperation } from '../../../src/engine/exercise.js';
import { referenceDoc } from '../support.js';

const doc = referenceDoc();
const model = buildModel(doc);

// The exercise's pauses (a busy server asked again after 3, 9 and 27 s; a value read again after it settled) pass on
// a fake clock: a test judges what is sent in what order, not how long it waits (this file took 130 s so).
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
});
afterEach(() => {
  vi.useRealTimers();
});

/** The operation's exercise, the clock moved on to its next timer whenever it waits for one. */
async function exercised(ctx: ExerciseContext, op: Operation): Promise<OperationRun> {
  let settled = false;
  const running = exerciseOperation(ctx, op).finally(() => {
    settled = true;
  });
  while (!settled) await vi.advanceTimersToNextTimerAsync();
  return running;
}

/** The exercise's target answering through `answer`, which may pass the request on to the fake target (`send`). */
function answering(
  ctx: ExerciseContext,
  answer: (r: RequestToSend, send: (r: RequestToSend) => Promise<Exchange>) => Promise<Exchange>,
): void {
  const send = ctx.client.send.bind(ctx.client);
  ctx.client = { send: (r: RequestToSend) => answer(r, send) } as unknown as HttpClient;
}

/** An exercise whose target accepts every valid body (201) and refuses every other (422), and what it was sent. */
function exercising() {
  const sent: RequestToSend[] = [];
  const validators = new SchemaValidators(doc);
  const answer = async (spec: RequestToSend): Promise<Exchange> => {
    sent.push(spec);
    const status = spec.refusedBeforeData ? 422 : 201;
    // A create's answer holds what it was sent, as a server's does: a member's name comes back with its id.
    const echoed = spec.method === 'POST' && spec.json && typeof spec.json === 'object' && !Array.isArray(spec.json);
    const id = `00000000-0000-4000-8000-${String(sent.length).padStart(12, '0')}`;
    const json = status === 201 ? { ...(echoed ? (spec.json as object) : {}), id } : {};
    const requestBody = spec.json === undefined ? undefined : JSON.stringify(spec.json);
    return { status, json, body: JSON.stringify(json), contentType: 'application/json', requestBody } as Exchange;
  };
  const ledger = new Ledger();
  const pool = new FixturePool(model, answer, ledger, { readOnly: false });
  const cases = { model, fixtures: pool, safe: new SafeValues('ct-exercise'), profile: seedProfile };
  pool.attach(cases);
  const ctx: ExerciseContext = {
    cases,
    client: { send: answer } as unknown as HttpClient,
    pool,
    validators,
    seed: 7,
    runs: 5,
    readOnly: false,
    disposable: false,
    replays: () => [],
    harmsOthers: () => [],
    problemWithValidExchange: () => undefined,
    validRefused: { count: 0 },
  };
  return { ctx, sent, ledger };
}

describe('exerciseOperation', () => {
  test('the bodies its schema refuses, and only those, say so to the client (they may go beside a write)', async () => {
    const { ctx, sent } = exercising();
    const op = model.operations.find((o) => o.key === 'POST /variables/')!;
    const run = await exercised(ctx, op);
    const negatives = run.sent.filter((s) => s.kind === 'negative');
    expect(negatives.length).toBeGreaterThan(0);
    expect(run.sent.some((s) => s.kind === 'recipe')).toBe(true);
    const refused = sent.filter((spec) => spec.refusedBeforeData);
    expect(refused).toHaveLength(negatives.length);
    for (const s of run.sent.filter((x) => x.kind !== 'wrong-content-type'))
      expect(s.exchange.status, s.kind).toBe(s.kind === 'negative' ? 422 : 201);
    // The recipe's body sent once more as text/plain, a write as any other: what the server does with it is its own.
    const textPlain = sent.filter((spec) => spec.headers?.['content-type'] === 'text/plain');
    expect(textPlain).toHaveLength(1);
    expect(textPlain[0].refusedBeforeData).toBeUndefined();
  });
});

describe('the fields a generated cause lies in', () => {
  test("every random body that failed is keyed by the shrunk counterexample's fields; a replay by its own", async () => {
    const { ctx } = exercising();
    // A server that crashes on a variable whose value is a number, whatever else the body holds.
    answering(ctx, async (r, send) => {
      const ex = await send(r);
      const value = (r.json as { value?: unknown } | undefined)?.value;
      return typeof value === 'number' && !r.refusedBeforeData ? ({ ...ex, status: 500 } as Exchange) : ex;
    });
    ctx.runs = 20;
    ctx.problemWithValidExchange = (_op, ex) => (ex.status >= 500 ? 'a server error' : undefined);
    ctx.replays = () => [{ kind: 'generated', overlay: { tags: ['replayed'] }, id: 'r1' }];
    const op = model.operations.find((o) => o.key === 'POST /variables/')!;
    const run = await exercised(ctx, op);
    const generated = run.sent.filter((s) => s.kind === 'generated');
    const crashed = generated.filter((s) => s.exchange.status === 500 && s.detail === undefined);
    expect(crashed.length).toBeGreaterThan(0);
    // One key for them all: the counterexample's fields, the cause among them (a generated name may stay beside it).
    expect(new Set(crashed.map((s) => JSON.stringify(s.fields))).size).toBe(1);
    expect(crashed[0].fields).toContain('value');
    expect(crashed[0].fields).not.toContain('tags');
    const replayed = generated.find((s) => s.detail === "the baseline's replayed body");
    expect(replayed?.fields).toEqual(['tags']);
    // It names its replay, so that a verify can tell which entry of one key it showed.
    expect(replayed?.replay).toBe('r1');
  });

  test("the replays of an operation that changes its object go, in their order, to one fresh object of its own: not the exercise's, which the seed's bodies changed", async () => {
    const { ctx, sent } = exercising();
    ctx.replays = () => [
      { kind: 'generated', overlay: { state: { type: 'COMPLETED', data: 'x' } }, repeat: 2, id: 'poison' },
      { kind: 'generated', overlay: {}, id: 'after' },
    ];
    const op = model.operations.find((o) => o.key === 'POST /task_runs/{id}/set_state')!;
    const run = await exercised(ctx, op);
    expect(run.sent.filter((s) => s.replay).map((s) => s.replay)).toEqual(['poison', 'poison', 'after']);
    const toOp = sent.filter((r) => r.template === op.path);
    const recipe = toOp[0];
    const poisoned = toOp.findIndex((r) => (JSON.stringify(r.json) ?? '').includes('"data":"x"'));
    const replays = toOp.slice(poisoned, poisoned + 3);
    expect(replays[2].json).toEqual(recipe.json);
    expect(new Set(replays.map((r) => r.path)).size).toBe(1);
    expect(replays[0].path).not.toBe(recipe.path);
  });

  test("a body's top-level fields absent from the valid request's body, or of another value, sorted", () => {
    const recipe = { name: 'n', tags: [], flow_id: 'f' };
    expect(changedFields({ name: 'n', tags: [], flow_id: 'f', work_pool_name: 'x' }, recipe)).toEqual([
      'work_pool_name',
    ]);
    expect(changedFields({ tags: ['a'], name: 'n', description: null }, recipe)).toEqual(['description', 'tags']);
    expect(changedFields(recipe, recipe)).toEqual([]);
    expect(changedFields([1], recipe)).toEqual([]);
    expect(changedFields({ limit: 0 }, undefined)).toEqual(['limit']);
    // Two fresh names of the run are the same value; a name that is not the run's is not.
    expect(changedFields({ name: 'ct-9', value: 1 }, { name: 'ct-1', value: 1 }, 'ct')).toEqual([]);
    expect(changedFields({ name: 'other' }, { name: 'ct-1' }, 'ct')).toEqual(['name']);
    expect(changedFields({ key: 'ct-g0-B' }, { key: 'ct-1' }, 'ct')).toEqual(['key']);
  });
});

describe('the edges every run sends', () => {
  /** A target that crashes on a variable whose value is a string of more than 500 characters. */
  function crashingOnLongValues() {
    const { ctx, sent } = exercising();
    answering(ctx, async (r, send) => {
      const ex = await send(r);
      const value = (r.json as { value?: unknown } | undefined)?.value;
      return typeof value === 'string' && value.length > 500 ? ({ ...ex, status: 500 } as Exchange) : ex;
    });
    ctx.problemWithValidExchange = (_op, ex) => (ex.status >= 500 ? 'a server error' : undefined);
    return { ctx, sent };
  }
  const variables = () => model.operations.find((o) => o.key === 'POST /variables/')!;

  test('come after the recipe and before the random bodies, the same whatever the seed', async () => {
    const bodies = async (seed: number) => {
      const { ctx } = exercising();
      ctx.seed = seed;
      const run = await exercised(ctx, variables());
      const kinds = run.sent.map((s) => s.kind);
      expect(kinds[0]).toBe('recipe');
      expect(kinds.indexOf('generated')).toBeGreaterThan(kinds.lastIndexOf('edge'));
      return run.sent.filter((s) => s.kind === 'edge').map((s) => s.exchange.requestBody ?? s.detail);
    };
    expect(await bodies(1)).toEqual(await bodies(2));
  });

  test('a row that crashes goes one field at a time, and the crash is keyed by its own field alone', async () => {
    const { ctx } = crashingOnLongValues();
    const run = await exercised(ctx, variables());
    const crashed = run.sent.filter((s) => s.kind === 'edge' && s.exchange.status === 500);
    expect(crashed.length).toBeGreaterThan(0);
    for (const s of crashed) expect(s.fields).toEqual(['value']);
    // The long name went alone too, and was taken.
    const longName = run.sent.find((s) => s.kind === 'edge' && s.detail === 'edge long: /name');
    expect(longName?.exchange.status).toBe(201);
  });

  test('a create that names its member gets its edges on the member the recipe made and on a new one', async () => {
    const { ctx, sent } = exercising();
    await exercised(ctx, variables());
    const recipeName = (
      sent[sent.findIndex((r) => r.json && (r.json as { name?: string }).name)].json as { name: string }
    ).name;
    const nullValues = sent.filter((r) => r.json && (r.json as { value?: unknown }).value === null);
    const names = nullValues.map((r) => (r.json as { name: string }).name);
    expect(names).toContain(recipeName);
    expect(names.some((n) => n !== recipeName && n.startsWith('ct-exercise-'))).toBe(true);
  });

  test("on a new member every edge request names one of its own: no row meets another row's member (409)", async () => {
    const { ctx, sent } = exercising();
    await exercised(ctx, variables());
    const names = sent
      // The creates sent at once share one name on purpose (sendAtOnce).
      .filter((r) => r.path === '/variables/' && !r.refusedBeforeData && !r.racing)
      .map((r) => (r.json as { name?: unknown } | undefined)?.name)
      .filter((n): n is string => typeof n === 'string');
    // The random bodies' names are drawn (`-g<n>`); the edges' are the recipe's, fresh ones, or name edges.
    const edgeNames = names.filter((n) => n !== names[0] && !/-g\d/.test(n));
    expect(edgeNames.length).toBeGreaterThan(5);
    expect(new Set(edgeNames).size).toBe(edgeNames.length);
  });

  test('values past what a server must hold come last, keyed by their label, and what they made is deleted then', async () => {
    const { ctx, sent } = exercising();
    const op = model.operations.find((o) => o.key === 'POST /v2/concurrency_limits/')!;
    const run = await exercised(ctx, op);
    const kinds = run.sent.map((s) => s.kind);
    const extremes = run.sent.filter((s) => s.kind === 'extreme');
    expect(extremes.map((s) => s.edge)).toContain('past-64-bits');
    expect(extremes.map((s) => s.edge)).toContain('unknown-only');
    expect(kinds.indexOf('extreme')).toBeGreaterThan(kinds.lastIndexOf('generated'));
    expect(kinds.indexOf('extreme')).toBeGreaterThan(kinds.lastIndexOf('negative'));
    // Every member an extreme body made (this target takes them all: 201) is deleted after the last of them.
    const made = extremes.map((s) => (s.exchange.json as { id: string }).id);
    const deletes = sent.filter((r) => r.method === 'DELETE').map((r) => r.path);
    expect(deletes).toEqual(made.map((id) => `/v2/concurrency_limits/${id}`));
    const lastExtreme = Math.max(
      ...sent.map((r, i) => (JSON.stringify(r.json ?? '').includes('18446744073709552000') ? i : -1)),
    );
    expect(sent.findIndex((r) => r.method === 'DELETE')).toBeGreaterThan(lastExtreme);
  });

  test('an extreme edge the baseline says breaks the server for its other clients is not sent, and its check is told why', async () => {
    const { ctx } = exercising();
    const op = model.operations.find((o) => o.key === 'POST /v2/concurrency_limits/')!;
    const all = await exercised(ctx, op);
    const reason = 'every list of the limits answers 503 while it lasts';
    const withheld = await exercised(
      {
        ...ctx,
        disposable: false,
        harmsOthers: (o) => (o === op ? [{ edge: 'past-64-bits', check: 'contract.reads-back', reason }] : []),
      },
      op,
    );
    const edges = (run: typeof all) => run.sent.filter((s) => s.kind === 'extreme').map((s) => s.edge);
    expect(edges(all)).toContain('past-64-bits');
    expect(edges(withheld)).not.toContain('past-64-bits');
    expect(edges(withheld)).toEqual(edges(all).filter((e) => e !== 'past-64-bits'));
    expect(withheld.withheld).toEqual([
      {
        check: 'contract.reads-back',
        edge: 'past-64-bits',
        reason: expect.stringMatching(
          /^the past-64-bits edge is not sent to a server that is not the run's own \(--disposable\): every list/,
        ),
      },
    ]);
    expect(all.withheld).toBeUndefined();
  });

  test("a DELETE goes to each member the server made under a parent of the run's own, listed by the collection's filter", async () => {
    const { ctx, sent } = exercising();
    // The target lists one queue it made itself in every pool, as Prefect's default queue.
    answering(ctx, async (r, send) => {
      if (!r.path.endsWith('/queues/filter')) return send(r);
      sent.push(r);
      return { status: 200, json: [{ name: 'default' }], body: '', contentType: 'application/json' } as Exchange;
    });
    const op = model.operations.find((o) => o.key === 'DELETE /work_pools/{work_pool_name}/queues/{name}')!;
    const run = await exercised(ctx, op);
    const serverMade = run.sent.filter((s) => s.kind === 'server-made');
    expect(serverMade).toHaveLength(1);
    const listed = sent.find((r) => r.path.endsWith('/queues/filter'))!;
    const pool = listed.path.split('/')[2];
    expect(serverMade[0].detail).toMatch(/\{work_pool_name\}: "default"$/);
    // The pool is one made for this request: not the recipe's, whose queue the recipe deleted.
    const recipePool = sent.find((r) => r.method === 'DELETE')!.path.split('/')[2];
    expect(pool).not.toBe(recipePool);
    expect(sent.filter((r) => r.method === 'DELETE').map((r) => r.path)).toContain(
      `/work_pools/${pool}/queues/default`,
    );
  });
});

describe('what the exercise follows and sends last', () => {
  test('a request that renames its object through the path that names it moves the later ones to the new name', async () => {
    const { ctx, sent, ledger } = exercising();
    const op = model.operations.find((o) => o.key === 'PATCH /work_pools/{work_pool_name}/queues/{name}')!;
    await exercised(ctx, op);
    const patches = sent.filter((r) => r.method === 'PATCH' && !r.path.endsWith('/conformance-unknown-0000'));
    expect(patches.length).toBeGreaterThan(5);
    // Each PATCH after the first goes to the name the one before it gave (this target takes them all).
    for (let i = 1; i < patches.length; i++) {
      const before = patches[i - 1];
      const body = before.json;
      const name =
        body && typeof body === 'object' && !Array.isArray(body) ? (body as { name?: unknown }).name : undefined;
      const expected = typeof name === 'string' && !before.refusedBeforeData ? name : undefined;
      if (expected) expect(decodeURIComponent(patches[i].path.split('/').at(-1)!)).toBe(expected);
    }
    // Cleanup finds the queue under the name it has now.
    const now = decodeURIComponent(patches.at(-1)!.path.split('/').at(-1)!);
    expect(ledger.has('/work_pools/{work_pool_name}/queues', now)).toBe(true);
  });

  test('the one item of a body that is a list gets the edges an object body gets, sent as a list of one', async () => {
    const { ctx } = exercising();
    const run = await exercised(ctx, model.operations.find((o) => o.key === 'POST /logs/')!);
    const edges = run.sent.filter((s) => s.kind === 'edge' || s.kind === 'extreme');
    expect(edges.map((s) => s.edge)).toContain('past-64-bits');
    for (const s of edges) expect(JSON.parse(s.exchange.requestBody!)).toHaveLength(1);
  });

  test('each reference of a body goes once naming no object, keyed by its field, and what it made is deleted', async () => {
    const { ctx, sent } = exercising();
    const run = await exercised(ctx, model.operations.find((o) => o.key === 'POST /deployments/')!);
    const unknown = run.sent.filter((s) => s.kind === 'unknown-reference');
    expect(unknown.map((s) => s.fields)).toContainEqual(['flow_id']);
    const flowIdUnknown = unknown.find((s) => s.fields?.[0] === 'flow_id')!;
    expect(JSON.parse(flowIdUnknown.exchange.requestBody!).flow_id).toBe(UNKNOWN_UUID);
    const made = (flowIdUnknown.exchange.json as { id: string }).id;
    expect(sent.filter((r) => r.method === 'DELETE').map((r) => r.path)).toContain(`/deployments/${made}`);
  });
});

describe("an extreme edge the baseline says breaks the server for its other clients, on the run's own target", () => {
  test('goes with the target to itself, and what it made is read again and deleted before the section ends', async () => {
    const { ctx, sent } = exercising();
    const sections: Array<[number, number]> = [];
    (ctx.client as unknown as { alone: (fn: () => Promise<unknown>) => Promise<unknown> }).alone = async (fn) => {
      const from = sent.length;
      const out = await fn();
      sections.push([from, sent.length]);
      return out;
    };
    // The run's own target: the edge is sent (on another's it is withheld), with the target to itself.
    ctx.disposable = true;
    ctx.harmsOthers = () => [{ edge: 'reserved-characters', check: 'contract.reads-back', reason: 'breaks lists' }];
    await exercised(ctx, model.operations.find((o) => o.key === 'POST /work_queues/')!);
    expect(sections.length).toBeGreaterThan(0);
    for (const [from, to] of sections) {
      const inside = sent.slice(from, to);
      const made = inside.find((r) => r.method === 'POST' && JSON.stringify(r.json).includes('<&%>'));
      expect(made).toBeDefined();
      // Each member the row made is deleted inside the section, not at the exercise's end.
      const creates = inside.filter((r) => r.method === 'POST' && r.path === '/work_queues/').length;
      expect(inside.filter((r) => r.method === 'DELETE').length).toBe(creates);
    }
  });
});

describe('what a fuzzer sends that the random bodies do not', () => {
  test('a create goes three times at once under one fresh name, each answer kept and keyed by the name fields', async () => {
    const { ctx, sent } = exercising();
    const run = await exercised(ctx, model.operations.find((o) => o.key === 'POST /variables/')!);
    const atOnce = run.sent.filter((s) => s.kind === 'at-once');
    expect(atOnce).toHaveLength(3);
    const names = atOnce.map((s) => JSON.parse(s.exchange.requestBody!).name as string);
    expect(new Set(names).size).toBe(1);
    expect(names[0]).toMatch(/^ct-exercise-/);
    // A name of its own: no earlier request of the exercise sent it.
    const earlier = sent.filter((r) => !r.racing).map((r) => (r.json as { name?: unknown } | undefined)?.name);
    expect(earlier).not.toContain(names[0]);
    expect(sent.filter((r) => r.racing)).toHaveLength(3);
    for (const s of atOnce) expect(s.fields).toEqual(['name']);
  });

  test("an action's least amount, then its largest, go three times in a row each, naming a member made for it", async () => {
    const { ctx, sent } = exercising();
    const op = model.operations.find((o) => o.key === 'POST /v2/concurrency_limits/decrement')!;
    const run = await exercised(ctx, op);
    const repeated = run.sent.filter((s) => s.kind === 'repeated-amount');
    expect(repeated.map((s) => s.detail)).toEqual(
      [1, 2 ** 31 - 1].flatMap((n) => [1, 2, 3].map((i) => `/slots at ${n}, ${i} of 3 in a row`)),
    );
    const bodies = repeated.map((s) => JSON.parse(s.exchange.requestBody!) as { slots: number; names: string[] });
    for (const b of bodies) expect(b.names).toEqual(bodies[0]!.names);
    // The limit it names was made for it, by the collection's create, before the first of them.
    const name = bodies[0]!.names[0];
    expect(name).toMatch(/^ct-exercise-/);
    const made = sent.findIndex(
      (r) => r.path === '/v2/concurrency_limits/' && (r.json as { name?: string })?.name === name,
    );
    const first = sent.findIndex((r) => JSON.stringify(r.json) === repeated[0]!.exchange.requestBody);
    expect(made).toBeGreaterThanOrEqual(0);
    expect(made).toBeLessThan(first);
  });

  test('a create is not an action: it gets no repeated amount', async () => {
    const { ctx } = exercising();
    const run = await exercised(ctx, model.operations.find((o) => o.key === 'POST /work_queues/')!);
    expect(run.sent.filter((s) => s.kind === 'repeated-amount')).toEqual([]);
  });

  test('a number past 64 bits goes alone on the body of the largest ordinary numbers, and what it made is read again after it settled', async () => {
    const { ctx, sent } = exercising();
    // A target that crashes on a limit or slot count past 64 bits, as SQLite does, and takes a decay of any size.
    answering(ctx, async (r, send) => {
      const ex = await send(r);
      const body = (r.method === 'POST' ? r.json : undefined) as Record<string, unknown> | undefined;
      const huge = ['limit', 'active_slots', 'denied_slots'].some((f) => Number(body?.[f]) >= 2 ** 63);
      return huge ? ({ ...ex, status: 500 } as Exchange) : ex;
    });
    const run = await exercised(ctx, model.operations.find((o) => o.key === 'POST /v2/concurrency_limits/')!);
    const decay = run.sent.find(
      (s) => s.kind === 'extreme' && s.edge === 'past-64-bits' && s.fields?.join() === 'slot_decay_per_second',
    );
    const body = JSON.parse(decay!.exchange.requestBody!) as Record<string, unknown>;
    expect(body).toMatchObject({ slot_decay_per_second: 2 ** 64, active_slots: 2 ** 31 - 1, limit: 2 ** 31 - 1 });
    // Read at once, and again at the exercise's end (each time by id: the fake's filter names no id), then deleted.
    const id = (decay!.exchange.json as { id: string }).id;
    const paths = sent.map((r) => `${r.method} ${r.path}`);
    const reads = paths.flatMap((p, i) => (p === `GET /v2/concurrency_limits/${id}` ? [i] : []));
    expect(reads).toHaveLength(2);
    expect(reads[1]).toBeLessThan(paths.indexOf(`DELETE /v2/concurrency_limits/${id}`));
    const again = run.sent.find((s) => s.kind === 'read-back' && s.detail?.startsWith('read back again'));
    expect(Number(/again, ([\d.]+) s after/.exec(again?.detail ?? '')?.[1])).toBeGreaterThanOrEqual(2);
  });
});

describe('a request a busy server refused through the retries', () => {
  test('is sent again after a pause; served then, the served answer is the one judged, the busy one kept beside it', async () => {
    const { ctx } = exercising();
    let recipes = 0;
    answering(ctx, async (r, send) => {
      const ex = await send(r);
      // The recipe's first send meets a server that stays busy (503 through the client's retries).
      return r.json && !r.refusedBeforeData && recipes++ === 0 ? ({ ...ex, status: 503, attempts: 6 } as Exchange) : ex;
    });
    const op = model.operations.find((o) => o.key === 'POST /variables/')!;
    const started = Date.now();
    const run = await exercised(ctx, op);
    const recipe = run.sent.find((s) => s.kind === 'recipe')!;
    expect(recipe.exchange.status).toBe(201);
    expect(recipe.busyFirst?.status).toBe(503);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2900);
    expect(run.sent.filter((s) => s.busyFirst)).toHaveLength(1);
  });

  test("an extreme value's 503, where the valid request after the pause is served, is sent once more right after it, then kept: its own answer", async () => {
    const { ctx } = exercising();
    const extremeSends: string[] = [];
    answering(ctx, async (r, send) => {
      const ex = await send(r);
      const limit = (r.json as { limit?: unknown } | undefined)?.limit;
      if (typeof limit === 'number' && limit > 2 ** 63) {
        extremeSends.push(JSON.stringify(r.json));
        return { ...ex, status: 503, attempts: 6 } as Exchange;
      }
      return ex;
    });
    const op = model.operations.find((o) => o.key === 'POST /v2/concurrency_limits/')!;
    const run = await exercised(ctx, op);
    const busy = run.sent.filter((s) => s.exchange.status === 503);
    expect(busy.length).toBeGreaterThan(0);
    for (const s of busy) expect(s.busyFirst?.status).toBe(503);
    // Each such body twice: once, then once after the pause and the valid request served.
    const times = new Map<string, number>();
    for (const b of extremeSends) times.set(b, (times.get(b) ?? 0) + 1);
    expect([...times.values()].every((n) => n === 2)).toBe(true);
    // Its 503 is the value's: the operation's next requests are not taken for busy ones.
    expect(run.sent.filter((s) => s.kind === 'extreme' && s.exchange.status === 201).length).toBeGreaterThan(0);
  }, 30_000);

  test("any request's 503, where the valid request after the pause is served, is sent right after it, twice, then kept: no pauses more", async () => {
    const { ctx } = exercising();
    // Prefect on PostgreSQL: a negative limit is a query the database refuses, 503 whatever the load.
    const negative = (r: RequestToSend) => Number((r.json as { limit?: unknown } | undefined)?.limit) < 0;
    const sends: RequestToSend[] = [];
    answering(ctx, async (r, send) => {
      sends.push(r);
      const ex = await send(r);
      return negative(r) && !r.refusedBeforeData ? ({ ...ex, status: 503, attempts: 6 } as Exchange) : ex;
    });
    const op = model.operations.find((o) => o.key === 'POST /flows/filter')!;
    const run = await exercised(ctx, op);
    const refused = run.sent.filter((s) => s.exchange.status === 503);
    expect(refused.length).toBeGreaterThan(0);
    for (const s of refused) expect(s.busyFirst?.status).toBe(503);
    const recipe = JSON.stringify(run.sent.find((s) => s.kind === 'recipe')!.exchange.requestBody);
    const ordinary = sends.filter((r) => negative(r) && !r.refusedBeforeData && !r.valuesSuspect);
    expect(ordinary.length).toBeGreaterThan(0);
    for (const body of new Set(ordinary.map((r) => JSON.stringify(r.json)))) {
      // Three times (the first send, then once after each of two pauses), not once per pause of the busy
      // server's; the valid request right before each time it goes again.
      const at = sends.flatMap((r, i) => (JSON.stringify(r.json) === body && !r.refusedBeforeData ? [i] : []));
      expect(at, body).toHaveLength(3);
      for (const i of at.slice(1)) expect(JSON.stringify(JSON.stringify(sends[i - 1].json)), body).toBe(recipe);
    }
  }, 60_000);

  test("an extreme value's 503 sent once more after the valid request renamed the object goes to the object's new path", async () => {
    const { ctx } = exercising();
    const past64 = (r: RequestToSend) =>
      Object.values((r.json as Record<string, unknown> | undefined) ?? {}).some(
        (v) => typeof v === 'number' && v > 2 ** 63,
      );
    const sends: RequestToSend[] = [];
    answering(ctx, async (r, send) => {
      sends.push(r);
      const ex = await send(r);
      return past64(r) && sends.filter(past64).length % 2 === 1
        ? ({ ...ex, status: 503, attempts: 6 } as Exchange)
        : ex;
    });
    const op = model.operations.find((o) => o.key === 'PATCH /work_pools/{work_pool_name}/queues/{name}')!;
    await exercised(ctx, op);
    const first = sends.findIndex(past64);
    expect(first).toBeGreaterThan(0);
    const again = sends.findIndex((r, i) => i > first && past64(r));
    // Between them, the valid request after the pause: it names the queue anew, and the value follows it there.
    const probe = sends[again - 1];
    const renamed = (probe.json as { name?: string }).name;
    expect(probe.refusedBeforeData).toBeFalsy();
    expect(renamed).toBeDefined();
    expect(decodeURIComponent(sends[again].path.split('/').at(-1)!)).toBe(renamed);
    expect(sends[again].path).not.toBe(sends[first].path);
  }, 30_000);

  test('an extreme value refused while the valid request is refused too is asked again as patiently as any: the server was busy', async () => {
    const { ctx } = exercising();
    // Every write refused for 4 s from the first value past 64 bits on (another client holds the lock).
    let busyUntil = 0;
    const sentInWindow: string[] = [];
    answering(ctx, async (r, send) => {
      const limit = (r.json as { limit?: unknown } | undefined)?.limit;
      if (busyUntil === 0 && typeof limit === 'number' && limit > 2 ** 63) busyUntil = Date.now() + 4000;
      const ex = await send(r);
      if (r.json === undefined || r.refusedBeforeData || Date.now() >= busyUntil) return ex;
      sentInWindow.push(typeof limit === 'number' && limit > 2 ** 63 ? 'value' : 'other');
      return { ...ex, status: 503, attempts: 2 } as Exchange;
    });
    const op = model.operations.find((o) => o.key === 'POST /v2/concurrency_limits/')!;
    const run = await exercised(ctx, op);
    // The value, then the valid request after the pause: both refused; the value asked again later is served.
    expect(sentInWindow.slice(0, 2)).toEqual(['value', 'other']);
    const first = run.sent.find((s) => s.busyFirst && s.kind === 'extreme');
    expect(first?.exchange.status).toBe(201);
    expect(run.sent.filter((s) => s.exchange.status === 503)).toEqual([]);
  }, 30_000);

  test('no answer in time, where the valid request after the pause is answered, is sent once more right after it: its answer its own', async () => {
    const { ctx } = exercising();
    const negative = (r: RequestToSend) => Number((r.json as { limit?: unknown } | undefined)?.limit) < 0;
    const seen = new Set<string>();
    const sends: RequestToSend[] = [];
    answering(ctx, async (r, send) => {
      sends.push(r);
      const ex = await send(r);
      const body = JSON.stringify(r.json);
      // Each body of a negative limit unanswered the first time it goes (a lock another client held).
      if (!negative(r) || r.refusedBeforeData || seen.has(body)) return ex;
      seen.add(body);
      return { ...ex, status: 0, json: undefined, error: 'UND_ERR_HEADERS_TIMEOUT: Headers Timeout Error' } as Exchange;
    });
    const op = model.operations.find((o) => o.key === 'POST /flows/filter')!;
    const run = await exercised(ctx, op);
    const late = run.sent.filter((s) => s.busyFirst?.status === 0);
    expect(late.length).toBeGreaterThan(0);
    for (const s of late) {
      expect(s.exchange.status).toBe(201);
      expect(s.busyBeside).toBeUndefined();
    }
    expect(run.sent.filter((s) => s.exchange.status === 0)).toEqual([]);
  }, 60_000);

  test('no answer in time while the valid request after the pause gets none either is load: asked again later, the server called busy', async () => {
    const { ctx } = exercising();
    // Nothing with a body answered for 4 s from the first value past 64 bits on (the machine is swamped).
    let busyUntil = 0;
    answering(ctx, async (r, send) => {
      const limit = (r.json as { limit?: unknown } | undefined)?.limit;
      if (busyUntil === 0 && typeof limit === 'number' && limit > 2 ** 63) busyUntil = Date.now() + 4000;
      const ex = await send(r);
      if (r.json === undefined || r.refusedBeforeData || Date.now() >= busyUntil) return ex;
      return { ...ex, status: 0, json: undefined, error: 'UND_ERR_HEADERS_TIMEOUT: Headers Timeout Error' } as Exchange;
    });
    const op = model.operations.find((o) => o.key === 'POST /v2/concurrency_limits/')!;
    const run = await exercised(ctx, op);
    const first = run.sent.find((s) => s.busyFirst && s.kind === 'extreme');
    expect(first).toMatchObject({ exchange: { status: 201 }, busyFirst: { status: 0 }, busyBeside: true });
    expect(run.sent.filter((s) => s.exchange.status === 0)).toEqual([]);
  }, 30_000);

  test('on a server that has refused valid requests, one refused beside its served valid request is asked so again, after pauses that grow', async () => {
    // Each body past 64 bits refused twice (its first send, and right after the valid request), then served.
    const refusing = (ctx: ReturnType<typeof exercising>['ctx']) => {
      const times = new Map<string, number>();
      answering(ctx, async (r, send) => {
        const ex = await send(r);
        const limit = (r.json as { limit?: unknown } | undefined)?.limit;
        if (typeof limit !== 'number' || limit <= 2 ** 63 || r.refusedBeforeData) return ex;
        const body = JSON.stringify(r.json);
        times.set(body, (times.get(body) ?? 0) + 1);
        return times.get(body)! <= 2 ? ({ ...ex, status: 503, attempts: 2 } as Exchange) : ex;
      });
    };
    const op = model.operations.find((o) => o.key === 'POST /v2/concurrency_limits/')!;
    const past64 = (run: Awaited<ReturnType<typeof exerciseOperation>>) =>
      run.sent.find((s) => s.kind === 'extreme' && s.busyFirst)!;
    // A quiet server's refusal beside a served valid request is the value's own: asked once.
    const quiet = exercising().ctx;
    refusing(quiet);
    expect(past64(await exercised(quiet, op)).exchange.status).toBe(503);
    // Two valid requests refused before: the lock may be another client's, and the value is asked again.
    const loaded = exercising().ctx;
    loaded.validRefused.count = 2;
    refusing(loaded);
    const started = Date.now();
    const run = await exercised(loaded, op);
    expect(past64(run)).toMatchObject({ exchange: { status: 201 }, busyFirst: { status: 503 } });
    // The pauses before the valid request: 3 s, then 9 s.
    expect(Date.now() - started).toBeGreaterThanOrEqual(12_000);
  }, 60_000);
});
