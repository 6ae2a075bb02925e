import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import type { MadeForName, SideEffect } from '../../../src/model/profiles/profile.js';
import type { Answer, RequestToSend } from '../../../src/openapi/request.js';
import {
  absentSideEffects,
  cleanup,
  cleanupMadeForNames,
  cleanupMadeForRun,
  cleanupSideEffects,
  deleteBusyAgain,
  recheckFailed,
  type CleanupSummary,
} from '../../../src/resources/cleanup.js';
import { prefectProfile } from '../../../src/model/profiles/prefect.js';
import { Ledger, referencesOf } from '../../../src/resources/ledger.js';

/** A server holding the objects at `paths`; DELETE removes one. */
function server(paths: string[]) {
  const present = new Set(paths);
  const sent: string[] = [];
  const send = async (r: RequestToSend): Promise<Answer> => {
    sent.push(`${r.method} ${r.path}`);
    if (r.method === 'DELETE') return present.delete(r.path) ? { status: 204, body: '' } : { status: 404, body: '' };
    return present.has(r.path) ? { status: 200, body: '{}', json: {} } : { status: 404, body: '' };
  };
  return { send, present, sent };
}

const effect = (bare: boolean): SideEffect => ({
  path: '/work_pools/default-agent-pool',
  template: '/work_pools/{name}',
  why: 'made for a queue without a pool',
  isBare: async () => bare,
});

describe('side effects of a run', () => {
  test('one that existed before the run is never the run to answer for', async () => {
    const s = server(['/work_pools/default-agent-pool']);
    expect(await absentSideEffects(s.send, [effect(true)])).toEqual([]);
  });

  test('one the run caused is deleted when it holds only what the server put in it', async () => {
    const s = server([]);
    const absent = await absentSideEffects(s.send, [effect(true)]);
    s.present.add('/work_pools/default-agent-pool');
    expect(await cleanupSideEffects(s.send, absent, 'run-tag')).toEqual([
      { path: '/work_pools/default-agent-pool', why: 'made for a queue without a pool', deleted: true },
    ]);
    expect(s.present.size).toBe(0);
  });

  test('one that holds someone else’s objects is left, and said so', async () => {
    const s = server([]);
    const absent = await absentSideEffects(s.send, [effect(false)]);
    s.present.add('/work_pools/default-agent-pool');
    const [left] = await cleanupSideEffects(s.send, absent, 'run-tag');
    expect(left).toMatchObject({ deleted: false, reason: 'it holds objects the run did not make' });
    expect(s.sent.filter((r) => r.startsWith('DELETE'))).toEqual([]);
  });

  test('one that never appeared is not reported', async () => {
    const s = server([]);
    expect(await cleanupSideEffects(s.send, await absentSideEffects(s.send, [effect(true)]), 'run-tag')).toEqual([]);
  });
});

describe('a failed delete read again after the side effects', () => {
  test('counts as already gone when a parent took it, and stays failed otherwise', async () => {
    const s = server(['/work_queues/b']);
    const report: CleanupSummary = {
      deleted: 3,
      alreadyGone: 0,
      notDeletable: [],
      failed: [
        { collection: '/work_queues', id: 'a', reason: '409', path: '/work_queues/a', template: '/work_queues/{id}' },
        { collection: '/work_queues', id: 'b', reason: '409', path: '/work_queues/b', template: '/work_queues/{id}' },
        { collection: '/x', id: 'c', reason: 'no path' },
      ],
    };
    await recheckFailed(s.send, report);
    expect(report.alreadyGone).toBe(1);
    expect(report.failed.map((f) => f.id)).toEqual(['b', 'c']);
  });
});

describe("Prefect's default-agent-pool", () => {
  const pool = prefectProfile.sideEffects![0];
  const withQueues =
    (names: string[], deployments = 0) =>
    async (r: RequestToSend): Promise<Answer> =>
      r.path.endsWith('/queues/filter')
        ? { status: 200, body: '', json: names.map((name) => ({ name })) }
        : { status: 200, body: '', json: deployments };

  test("is bare with the server's default queue or the run's own queues (2.20 makes the run's first queue its default)", async () => {
    expect(await pool.isBare(withQueues(['default']), 'conformance-x1')).toBe(true);
    expect(await pool.isBare(withQueues(['conformance-x1-3']), 'conformance-x1')).toBe(true);
  });

  test("is not bare with anyone else's queue or a deployment", async () => {
    expect(await pool.isBare(withQueues(['default', 'team-queue']), 'conformance-x1')).toBe(false);
    expect(await pool.isBare(withQueues(['conformance-x2-1']), 'conformance-x1')).toBe(false);
    expect(await pool.isBare(withQueues(['conformance-x12-1']), 'conformance-x1')).toBe(false);
    expect(await pool.isBare(withQueues(['default'], 1), 'conformance-x1')).toBe(false);
  });
});

