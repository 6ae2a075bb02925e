/**
 * The generator's promise: every value it makes is valid against its own schema. Proven as a property
 * over every request-body and parameter schema of Prefect's document, and on hand-made schemas that
 * use what Prefect's does not (3.0 nullable, oneOf, allOf, bounds, recursion).
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { arbitraryFor, minimalFor } from '../../../src/cases/arbitrary.js';
import { normalizeDocument } from '../../../src/openapi/normalize.js';
import { indexOperations, jsonBodySchema, type Schema } from '../../../src/openapi/operations.js';
import { SchemaValidators } from '../../../src/openapi/validators.js';
import type { OpenApiDocument } from '../../../src/openapi/document.js';
import { referenceDoc } from '../support.js';

const doc = referenceDoc();
const validators = new SchemaValidators(doc);
const operations = indexOperations(doc);
const schemas: Array<[string, Schema]> = [];
for (const op of operations) {
  const body = jsonBodySchema(op);
  if (body) schemas.push([`${op.key} body`, body]);
  for (const p of op.parameters) schemas.push([`${op.key} ${p.in} ${p.name}`, p.schema]);
}

describe('generated values pass Ajv against their own schema', () => {
  test('the document offers request schemas to test', () => {
    expect(schemas.length).toBeGreaterThan(300);
  });

  test.each(schemas)('%s', (_name, schema) => {
    const ctx = { doc };
    expect(validators.validate(schema, minimalFor(schema, ctx))).toBeUndefined();
    fc.assert(
      fc.property(arbitraryFor(schema, ctx), (value) => validators.validate(schema, value) === undefined),
      { numRuns: 15, seed: 42 },
    );
  });
});

function docWith(schemas: Record<string, unknown>, openapi = '3.1.0'): OpenApiDocument {
  return { openapi, info: { title: 't', version: '1' }, paths: {}, components: { schemas } };
}

describe('keywords the reference document does not use', () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    [
      'oneOf of disjoint types',
      {
        Root: {
          oneOf: [
            { type: 'integer', minimum: 5 },
            { type: 'string', format: 'email' },
          ],
        },
      },
      '3.1.0',
    ],
    [
      'allOf merging properties and required',
      {
        Root: {
          allOf: [
            { type: 'object', properties: { a: { type: 'string', minLength: 2 } }, required: ['a'] },
            { properties: { b: { type: 'integer', maximum: 3 } }, required: ['b'] },
          ],
          additionalProperties: true,
        },
      },
      '3.1.0',
    ],
    [
      'recursive $ref',
      {
        Root: { $ref: '#/components/schemas/Node' },
        Node: {
          type: 'object',
          properties: {
            children: { type: 'array', items: { $ref: '#/components/schemas/Node' } },
            v: { type: 'string', format: 'date' },
          },
          required: ['children'],
          additionalProperties: false,
        },
      },
      '3.1.0',
    ],
    [
      'type arrays and const',
      {
        Root: {
          type: 'object',
          properties: {
            x: { type: ['string', 'null'], maxLength: 3 },
            k: { const: 'fixed' },
            u: { type: 'string', format: 'uri' },
          },
          required: ['x', 'k', 'u'],
        },
      },
      '3.1.0',
    ],
    [
      'exclusive bounds and multipleOf',
      {
        Root: {
          type: 'object',
          properties: {
            n: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 },
            m: { type: 'integer', multipleOf: 5, minimum: 1, maximum: 100 },
          },
          required: ['n', 'm'],
        },
      },
      '3.1.0',
    ],
    [
      '3.0 nullable and boolean exclusive bounds',
      {
        Root: {
          type: 'object',
          properties: {
            s: { type: 'string', nullable: true, enum: ['a', 'b'] },
            i: { type: 'integer', minimum: 0, exclusiveMinimum: true, maximum: 9 },
          },
          required: ['s', 'i'],
        },
      },
      '3.0.3',
    ],
  ];
  test.each(cases)('%s', (_name, components, openapi) => {
    const d = normalizeDocument(docWith(components, openapi));
    const v = new SchemaValidators(d);
    const root = { $ref: '#/components/schemas/Root' };
    expect(v.validate(root, minimalFor(root, { doc: d }))).toBeUndefined();
    fc.assert(
      fc.property(arbitraryFor(root, { doc: d }), (value) => v.validate(root, value) === undefined),
      { numRuns: 100, seed: 7 },
    );
  });

  test('3.0 nullable becomes a type array that admits null', () => {
    const d = normalizeDocument(docWith({ Root: { type: 'string', nullable: true } }, '3.0.3'));
    expect(d.components?.schemas?.Root).toEqual({ type: ['string', 'null'] });
  });
});

describe('values where the schema allows any JSON', () => {
  const numbersIn = (value: unknown): number[] =>
    typeof value === 'number'
      ? [value]
      : value && typeof value === 'object'
        ? Object.values(value).flatMap(numbersIn)
        : [];

  test('keep their numbers within the bounds typed numbers get (32-bit integers, doubles within ±1e9)', () => {
    fc.assert(
      fc.property(arbitraryFor({}, { doc }), (value) => numbersIn(value).every((n) => Math.abs(n) <= 2 ** 31)),
      { numRuns: 500, seed: 11 },
    );
  });
});
