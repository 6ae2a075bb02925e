import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { SafeValues } from '../../../src/cases/safeValues.js';
import { buildModel } from '../../../src/model/model.js';
import { prefectProfile } from '../../../src/model/profiles/prefect.js';
import { seedProfile } from '../../../src/model/profiles/seed.js';
import type { Answer, RequestToSend } from '../../../src/openapi/request.js';
import { Ledger } from '../../../src/resources/ledger.js';
import { FixturePool, isTransientFixtureFailure } from '../../../src/resources/pool.js';
import { referenceDoc } from '../support.js';

const model = buildModel(referenceDoc());

/** A pool whose server answers each create with the next answer of `answers`, and what it was sent. */
function poolAnswering(answers: Answer[]) {
  const sent: RequestToSend[] = [];
  const pool = new FixturePool(
    model,
    async (request) => {
      sent.push(request);
      return answers.shift() ?? { status: 599, body: 'no more answers' };
    },
    new Ledger(),
    { readOnly: false },
  );
  pool.attach({ model, fixtures: pool, safe: new SafeValues('ct-pool'), profile: seedProfile });
  return { pool, sent };
}

const created = (id: string): Answer => ({ status: 201, body: '{}', json: { id, name: 'ct-pool-x' } });
const failed = (status: number): Answer => ({ status, body: '{"detail":"boom"}', json: { detail: 'boom' } });

describe('FixturePool shared objects', () => {
  test('one create serves every request for the shared object', async () => {
    const { pool, sent } = poolAnswering([created('a')]);
    const [first, second] = await Promise.all([
      pool.object('/variables', 'shared'),
      pool.object('/variables', 'shared'),
    ]);
    expect(first).toBe(second);
    expect(sent).toHaveLength(1);
  });

  test('a create that failed is not remembered: the next request creates anew', async () => {
    const { pool, sent } = poolAnswering([failed(500), created('b')]);
    const error = await pool.object('/variables', 'shared').catch((e: unknown) => e);
    expect(isTransientFixtureFailure(error)).toBe(true);
    await expect(pool.object('/variables', 'shared')).resolves.toMatchObject({ id: 'b' });
    expect(sent).toHaveLength(2);
    expect(pool.created).toEqual([{ collection: '/variables', id: 'b' }]);
  });

  test("an owner's object is shared by that owner's requests alone, apart from the run's shared one", async () => {
    const { pool, sent } = poolAnswering([created('run'), created('graph'), created('logs')]);
    const run = await pool.object('/variables', 'shared');
    const [graph, again] = await Promise.all([
      pool.object('/variables', 'shared', 'GET /graph'),
      pool.object('/variables', 'shared', 'GET /graph'),
    ]);
    const logs = await pool.object('/variables', 'shared', 'GET /logs');
    expect([run.id, graph.id, again.id, logs.id]).toEqual(['run', 'graph', 'graph', 'logs']);
    expect(sent).toHaveLength(3);
    expect(await pool.object('/variables', 'shared')).toBe(run);
  });

  test("the run's shared object is made as the whole run's; an owner's and a fresh one as the asker's", async () => {
    const asShared: string[] = [];
    const pool = new FixturePool(model, async () => created(`v${asShared.length}`), new Ledger(), {
      readOnly: false,
      sharedAcrossOperations: (make) => {
        asShared.push('made for the run');
        return make();
      },
    });
    pool.attach({ model, fixtures: pool, safe: new SafeValues('ct-pool'), profile: seedProfile });
    await pool.object('/variables', 'shared');
    await pool.object('/variables', 'shared', 'GET /graph');
    await pool.object('/variables', 'fresh');
    expect(asShared).toEqual(['made for the run']);
  });

  test('a refusal (4xx) is a missing prerequisite, not a passing one', async () => {
    const { pool } = poolAnswering([failed(422)]);
    const error = await pool.object('/variables', 'shared').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(isTransientFixtureFailure(error)).toBe(false);
  });

  test('a conflict (409) on a fixture of fresh names is tried once more, with a fresh recipe', async () => {
    const { pool, sent } = poolAnswering([failed(409), created('c')]);
    await expect(pool.object('/variables', 'fresh')).resolves.toMatchObject({ id: 'c' });
    expect(sent).toHaveLength(2);
    const names = sent.map((r) => (r.json as { name: string }).name);
    expect(names[0]).not.toBe(names[1]);
    const twice = poolAnswering([failed(409), failed(409), created('d')]);
    const error = await twice.pool.object('/variables', 'fresh').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(twice.sent).toHaveLength(2);
  });
});

