/** Field hooks: fields the profile never sends stay out of minimal and generated bodies alike. */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { arbitraryFor, minimalFor } from '../../../src/cases/arbitrary.js';
import { fieldHooks } from '../../../src/cases/requests.js';
import { SafeValues } from '../../../src/cases/safeValues.js';
import { prefectProfile } from '../../../src/model/profiles/prefect.js';
import type { OpenApiDocument } from '../../../src/openapi/document.js';

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
  const hooks = fieldHooks(new SafeValues('conformance-t1'), {}, [], prefectProfile.fieldsNeverSent);

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
