/** Family `methods` on a scripted server: the verb semantics each check enforces, kept and broken. */
import { describe, expect, test } from 'vitest';
import { patchField } from '../../../src/checks/methods.js';
import type { RequestToSend } from '../../../src/openapi/request.js';
import { type Obj, type Reply, applies, fakeContext, judge, outcome } from './fake.js';

/** A tiny store of flows, served like the API serves them; `breaks` names the behaviour to get wrong. */
function flowServer(breaks?: string) {
  const flows = new Map<string, Obj>();
  let reads = 0;
  let puts = 0;
  const flow = (id: string): Obj => {
    if (!flows.has(id)) flows.set(id, { id, name: `flow ${id}`, tags: [], description: null, updated: 'now' });
    return flows.get(id)!;
  };
  return (r: RequestToSend): Reply | undefined => {
    const id = /^\/flows\/([^/]+)$/.exec(r.path)?.[1];
    if (r.method === 'POST' && r.path === '/flows/count')
      return {
        status: 200,
        json: breaks === 'count' ? 10 + reads : 100 - [...flows.values()].filter((f) => f.deleted).length,
      };
    if (r.method === 'GET' && id) {
      reads++;
      if (breaks === 'body' && r.json !== undefined) return { status: 400, json: { detail: 'no body on GET' } };
      const f = flow(id);
      if ((f.deleted || flows.has('*')) && breaks !== 'read-after-delete')
        return { status: 404, json: { detail: 'gone' } };
      return { status: 200, json: breaks === 'repeat' ? { ...f, reads } : f };
    }
    if (r.method === 'DELETE' && id) {
      const f = flow(id);
      if (f.deleted && breaks !== 'delete-twice') return { status: 404, json: { detail: 'gone' } };
      f.deleted = true;
      // Every flow goes with it, those the server has not been asked about yet too.
      if (breaks === 'delete-two') flows.set('*', { deleted: true });
      return { status: 204 };
    }
    if (r.method === 'PATCH' && id) {
      Object.assign(flow(id), r.json as Obj, breaks === 'patch-more' ? { name: 'renamed' } : {});
      return { status: 204 };
    }
    if (r.method === 'PUT' && r.path === '/saved_searches/')
      return { status: 200, json: { id: breaks === 'put' ? `s${++puts}` : 's1', name: 'x' } };
    if (r.method === 'POST' && r.path === '/flows/')
      return { status: 200, json: { id: breaks === 'upsert' ? `f${++puts}` : 'f1', name: 'x' } };
    if (r.path === '/flows/filter' && r.method !== 'POST') {
      if (breaks === '405') return { status: 404, json: { detail: 'Not Found' } };
      return {
        status: 405,
        json: { detail: 'Method Not Allowed' },
        headers: { allow: breaks === 'allow' ? 'GET' : 'POST' },
      };
    }
    return undefined;
  };
}

const cases: Array<[string, string, string, string]> = [
  ['methods.get-repeatable', 'GET /flows/{id}', 'repeat', 'answer.differs /reads'],
  ['methods.get-safe', 'GET /flows/{id}', 'count', 'state.changed count'],
  ['methods.get-ignores-body', 'GET /flows/{id}', 'body', 'answer.differs status'],
  ['methods.put-idempotent', 'PUT /saved_searches/', 'put', 'state.changed /id'],
  ['methods.delete-then-404', 'DELETE /flows/{id}', 'read-after-delete', 'state.changed 200'],
  ['methods.delete-twice-404', 'DELETE /flows/{id}', 'delete-twice', 'status.unexpected 204'],
  ['methods.delete-only-target', 'DELETE /flows/{id}', 'delete-two', 'state.changed bystander'],
  ['methods.patch-partial', 'PATCH /flows/{id}', 'patch-more', 'state.changed /name'],
  ['methods.upsert', 'POST /flows/', 'upsert', 'answer.differs /id'],
  ['methods.405', 'POST /flows/filter', '405', 'status.unexpected 404'],
  ['methods.405-allow', 'POST /flows/filter', 'allow', 'header.incomplete allow'],
];

