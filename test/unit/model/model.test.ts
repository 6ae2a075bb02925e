/** Model inference from the document alone: collections, identifiers, dependencies. */
import { describe, expect, test } from 'vitest';
import { buildModel, bodyReferences, namedParam, plural } from '../../../src/model/model.js';
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
    expect(bodyReferences(model, op('POST /flow_runs/')).find((r) => r.field === 'flow_id')).toMatchObject({
      ref: { collection: '/flows', field: 'id' },
      required: true,
    });
    expect(bodyReferences(model, op('POST /deployments/')).map((r) => r.field)).toContain('flow_id');
    expect(model.referenceFor(op('GET /work_pools/{work_pool_name}/queues/{name}'), 'work_pool_name', 'path')).toEqual({
      collection: '/work_pools',
      field: 'name',
    });
  });

  test('namedParam: the parameter that ends the path and names an object of the own collection', () => {
    expect(namedParam(model, op('GET /flows/{id}'))).toMatchObject({
      param: 'id',
      ref: { collection: '/flows', field: 'id' },
    });
    expect(namedParam(model, op('PATCH /variables/name/{name}'))).toMatchObject({
      param: 'name',
      ref: { collection: '/variables', field: 'name' },
    });
    expect(namedParam(model, op('DELETE /flow_runs/{id}/input/{key}'))?.collection.path).toBe('/flow_runs/{id}/input');
    expect(namedParam(model, op('POST /flows/filter'))).toBeUndefined();
    expect(namedParam(model, op('POST /flow_runs/{id}/set_state'))).toBeUndefined();
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