describe('FixturePool: what the run deleted itself', () => {
  const op = (key: string) => model.operations.find((o) => o.key === key)!;
  const D = '00000000-0000-4000-8000-00000000000d';

  test('is written for cleanup to read only where the document offers a GET at its delete path', () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'pool-ledger-')), 'ledger.jsonl');
    const pool = new FixturePool(model, async () => ({ status: 599, body: '' }), new Ledger(file), { readOnly: false });
    pool.attach({ model, fixtures: pool, safe: new SafeValues('ct-pool'), profile: seedProfile });
    const answer = (json: unknown): Answer => ({ status: 201, body: JSON.stringify(json), json });
    pool.noteCreated(op('POST /flows/'), answer({ id: 'f1', name: 'ct-pool-f' }), {});
    // A deployment's schedules: a DELETE at /deployments/{id}/schedules/{schedule_id}, no GET there.
    pool.noteCreated(op('POST /deployments/{id}/schedules'), answer([{ id: 's1', deployment_id: D }]), { id: D });
    const deleted: Answer = { status: 204, body: '' };
    for (const p of ['/flows/f1', `/deployments/${D}/schedules/s1`])
      pool.noteDeleted({ method: 'DELETE', path: p }, deleted);
    const { entries, deletedByRun } = Ledger.readAll(file);
    expect(entries.map((e) => e.deletePath)).toEqual(['/flows/f1', `/deployments/${D}/schedules/s1`]);
    expect(deletedByRun).toEqual(new Set(['/flows/f1']));
  });
});

describe('FixturePool: what a request may have made for the names it was given', () => {
  const increment = model.operations.find((o) => o.key === 'POST /v2/concurrency_limits/increment')!;
  const answered = (json: unknown, date?: string): Answer & { responseHeaders: Record<string, string> } => ({
    status: 200,
    body: JSON.stringify(json),
    json,
    responseHeaders: date ? { date } : {},
  });

  test('the objects its answer lists of the names it sent are noted with the time of the answer, the others not', () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'pool-ledger-')), 'ledger.jsonl');
    const pool = new FixturePool(model, async () => ({ status: 599, body: '' }), new Ledger(file), { readOnly: false });
    pool.attach({ model, fixtures: pool, safe: new SafeValues('ct-pool'), profile: prefectProfile });
    const date = 'Fri, 27 Nov 2026 22:30:31 GMT';
    const listed = [
      { id: 'l1', name: 'x' },
      { id: 'l2', name: 'not-sent' },
    ];
    pool.noteCreated(increment, answered(listed, date), {}, { slots: 1, names: ['x', 'y'] });
    // No Date header: nothing tells when it was made, so nothing is noted.
    pool.noteCreated(increment, answered([{ id: 'l3', name: 'y' }]), {}, { slots: 1, names: ['y'] });
    const { entries, maybeMade } = Ledger.readAll(file);
    expect(entries).toEqual([]);
    expect(maybeMade).toEqual([
      {
        maybeMadeBy: 'POST /v2/concurrency_limits/increment',
        path: '/v2/concurrency_limits/l1',
        template: '/v2/concurrency_limits/{id_or_name}',
        answeredAt: Date.parse(date),
      },
    ]);
  });

  test('a profile that declares no such operation notes nothing', () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'pool-ledger-')), 'ledger.jsonl');
    const pool = new FixturePool(model, async () => ({ status: 599, body: '' }), new Ledger(file), { readOnly: false });
    pool.attach({ model, fixtures: pool, safe: new SafeValues('ct-pool'), profile: seedProfile });
    pool.noteCreated(
      increment,
      answered([{ id: 'l1', name: 'x' }], 'Fri, 27 Nov 2026 22:30:31 GMT'),
      {},
      { names: ['x'] },
    );
    expect(Ledger.readAll(file).maybeMade).toEqual([]);
  });
});