describe('methods checks', () => {
  test.each(cases)(
    '%s on %s: passes on a server that keeps the rule, fails with the kind and key when it breaks (%s)',
    async (id, opKey, breaks, failure) => {
      expect(outcome(await judge(id, opKey, await fakeContext({ server: flowServer() })))).toBe('passed');
      expect(outcome(await judge(id, opKey, await fakeContext({ server: flowServer(breaks) })))).toBe(failure);
    },
  );

  test('the DELETE scenario is sent once for the three DELETE checks', async () => {
    const fake = await fakeContext({ server: flowServer() });
    for (const id of ['methods.delete-then-404', 'methods.delete-twice-404', 'methods.delete-only-target'])
      await judge(id, 'DELETE /flows/{id}', fake);
    expect(fake.sent.filter((r) => r.method === 'DELETE')).toHaveLength(2);
  });

  test('the DELETE scenario deletes the fresh object its recipe names, and makes only the bystander besides', async () => {
    const fake = await fakeContext({ server: flowServer() });
    const made: string[] = [];
    const object = fake.ctx.object;
    fake.ctx.object = async (path, mode) => {
      made.push(`${path} ${mode}`);
      return object(path, mode);
    };
    await judge('methods.delete-then-404', 'DELETE /flows/{id}', fake);
    expect(made).toEqual(['/flows fresh']);
    const deleted = fake.sent.filter((r) => r.method === 'DELETE').map((r) => r.path);
    expect(deleted).toEqual(['/flows/id-1', '/flows/id-1']);
    expect(fake.sent.filter((r) => r.method === 'GET').map((r) => r.path)).toEqual([
      '/flows/id-1',
      '/flows/flows-object-1',
    ]);
  });

  test('a DELETE whose collection has no GET of one object and no count is not judged by what needs them', async () => {
    const fake = await fakeContext({ server: flowServer() });
    const unseen = 'DELETE /work_pools/{work_pool_name}/workers/{name}';
    expect(applies('methods.delete-then-404', unseen, fake)).toBe(false);
    expect(applies('methods.delete-only-target', unseen, fake)).toBe(false);
    expect(applies('methods.delete-twice-404', unseen, fake)).toBe(true);
    for (const id of ['methods.delete-then-404', 'methods.delete-only-target'])
      expect(applies(id, 'DELETE /flows/{id}', fake)).toBe(true);
  });

  test('a DELETE that does not succeed is reported as the unexpected answer it is', async () => {
    const fake = await fakeContext({
      server: (r) => (r.method === 'DELETE' ? { status: 500, json: {} } : flowServer()(r)),
    });
    expect(outcome(await judge('methods.delete-then-404', 'DELETE /flows/{id}', fake))).toBe('status.unexpected 500');
  });
});

describe('the field methods.patch-partial changes', () => {
  const tag = 'conformance-t';
  test('description, then tags, then a boolean, then a string the schema leaves free; none when nothing fits', () => {
    expect(patchField({ description: 'd', name: 'n' }, { description: {}, name: { type: 'string' } }, tag)).toEqual([
      'description',
      'conformance-t patched',
    ]);
    expect(patchField({ active: true }, { active: { type: 'boolean' } }, tag)).toEqual(['active', false]);
    // A task run: only its name can be changed and read back.
    const name = { anyOf: [{ type: 'string' }, { type: 'null' }] };
    expect(patchField({ name: 'run', state: {} }, { name, state: {} }, tag)).toEqual(['name', 'conformance-t-patched']);
    // Strings the schema constrains are left alone: a format, a pattern, an enum, a short maximum.
    for (const constrained of [
      { type: 'string', format: 'date-time' },
      { type: 'string', pattern: '^[a-z]+$' },
      { type: 'string', enum: ['a', 'b'] },
      { type: 'string', maxLength: 10 },
    ])
      expect(patchField({ field: 'x' }, { field: constrained }, tag)).toBeUndefined();
    expect(patchField({ data: {} }, { data: { type: 'object' } }, tag)).toBeUndefined();
  });
});
