/** Field hooks: fields the profile never sends stay out of minimal and generated bodies alike. */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { arbitraryFor, minimalFor } from '../../../src/cases/arbitrary.js';
import {
  type CaseContext,
  fieldHooks,
  fillPath,
  paramsOfPath,
  resolvePathParams,
} from '../../../src/cases/requests.js';
import { SafeValues } from '../../../src/cases/safeValues.js';
import { buildModel } from '../../../src/model/model.js';
import { prefectProfile } from '../../../src/model/profiles/prefect.js';
import type { OpenApiDocument } from '../../../src/openapi/document.js';
import type { Operation } from '../../../src/openapi/operations.js';
import { referenceDoc } from '../support.js';

const doc = { openapi: '3.1.0', info: { title: 't', version: '1' }, paths: {} } as unknown as OpenApiDocument;
// The body of POST /work_queues/{id}/get_runs, as Prefect documents it.
const body = {
  type: 'object',
  properties: {
    scheduled_before: { type: 'string', format: 'date-time' },
    agent_id: { anyOf: [{ type: 'string', format: 'uuid' }, { type: 'null' }] },
    limit: { type: 'integer' },
  },
};

describe('fields never sent', () => {
  const hooks = fieldHooks(new SafeValues('conformance-t1'), {}, prefectProfile);

  test("Prefect's profile never sends agent_id (an agent record no operation deletes)", () => {
    expect(prefectProfile.fieldsNeverSent).toContain('agent_id');
  });

  test('no minimal body and no generated body carries one, in JSON as sent', () => {
    expect(minimalFor(body, { doc, hooks })).toEqual({});
    fc.assert(
      fc.property(arbitraryFor(body, { doc, hooks }), (value) => {
        const sent = JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
        return !('agent_id' in sent);
      }),
      { numRuns: 200, seed: 3 },
    );
  });

  test('without the hook the generator does send it', () => {
    const plain = fieldHooks(new SafeValues('conformance-t1'), {});
    const samples = fc.sample(arbitraryFor(body, { doc, hooks: plain }), { numRuns: 200, seed: 3 });
    expect(samples.some((v) => (v as Record<string, unknown>).agent_id !== undefined)).toBe(true);
  });
});

/** An operation as Prefect's profile sees it when it restrains a body: its method and path. */
const op = (method: string, path: string) => ({ method, path }) as Operation;
const restrain = prefectProfile.restrain!;

describe("Prefect's automations, restrained", () => {
  const never = { 'prefect.resource.id': 'conformance-t1.no-such-resource' };

  test('every event trigger of a create or a replace matches a resource that never emits, the rest as generated', () => {
    const body = {
      name: 'n',
      trigger: {
        type: 'compound',
        require: 'any',
        triggers: [
          { type: 'event', match: {}, posture: 'Reactive', threshold: 1 },
          { posture: 'Proactive', within: 10, expect: ['x'] },
          { type: 'sequence', triggers: [{ type: 'event', match: { a: 'b' } }] },
        ],
      },
      actions: [{ type: 'pause-deployment', source: 'inferred' }],
    };
    for (const o of [op('POST', '/automations/'), op('PUT', '/automations/{id}')]) {
      const quiet = restrain(o, body, 'conformance-t1') as typeof body;
      const [event, proactive, sequence] = quiet.trigger.triggers as Array<Record<string, unknown>>;
      expect(event).toEqual({ ...body.trigger.triggers[0], match: never });
      expect(proactive).toEqual({ ...body.trigger.triggers[1], match: never });
      expect(sequence.triggers).toEqual([{ type: 'event', match: never }]);
      expect(quiet.actions).toBe(body.actions);
      expect(quiet.name).toBe('n');
    }
  });

  test('other operations, and bodies without a trigger object (a negative case), are sent as they are', () => {
    const body = { trigger: { type: 'event', match: {} } };
    expect(restrain(op('POST', '/automations/filter'), body, 't')).toBe(body);
    expect(restrain(op('PATCH', '/automations/{id}'), body, 't')).toBe(body);
    const wrongType = { trigger: 'not an object' };
    expect(restrain(op('POST', '/automations/'), wrongType, 't')).toBe(wrongType);
    expect(restrain(op('POST', '/automations/'), [body], 't')).toEqual([body]);
  });
});

