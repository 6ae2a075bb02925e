/** Family `spec` on documents made to keep and break each convention of spec §1. */
import { describe, expect, test } from 'vitest';
import { specChecks } from '../../../src/checks/spec/records.js';
import type { CheckContext } from '../../../src/checks/core/context.js';
import { buildModel } from '../../../src/model/model.js';
import type { OpenApiDocument } from '../../../src/openapi/document.js';
import { fakeContext, outcome } from './fake.js';

const ok = { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } } };
const body = { content: { 'application/json': { schema: { type: 'object' } } } };

/** A document of these paths; a collection is a path with a readable item path, so each gets one. */
function doc(paths: Record<string, Record<string, unknown>>): OpenApiDocument {
  const items: Record<string, Record<string, unknown>> = {};
  for (const p of Object.keys(paths)) {
    const base = p.replace(/\/$/, '');
    const params = [...base.matchAll(/\{([^}]+)\}/g)].map(([, name]) => ({
      name,
      in: 'path',
      required: true,
      schema: { type: 'string' },
    }));
    items[`${base}/{item_id}`] = {
      get: {
        parameters: [...params, { name: 'item_id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: ok,
      },
    };
  }
  return { openapi: '3.1.0', info: { title: 't', version: '1' }, paths: { ...items, ...paths } };
}

/** The verdict of a spec check on an operation of a document. */
async function lint(id: string, document: OpenApiDocument, key: string): Promise<string> {
  const { ctx } = await fakeContext();
  const model = buildModel(document);
  const context: CheckContext = { ...ctx, model };
  const check = specChecks.find((c) => c.id === id)!;
  const op = model.operations.find((o) => o.key === key)!;
  expect(check.appliesTo(op, context), `${id} applies to ${key}`).toBe(true);
  return outcome(await check.run(op, context));
}

describe('spec checks', () => {
  test('spec.plural-collections', async () => {
    expect(
      await lint(
        'spec.plural-collections',
        doc({ '/flows/': { post: { requestBody: body, responses: ok } } }),
        'POST /flows/',
      ),
    ).toBe('passed');
    expect(
      await lint(
        'spec.plural-collections',
        doc({ '/input/': { post: { requestBody: body, responses: ok } } }),
        'POST /input/',
      ),
    ).toBe('convention.violated input');
  });

  test('spec.snake-case-routes', async () => {
    expect(
      await lint(
        'spec.snake-case-routes',
        doc({ '/flow_runs/filter': { post: { responses: ok } } }),
        'POST /flow_runs/filter',
      ),
    ).toBe('passed');
    expect(
      await lint(
        'spec.snake-case-routes',
        doc({ '/flow-runs/filter': { post: { responses: ok } } }),
        'POST /flow-runs/filter',
      ),
    ).toBe('convention.violated flow-runs');
  });

  test('spec.query-in-body', async () => {
    const limitIn = (where: string) =>
      doc({
        '/flows/filter': {
          post: { parameters: [{ name: 'limit', in: where, schema: { type: 'integer' } }], responses: ok },
        },
      });
    expect(await lint('spec.query-in-body', limitIn('header'), 'POST /flows/filter')).toBe('passed');
    expect(await lint('spec.query-in-body', limitIn('query'), 'POST /flows/filter')).toBe('convention.violated limit');
  });

  test('spec.get-without-body', async () => {
    expect(await lint('spec.get-without-body', doc({ '/flows/': { get: { responses: ok } } }), 'GET /flows/')).toBe(
      'passed',
    );
    expect(
      await lint(
        'spec.get-without-body',
        doc({ '/flows/': { get: { requestBody: body, responses: ok } } }),
        'GET /flows/',
      ),
    ).toBe('convention.violated requestBody');
  });

  test('spec.json-response-schema', async () => {
    expect(await lint('spec.json-response-schema', doc({ '/flows/': { get: { responses: ok } } }), 'GET /flows/')).toBe(
      'passed',
    );
    const csv = { '200': { description: 'ok', content: { 'text/csv': {} } } };
    expect(
      await lint('spec.json-response-schema', doc({ '/flows/': { get: { responses: csv } } }), 'GET /flows/'),
    ).toBe('convention.violated 200');
    // A 200 with no content says there is no body: described, not a missing schema (Prefect's /templates/validate).
    const bodiless = { '200': { description: 'ok' } };
    expect(
      await lint('spec.json-response-schema', doc({ '/flows/': { post: { responses: bodiless } } }), 'POST /flows/'),
    ).toBe('passed');
    const noSchema = { '200': { description: 'ok', content: { 'application/json': { schema: {} } } } };
    expect(
      await lint('spec.json-response-schema', doc({ '/flows/': { post: { responses: noSchema } } }), 'POST /flows/'),
    ).toBe('convention.violated 200');
  });

  test('spec.no-needless-nesting', async () => {
    const nested = {
      '/work_pools/{name}/queues': {
        post: {
          parameters: [{ name: 'name', in: 'path', required: true, schema: { type: 'string' } }],
          requestBody: body,
          responses: ok,
        },
      },
    };
    const alsoTopLevel = { ...nested, '/work_queues/': { post: { requestBody: body, responses: ok } } };
    expect(await lint('spec.no-needless-nesting', doc(nested), 'POST /work_pools/{name}/queues')).toBe('passed');
    expect(await lint('spec.no-needless-nesting', doc(alsoTopLevel), 'POST /work_pools/{name}/queues')).toBe(
      'convention.violated /work_pools/{name}/queues',
    );
  });
});
