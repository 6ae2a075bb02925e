/** Model inference from the document alone: collections, identifiers, dependencies. */
import { describe, expect, test } from 'vitest';
import { buildModel, createsAtOwnPath, isReadOperation, plural } from '../../../src/model/model.js';
import { referenceDoc } from '../support.js';

const model = buildModel(referenceDoc());
const op = (key: string) => model.operations.find((o) => o.key === key)!;

describe('buildModel', () => {
  test('infers the core collections with their CRUD, filter and count operations', () => {
    for (const name of ['/flows', '/flow_runs', '/task_runs', '/deployments', '/artifacts']) {
      const c = model.collections.get(name)!;
      expect(c, name).toBeDefined();
      expect(c.create?.method).toBe('POST');
      expect(c.read?.key).toBe(`GET ${name}/{id}`);
      expect(c.delete?.key).toBe(`DELETE ${name}/{id}`);
      expect(c.filter?.key).toBe(`POST ${name}/filter`);
    }
    expect(model.collections.get('/flows')!.count?.key).toBe('POST /flows/count');
  });

  test('lookups by a field are not collections', () => {
    expect(model.collections.has('/flows/name')).toBe(false);
    expect(model.collections.has('/block_types/slug/{slug}/block_documents/name')).toBe(false);
  });

  test('nested collections keep their parent parameters and identifiers', () => {
    const queues = model.collections.get('/work_pools/{work_pool_name}/queues')!;
    expect(queues.parentParams).toEqual(['work_pool_name']);
    expect(queues.idField).toBe('name');
    expect(model.collections.get('/deployments/{id}/schedules')!.idField).toBe('id');
    expect(model.collections.get('/work_pools')!.idField).toBe('name');
  });

  test('dependencies follow *_id and *_name fields', () => {
    expect(model.referenceFor(op('GET /deployments/name/{flow_name}/{deployment_name}'), 'flow_name', 'path')).toEqual({
      collection: '/flows',
      field: 'name',
    });
    expect(model.recordOf(op('POST /flow_runs/')).bodyRefs.find((r) => r.field === 'flow_id')).toMatchObject({
      ref: { collection: '/flows', field: 'id' },
      required: true,
    });
    expect(model.recordOf(op('POST /deployments/')).bodyRefs.map((r) => r.field)).toContain('flow_id');
    expect(model.referenceFor(op('GET /work_pools/{work_pool_name}/queues/{name}'), 'work_pool_name', 'path')).toEqual({
      collection: '/work_pools',
      field: 'name',
    });
  });

  test('named: the parameter that ends the path and names an object of the own collection', () => {
    expect(model.recordOf(op('GET /flows/{id}')).named).toMatchObject({
      param: 'id',
      ref: { collection: '/flows', field: 'id' },
    });
    expect(model.recordOf(op('PATCH /variables/name/{name}')).named).toMatchObject({
      param: 'name',
      ref: { collection: '/variables', field: 'name' },
    });
    expect(model.recordOf(op('DELETE /flow_runs/{id}/input/{key}')).named?.collection.path).toBe(
      '/flow_runs/{id}/input',
    );
    expect(model.recordOf(op('POST /flows/filter')).named).toBeUndefined();
    expect(model.recordOf(op('POST /flow_runs/{id}/set_state')).named).toBeUndefined();
  });

  test('actsOn: the object of its own collection an action acts on, where the operation names none itself', () => {
    for (const key of [
      'POST /flow_runs/{id}/resume',
      'POST /deployments/{id}/schedule',
      'PATCH /flow_runs/{id}/labels',
    ])
      expect(model.recordOf(op(key)).actsOn?.param, key).toBe('id');
    expect(model.recordOf(op('POST /flow_runs/{id}/resume')).actsOn?.ref).toEqual({
      collection: '/flow_runs',
      field: 'id',
    });
    // Reads, and operations that name their object, have none; nor a create under another collection's object.
    for (const key of ['GET /flows/{id}', 'POST /flow_runs/{id}/graph-v2', 'POST /flows/filter', 'POST /flow_runs/'])
      if (model.operations.some((o) => o.key === key)) expect(model.recordOf(op(key)).actsOn, key).toBeUndefined();
  });

  test("an operation's record: whether it only reads, creates, and which object it changes", () => {
    const record = (key: string) => model.recordOf(op(key));
    expect(
      ['GET /flows/{id}', 'POST /flows/filter', 'POST /flow_runs/count', 'POST /events/count-by/{countable}'].map(
        (k) => record(k).reads,
      ),
    ).toEqual([true, true, true, true]);
    expect(record('POST /flows/').reads).toBe(false);
    // Named as reads are: counts, a count by something, the next runs, a concurrency status, a validation.
    for (const path of [
      '/ui/task_runs/dashboard/counts',
      '/ui/flows/count-deployments',
      '/ui/flow_runs/count-task-runs',
      '/ui/flows/next-runs',
      '/work_queues/{id}/concurrency_status',
      '/templates/validate',
    ])
      expect(isReadOperation({ method: 'POST', path }), path).toBe(true);
    // Actions that read and write (a queue's polling time): not reads.
    for (const path of ['/work_queues/{id}/get_runs', '/deployments/get_scheduled_flow_runs', '/flow_runs/{id}/resume'])
      expect(isReadOperation({ method: 'POST', path }), path).toBe(false);
    expect(isReadOperation({ method: 'POST', path: '/flows/paginate' })).toBe(true);
    expect(
      ['POST /flows/', 'POST /flow_runs/{id}/set_state', 'POST /flows/filter', 'PATCH /flows/{id}'].map(
        (k) => record(k).creates,
      ),
    ).toEqual([true, true, false, false]);
    expect([...record('DELETE /flows/{id}').mutates]).toEqual(['id']);
    expect([...record('POST /flow_runs/{id}/set_state').mutates]).toEqual(['id']);
    expect([...record('POST /deployments/{id}/create_flow_run').mutates]).toEqual(['id']);
    expect([...record('GET /flows/{id}').mutates]).toEqual([]);
    expect([...record('POST /flow_runs/').mutates]).toEqual([]);
    expect(record('GET /work_pools/{work_pool_name}/queues/{name}').pathRefs).toEqual({
      work_pool_name: { collection: '/work_pools', field: 'name' },
      name: { collection: '/work_pools/{work_pool_name}/queues', field: 'name' },
    });
    expect(record('POST /flows/filter').bodySchema).toBeDefined();
    expect(record('GET /flows/{id}').bodySchema).toBeUndefined();
  });

  test('the version header is read from the document', () => {
    expect(model.versionHeader).toBe('x-prefect-api-version');
  });

  test('plural', () => {
    expect(['flow_run', 'policy', 'status', 'work_queue'].map(plural)).toEqual([
      'flow_runs',
      'policies',
      'statuses',
      'work_queues',
    ]);
  });
});

