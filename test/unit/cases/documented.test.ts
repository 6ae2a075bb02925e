/** A body as the target's document names it: what the schema does not name left out, names fitted, enums kept. */
import { describe, expect, test } from 'vitest';
import { documentedBody } from '../../../src/cases/documented.js';

const doc = {
  openapi: '3.1.0',
  info: { title: 't', version: '1' },
  paths: {},
  components: {
    schemas: {
      State: {
        type: 'object',
        additionalProperties: false,
        required: ['type'],
        properties: { type: { enum: ['PENDING', 'FAILED'] }, name: { type: 'string' } },
      },
      NewRun: {
        type: 'object',
        additionalProperties: false,
        required: ['name'],
        properties: {
          name: { type: 'string', pattern: '^[a-z0-9-]+$' },
          tags: { type: 'array', items: { type: 'string' } },
          kind: { enum: ['a', 'b'] },
          state: { anyOf: [{ $ref: '#/components/schemas/State' }, { type: 'null' }] },
          parameters: { type: 'object', additionalProperties: true },
        },
      },
    },
  },
} as never;
const schema = { $ref: '#/components/schemas/NewRun' };

describe('documentedBody', () => {
  test('leaves out every property the schema does not name, at every depth', () => {
    const sent = documentedBody(doc, schema, {
      name: 'run-1',
      dynamic_key: '0',
      state: { type: 'PENDING', state_details: { scheduled_time: 'x' } },
    });
    expect(sent).toEqual({ name: 'run-1', state: { type: 'PENDING' } });
  });

  test('fits names to their pattern, and keeps what a free-form object holds', () => {
    expect(documentedBody(doc, schema, { name: 'Run-A', parameters: { any: { thing: 1 } } })).toEqual({
      name: 'run-a',
      parameters: { any: { thing: 1 } },
    });
  });

  test('leaves out an optional value its enum does not list, and keeps a required one for the server to judge', () => {
    expect(documentedBody(doc, schema, { name: 'r', kind: 'c' })).toEqual({ name: 'r' });
    expect(documentedBody(doc, schema, { name: 'r', state: { type: 'CRASHED' } })).toEqual({
      name: 'r',
      state: { type: 'CRASHED' },
    });
  });

  test('without a schema, sends the value as it is', () => {
    expect(documentedBody(doc, undefined, { a: 1 })).toEqual({ a: 1 });
  });
});