describe('what the server made for the run', () => {
  test('is deleted side by side, each counted as deleted, already gone or failed, in the order found', async () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'ledger-')), 'ledger.jsonl');
    const made = ['/artifacts/a', '/artifacts/b', '/artifacts/c', '/work_queues/q'].map((p) => ({
      path: p,
      template: p.replace(/[^/]+$/, '{id}'),
    }));
    let answered = 0;
    const sentBeforeAnAnswer: string[] = [];
    const send = async (r: RequestToSend): Promise<Answer> => {
      if (answered === 0) sentBeforeAnAnswer.push(r.path);
      // The first found is answered last: the report still follows the order found.
      await new Promise((done) => setTimeout(done, r.path === '/artifacts/a' ? 20 : 5));
      answered++;
      if (r.path.endsWith('/b')) return { status: 404, body: '' };
      if (r.path.endsWith('/q') || r.path.endsWith('/a')) return { status: 500, body: 'no' };
      return { status: 204, body: '' };
    };
    const report: CleanupSummary = { deleted: 0, alreadyGone: 0, failed: [], notDeletable: [] };
    await cleanupMadeForRun(send, file, 'ctag', async () => made, report);
    expect(sentBeforeAnAnswer).toEqual(made.map((m) => m.path));
    expect(report).toMatchObject({ deleted: 1, alreadyGone: 1 });
    expect(report.failed.map((f) => f.path)).toEqual(['/artifacts/a', '/work_queues/q']);
  });
});

/** A flow of the ledger, deleted by its id. */
const flow = (id: string) => ({
  collection: '/flows',
  id,
  deletePath: `/flows/${id}`,
  deleteTemplate: 'DELETE /flows/{id}',
  createdBy: 'POST /flows/',
});

/** A ledger in a fresh file, and the file. */
function freshLedger(): { file: string; ledger: Ledger } {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'ledger-')), 'ledger.jsonl');
  return { file, ledger: new Ledger(file) };
}

describe('cleanup in two passes', () => {
  test('the second pass deletes only what was created after the first read the ledger, into the same report', async () => {
    const { file, ledger } = freshLedger();
    ledger.record(flow('a'));
    ledger.record(flow('b'));
    const s = server(['/flows/a', '/flows/b', '/flows/c']);
    const first = await cleanup(s.send, file);
    expect(first).toMatchObject({ handled: 2, report: { deleted: 2, alreadyGone: 0 } });
    // a test that outlived its timeout creates one more before the worker is stopped
    ledger.record(flow('c'));
    const second = await cleanup(s.send, file, first);
    expect(s.sent).toEqual(['DELETE /flows/b', 'DELETE /flows/a', 'DELETE /flows/c']);
    expect(second).toMatchObject({ handled: 3, report: { deleted: 3, alreadyGone: 0, failed: [] } });
    expect(s.present.size).toBe(0);
    // nothing new: a third pass sends nothing
    await cleanup(s.send, file, second);
    expect(s.sent).toHaveLength(3);
  });
});

describe('objects the run deleted itself', () => {
  test('are read, not deleted: gone, they count as already gone; still there, they are deleted', async () => {
    const { file, ledger } = freshLedger();
    for (const id of ['a', 'b', 'c']) ledger.record(flow(id));
    // The run deleted a and b (2xx); b's server answered a DELETE it did not do. A path not of the ledger, and
    // a second word for the same path, add nothing.
    for (const p of ['/flows/a', '/flows/b', '/flows/a', '/flows/x']) ledger.recordDeleted(p);
    const { entries, deletedByRun } = Ledger.readAll(file);
    expect(deletedByRun).toEqual(new Set(['/flows/a', '/flows/b']));
    expect(entries.map((e) => e.id)).toEqual(['a', 'b', 'c']);
    const s = server(['/flows/b', '/flows/c']);
    const { report, handled } = await cleanup(s.send, file);
    expect(handled).toBe(3);
    expect(s.sent.sort()).toEqual(['DELETE /flows/b', 'DELETE /flows/c', 'GET /flows/a', 'GET /flows/b']);
    expect(report).toMatchObject({ deleted: 2, alreadyGone: 1, failed: [] });
    expect(s.present.size).toBe(0);
  });

  test('one no GET reads (a DELETE and no GET at its path) is deleted again, never read', async () => {
    const { file, ledger } = freshLedger();
    ledger.record(flow('a'), false);
    ledger.record(flow('b'));
    for (const p of ['/flows/a', '/flows/b']) ledger.recordDeleted(p);
    expect(Ledger.readAll(file).deletedByRun).toEqual(new Set(['/flows/b']));
    const s = server([]);
    const { report } = await cleanup(s.send, file);
    expect(s.sent.sort()).toEqual(['DELETE /flows/a', 'GET /flows/b']);
    expect(report).toMatchObject({ deleted: 0, alreadyGone: 2, failed: [] });
  });
});