/** A document of one collection whose members are made and replaced by a PUT at the path that names them. */
function documentWithPutAt(item: string) {
  const param = /\{([^}]+)\}$/.exec(item)![1];
  const at = { name: param, in: 'path', required: true, schema: { type: 'string', pattern: '^[a-z0-9_]+$' } };
  const body = { content: { 'application/json': { schema: { type: 'object', properties: { value: {} } } } } };
  const ok = { 200: { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } } };
  return {
    openapi: '3.1.0',
    info: { title: 'not Prefect', version: '1.0.0' },
    paths: {
      '/variables': { get: { responses: ok } },
      [item]: {
        put: { parameters: [at], requestBody: body, responses: { ...ok, 201: ok[200] } },
        get: { parameters: [at], responses: ok },
        delete: { parameters: [at], responses: { 204: { description: 'gone' } } },
      },
    },
  } as never;
}

describe('a create-or-replace PUT at the member path (spec §4.1)', () => {
  for (const item of ['/variables/{name}', '/variables/name/{name}']) {
    test(`is the collection's create where it has no other: ${item}`, () => {
      const m = buildModel(documentWithPutAt(item));
      const c = m.collections.get('/variables')!;
      expect(c.item).toEqual({ path: item, param: 'name' });
      expect(c.idField).toBe('name');
      expect(c.create?.key).toBe(`PUT ${item}`);
      expect(c.delete?.key).toBe(`DELETE ${item}`);
      const record = m.recordOf(c.create!);
      expect(record.named?.param).toBe('name');
      expect(createsAtOwnPath(record)).toBe(true);
      expect(createsAtOwnPath(m.recordOf(c.read!))).toBe(false);
    });
  }

  test('a lookup only read (no PUT there) makes no collection', () => {
    expect(model.collections.has('/collections')).toBe(false);
  });
});