describe("Prefect's flow run notification policies, restrained", () => {
  const body = { is_active: true, state_names: [], tags: [], block_document_id: 'b', message_template: 'm' };

  test('the tags of a create or an update name a tag no flow run carries, the rest as generated', () => {
    for (const o of [
      op('POST', '/flow_run_notification_policies/'),
      op('PATCH', '/flow_run_notification_policies/{id}'),
    ])
      expect(restrain(o, body, 'conformance-t1')).toEqual({ ...body, tags: ['conformance-t1.no-such-run'] });
  });

  test('an update without tags keeps the stored ones; a filter, a negative case and other writes go as they are', () => {
    const noTags = { is_active: false };
    expect(restrain(op('PATCH', '/flow_run_notification_policies/{id}'), noTags, 't')).toBe(noTags);
    expect(restrain(op('POST', '/flow_run_notification_policies/filter'), body, 't')).toBe(body);
    const wrongType = { ...body, tags: 'not an array' };
    expect(restrain(op('POST', '/flow_run_notification_policies/'), wrongType, 't')).toBe(wrongType);
    expect(restrain(op('POST', '/flow_runs/'), body, 't')).toBe(body);
  });
});

describe('paramsOfPath', () => {
  test("fillPath's inverse: the parameters a filled path holds, decoded", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), (pool, name) => {
        const template = '/work_pools/{work_pool_name}/queues/{name}';
        const params = { work_pool_name: pool, name };
        expect(paramsOfPath(template, fillPath(template, params))).toEqual(params);
      }),
    );
  });

  test('none where the path is not of the template', () => {
    expect(paramsOfPath('/work_pools/{work_pool_name}/queues', '/flows/')).toEqual({});
    expect(paramsOfPath('/flows/', '/flows/')).toEqual({});
  });
});

describe("Prefect's views below a flow run read a flow run of their own", () => {
  const model = buildModel(referenceDoc());
  const asked: Array<{ collection: string; mode: string; owner?: string }> = [];
  const ctx: CaseContext = {
    model,
    safe: new SafeValues('conformance-t1'),
    profile: prefectProfile,
    fixtures: {
      value: async (ref, mode, owner) => {
        asked.push({ collection: ref.collection, mode, owner });
        return owner ? `own run of ${owner}` : `${mode} run`;
      },
      object: async () => ({}),
      send: async () => ({ status: 599, body: '' }),
    },
  };
  const op = (key: string) => model.operations.find((o) => o.key === key)!;

  test('the graph, graph-v2 and logs download each get one of their own; the run itself and its writes do not', async () => {
    const ids: Record<string, unknown> = {};
    for (const key of [
      'GET /flow_runs/{id}/graph',
      'GET /flow_runs/{id}/graph-v2',
      'GET /flow_runs/{id}/logs/download',
      'GET /flow_runs/{id}',
      'DELETE /flow_runs/{id}',
      'POST /flow_runs/{id}/set_state',
    ])
      ids[key] = (await resolvePathParams(ctx, op(key), 'recipe')).id;
    expect(ids).toEqual({
      'GET /flow_runs/{id}/graph': 'own run of GET /flow_runs/{id}/graph',
      'GET /flow_runs/{id}/graph-v2': 'own run of GET /flow_runs/{id}/graph-v2',
      'GET /flow_runs/{id}/logs/download': 'own run of GET /flow_runs/{id}/logs/download',
      'GET /flow_runs/{id}': 'shared run',
      'DELETE /flow_runs/{id}': 'fresh run',
      'POST /flow_runs/{id}/set_state': 'fresh run',
    });
  });
});