describe('the order of deletes', () => {
  const entry = (collection: string, id: string, refs?: string[], deletePath = `${collection}/${id}`) => ({
    collection,
    id,
    deletePath,
    deleteTemplate: `DELETE ${collection}/{id}`,
    createdBy: `POST ${collection}/`,
    ...(refs ? { refs } : {}),
  });
  const F1 = '00000000-0000-4000-8000-000000000001';
  const F2 = '00000000-0000-4000-8000-000000000002';
  const D1 = '00000000-0000-4000-8000-000000000003';
  const R1 = '00000000-0000-4000-8000-000000000004';

  /** A server that answers each DELETE after `ms`, and records when each started and ended. */
  function slowServer(ms: number) {
    const log: Array<{ path: string; start: number; end: number }> = [];
    const send = async (r: RequestToSend): Promise<Answer> => {
      const start = performance.now();
      await new Promise((done) => setTimeout(done, ms));
      log.push({ path: r.path, start, end: performance.now() });
      return { status: 204, body: '' };
    };
    return { send, log };
  }

  const ledgerOf = (entries: Array<ReturnType<typeof entry>>) => {
    const { file, ledger } = freshLedger();
    for (const e of entries) ledger.record(e);
    return file;
  };

  test('an object is deleted after everything that names it; objects that name none of each other, side by side', async () => {
    const file = ledgerOf([
      entry('/flows', F1),
      entry('/flows', F2),
      entry('/deployments', D1, [F1]),
      entry('/flow_runs', R1, [F1, D1]),
      entry('/deployments/{id}/schedules', 's1', undefined, `/deployments/${D1}/schedules/s1`),
    ]);
    const s = slowServer(40);
    const { report } = await cleanup(s.send, file);
    expect(report.deleted).toBe(5);
    const at = (p: string) => s.log.find((l) => l.path === p)!;
    // The deployment after its run and its schedule; the flow after its deployment and its run.
    expect(at(`/deployments/${D1}`).start).toBeGreaterThanOrEqual(at(`/flow_runs/${R1}`).end);
    expect(at(`/deployments/${D1}`).start).toBeGreaterThanOrEqual(at(`/deployments/${D1}/schedules/s1`).end);
    expect(at(`/flows/${F1}`).start).toBeGreaterThanOrEqual(at(`/deployments/${D1}`).end);
    // The other flow names nothing and is named by nothing: it went at once, beside the run and the schedule.
    expect(at(`/flows/${F2}`).start).toBeLessThan(at(`/flow_runs/${R1}`).end);
    // Three waves of 40 ms, not five deletes one after another.
    const span = Math.max(...s.log.map((l) => l.end)) - Math.min(...s.log.map((l) => l.start));
    expect(span).toBeLessThan(5 * 40);
  });

  test('objects that name each other in a ring are deleted newest first, one at a time', async () => {
    const file = ledgerOf([entry('/a', F1, [F2]), entry('/b', F2, [F1])]);
    const s = slowServer(10);
    const { report } = await cleanup(s.send, file);
    expect(report.deleted).toBe(2);
    expect(s.log.map((l) => l.path)).toEqual([`/b/${F2}`, `/a/${F1}`]);
    expect(s.log[1].start).toBeGreaterThanOrEqual(s.log[0].end);
  });
});

describe('what a created object names', () => {
  test('its UUIDs and the names carrying the run tag, however deep, never its own id', () => {
    const own = '00000000-0000-4000-8000-00000000000a';
    const flow = '00000000-0000-4000-8000-00000000000b';
    const obj = {
      id: own,
      flow_id: flow,
      name: 'conformance-x1-7',
      work_pool_name: 'conformance-x1-pool',
      tags: ['conformance-x1', 'team'],
      parameters: { nested: { deep: [{ ref: flow }] } },
      description: 'not an id',
      count: 3,
    };
    expect(referencesOf(obj, own, 'conformance-x1').sort()).toEqual(
      [flow, 'conformance-x1', 'conformance-x1-7', 'conformance-x1-pool'].sort(),
    );
    expect(referencesOf({ id: own }, own, 'conformance-x1')).toEqual([]);
  });
});

