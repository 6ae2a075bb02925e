import { describe, expect, test } from 'vitest';
import type { SideEffect } from '../../../src/model/profiles/profile.js';
import type { Answer, RequestToSend } from '../../../src/openapi/request.js';
import { absentSideEffects, cleanupSideEffects } from '../../../src/resources/cleanup.js';

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
    expect(await cleanupSideEffects(s.send, absent)).toEqual([
      { path: '/work_pools/default-agent-pool', why: 'made for a queue without a pool', deleted: true },
    ]);
    expect(s.present.size).toBe(0);
  });

  test('one that holds someone else’s objects is left, and said so', async () => {
    const s = server([]);
    const absent = await absentSideEffects(s.send, [effect(false)]);
    s.present.add('/work_pools/default-agent-pool');
    const [left] = await cleanupSideEffects(s.send, absent);
    expect(left).toMatchObject({ deleted: false, reason: 'it holds objects the run did not make' });
    expect(s.sent.filter((r) => r.startsWith('DELETE'))).toEqual([]);
  });

  test('one that never appeared is not reported', async () => {
    const s = server([]);
    expect(await cleanupSideEffects(s.send, await absentSideEffects(s.send, [effect(true)]))).toEqual([]);
  });
});
