/** Every negative case the suite sends is invalid by the document: a 2xx answer is the server's leniency. */
import { describe, expect, test } from 'vitest';
import { minimalFor } from '../../../src/cases/arbitrary.js';
import { negativeCases } from '../../../src/cases/negative.js';
import { indexOperations, jsonBodySchema } from '../../../src/openapi/operations.js';
import { SchemaValidators } from '../../../src/openapi/validators.js';
import { referenceDoc } from '../support.js';

const doc = referenceDoc();
const validators = new SchemaValidators(doc);
const bodies = indexOperations(doc).flatMap((op) => {
  const schema = jsonBodySchema(op);
  return schema ? [[op.key, schema] as const] : [];
});

describe('negative cases', () => {
  test.each(bodies)('%s: each is invalid, and the kinds are there', (_key, schema) => {
    const valid = minimalFor(schema, { doc });
    const cases = negativeCases(doc, schema, valid, validators);
    expect(cases.some((c) => c.kind === 'malformed-json')).toBe(true);
    for (const c of cases) {
      if (c.raw !== undefined) expect(() => JSON.parse(c.raw!)).toThrow();
      else expect(validators.validate(schema, c.json), `${c.kind}: ${c.detail}`).toBeDefined();
    }
  });

  test('a body with required fields and additionalProperties:false gets every kind', () => {
    const schema = {
      type: 'object',
      properties: { name: { type: 'string', maxLength: 5 }, n: { type: 'integer', minimum: 1 } },
      required: ['name'],
      additionalProperties: false,
    };
    const kinds = negativeCases(doc, schema, { name: 'ab' }, validators).map((c) => c.kind);
    expect(new Set(kinds)).toEqual(
      new Set(['malformed-json', 'wrong-type', 'missing-required', 'extra-property', 'out-of-range']),
    );
  });
});