describe('what requests made for the names they were given', () => {
  const made: MadeForName = {
    namesField: 'names',
    item: '/v2/concurrency_limits/{id_or_name}',
    madeBy: (obj, answeredAt) => obj.created === answeredAt,
  };
  const maybe = (id: string, answeredAt: number) => ({
    maybeMadeBy: 'POST /v2/concurrency_limits/increment',
    path: `/v2/concurrency_limits/${id}`,
    template: '/v2/concurrency_limits/{id_or_name}',
    answeredAt,
  });

  test('each is read back: deleted where a request made it, kept where it was there before, silent where gone', async () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'cleanup-')), 'ledger.jsonl');
    const ledger = new Ledger(file);
    // "made" was made by the second answer that listed it; "before" by none; "gone" is gone.
    for (const line of [maybe('made', 1), maybe('made', 2), maybe('before', 2), maybe('gone', 3)])
      ledger.recordMaybeMade(line);
    const present: Record<string, number> = { '/v2/concurrency_limits/made': 2, '/v2/concurrency_limits/before': 0 };
    const sent: string[] = [];
    const send = async (r: RequestToSend): Promise<Answer> => {
      sent.push(`${r.method} ${r.path}`);
      if (!(r.path in present)) return { status: 404, body: '' };
      if (r.method === 'DELETE') return { status: 204, body: '' };
      const json = { id: r.path, created: present[r.path] };
      return { status: 200, body: JSON.stringify(json), json };
    };
    const report: CleanupSummary = { deleted: 0, alreadyGone: 0, failed: [], notDeletable: [] };
    await cleanupMadeForNames(send, file, { 'POST /v2/concurrency_limits/increment': made }, report);
    expect(sent.filter((r) => r.startsWith('DELETE'))).toEqual(['DELETE /v2/concurrency_limits/made']);
    expect(sent.filter((r) => r.startsWith('GET')).sort()).toEqual(
      [
        'GET /v2/concurrency_limits/before',
        'GET /v2/concurrency_limits/gone',
        'GET /v2/concurrency_limits/made',
      ].sort(),
    );
    expect(report).toMatchObject({ deleted: 1, alreadyGone: 0, failed: [] });
    // Said apart from the ledger's objects: which operations made them, and what was kept.
    expect(report.madeForNames).toEqual({ by: ['POST /v2/concurrency_limits/increment'], deleted: 1, kept: 1 });
  });

  test('a run whose answers listed nothing says nothing of it', async () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'cleanup-')), 'ledger.jsonl');
    new Ledger(file).record({ collection: '/flows', id: 'f', createdBy: 'POST /flows/' });
    const report: CleanupSummary = { deleted: 0, alreadyGone: 0, failed: [], notDeletable: [] };
    const send = async (): Promise<Answer> => ({ status: 500, body: '' });
    await cleanupMadeForNames(send, file, { 'POST /v2/concurrency_limits/increment': made }, report);
    expect(report.madeForNames).toBeUndefined();
  });
});

describe('a delete a busy server refused', () => {
  test('is sent again after a pause, and counted deleted when it goes; a refusal of another kind stays failed', async () => {
    let busy = true;
    const sent: string[] = [];
    const send = async (r: RequestToSend): Promise<Answer> => {
      sent.push(`${r.method} ${r.path}`);
      return busy ? { status: 503, body: 'busy' } : { status: 204, body: '' };
    };
    const report: CleanupSummary = {
      deleted: 0,
      alreadyGone: 0,
      notDeletable: [],
      failed: [
        { collection: '/flows', id: 'a', reason: '503: busy', path: '/flows/a', template: '/flows/{id}' },
        { collection: '/flows', id: 'b', reason: '409: in use', path: '/flows/b', template: '/flows/{id}' },
      ],
    };
    await deleteBusyAgain(send, report, [1]);
    expect(report.failed.map((f) => f.id)).toEqual(['a', 'b']);
    busy = false;
    await deleteBusyAgain(send, report, [1, 1]);
    expect(report.deleted).toBe(1);
    expect(report.failed.map((f) => f.id)).toEqual(['b']);
    expect(sent).toEqual(['DELETE /flows/a', 'DELETE /flows/a']);
  });
});
