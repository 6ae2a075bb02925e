/** The document normaliser on constructs real servers emit (pydantic v1, FastAPI, OpenAPI 3.0 generators). */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { arbitraryFor, minimalFor } from '../../../src/cases/arbitrary.js';
import type { OpenApiDocument } from '../../../src/openapi/document.js';
import type { Operation } from '../../../src/openapi/operations.js';
import { normalizeDocumentWithNotes, normalizeSchemaNode } from '../../../src/openapi/normalize.js';
import { SchemaValidators } from '../../../src/openapi/validators.js';

const docWith = (schemas: Record<string, unknown>, openapi = '3.1.0', paths: Record<string, unknown> = {}) =>
  ({ openapi, info: { title: 't', version: '1' }, paths, components: { schemas } }) as unknown as OpenApiDocument;

describe('one schema node', () => {
  test('a tuple items array becomes prefixItems, additionalItems becomes items', () => {
    expect(normalizeSchemaNode({ type: 'array', items: [{ type: 'string' }, { type: 'integer' }] })).toEqual({
      type: 'array',
      prefixItems: [{ type: 'string' }, { type: 'integer' }],
    });
    expect(normalizeSchemaNode({ type: 'array', items: [{ type: 'string' }], additionalItems: false })).toEqual({
      type: 'array',
      prefixItems: [{ type: 'string' }],
      items: false,
    });
  });

  test('boolean exclusive bounds become numeric ones; false ones go', () => {
    expect(normalizeSchemaNode({ type: 'number', minimum: 0, exclusiveMinimum: true })).toEqual({
      type: 'number',
      exclusiveMinimum: 0,
    });
    expect(normalizeSchemaNode({ type: 'number', maximum: 9, exclusiveMaximum: false })).toEqual({
      type: 'number',
      maximum: 9,
    });
  });

  test('nullable admits null whatever carries the type: a string, a list, an enum, a reference, a composition', () => {
    expect(normalizeSchemaNode({ type: 'string', nullable: true })).toEqual({ type: ['string', 'null'] });
    expect(normalizeSchemaNode({ type: ['string', 'integer'], nullable: true })).toEqual({
      type: ['string', 'integer', 'null'],
    });
    expect(normalizeSchemaNode({ type: 'string', enum: ['a'], nullable: true })).toEqual({
      type: ['string', 'null'],
      enum: ['a', null],
    });
    expect(normalizeSchemaNode({ $ref: '#/components/schemas/X', nullable: true })).toEqual({
      anyOf: [{ $ref: '#/components/schemas/X' }, { type: 'null' }],
    });
    expect(normalizeSchemaNode({ allOf: [{ type: 'string' }], nullable: true })).toEqual({
      anyOf: [{ allOf: [{ type: 'string' }] }, { type: 'null' }],
    });
    expect(normalizeSchemaNode({ type: 'string', nullable: false })).toEqual({ type: 'string' });
  });

  test('an allOf of one $ref beside annotations is that $ref with them; any other allOf stays', () => {
    expect(
      normalizeSchemaNode({ allOf: [{ $ref: '#/components/schemas/S' }], title: 'Sort', default: 'NAME_ASC' }),
    ).toEqual({ title: 'Sort', default: 'NAME_ASC', $ref: '#/components/schemas/S' });
    const kept = [
      { allOf: [{ $ref: '#/a' }, { $ref: '#/b' }] },
      { allOf: [{ $ref: '#/a' }], type: 'object' },
      { allOf: [{ $ref: '#/a', description: 'x' }] },
    ];
    for (const schema of kept) expect(normalizeSchemaNode(schema)).toEqual(schema);
  });

  test('a schema in 2020-12 form is left as it is', () => {
    const schema = { type: 'array', prefixItems: [{ type: 'string' }], items: false, exclusiveMinimum: 3 };
    expect(normalizeSchemaNode(schema)).toEqual(schema);
  });
});

describe('a document', () => {
  // pydantic v1 (Prefect 2.x) writes a pair as a tuple items array inside a 3.1 document.
  const pairs = {
    Graph: {
      type: 'object',
      properties: {
        nodes: {
          type: 'array',
          items: {
            type: 'array',
            items: [{ type: 'string', format: 'uuid' }, { $ref: '#/components/schemas/Node' }],
            minItems: 2,
            maxItems: 2,
          },
        },
      },
      required: ['nodes'],
    },
    Node: { type: 'object', properties: { id: { type: 'string', nullable: true } } },
    Bound: { type: 'integer', minimum: 1, exclusiveMinimum: true },
  };

  test('is rewritten in every schema, nested ones included, and Ajv 2020 compiles it', () => {
    const { doc } = normalizeDocumentWithNotes(docWith(pairs));
    const graph = doc.components?.schemas?.Graph as { properties: { nodes: { items: Record<string, unknown> } } };
    expect(graph.properties.nodes.items.prefixItems).toHaveLength(2);
    expect(graph.properties.nodes.items.items).toBeUndefined();
    const v = new SchemaValidators(doc);
    const root = { $ref: '#/components/schemas/Graph' };
    expect(v.validate(root, { nodes: [['a1b2c3d4-0000-4000-8000-000000000000', { id: null }]] })).toBeUndefined();
    expect(v.validate(root, { nodes: [['not-a-uuid', { id: 'x' }]] })).toBeDefined();
    expect(v.validate({ $ref: '#/components/schemas/Bound' }, 1)).toBeDefined();
    expect(v.validate({ $ref: '#/components/schemas/Bound' }, 2)).toBeUndefined();
  });

  test('generated values of a rewritten schema are valid by it', () => {
    const { doc } = normalizeDocumentWithNotes(docWith(pairs));
    const v = new SchemaValidators(doc);
    const root = { $ref: '#/components/schemas/Graph' };
    expect(v.validate(root, minimalFor(root, { doc }))).toBeUndefined();
    fc.assert(
      fc.property(arbitraryFor(root, { doc }), (value) => v.validate(root, value) === undefined),
      { numRuns: 50, seed: 11 },
    );
  });

  test('reports each kind of rewrite once, with its count and first place', () => {
    const paths = {
      '/a': { get: { responses: { 200: { description: 'ok' } } } },
      '/b': { post: { operationId: 'b', responses: { 200: { description: 'ok' } } } },
    };
    const { normalisations } = normalizeDocumentWithNotes(docWith(pairs, '3.1.0', paths));
    const byKind = Object.fromEntries(normalisations.map((n) => [n.kind, n]));
    expect(Object.keys(byKind).sort()).toEqual(['exclusive-bound', 'nullable', 'operation-id', 'tuple-items']);
    expect(byKind['tuple-items']).toMatchObject({
      count: 1,
      first: '#/components/schemas/Graph/properties/nodes/items',
    });
    expect(byKind.nullable).toMatchObject({ count: 1, first: '#/components/schemas/Node/properties/id' });
    expect(byKind['operation-id']).toMatchObject({ count: 1, first: '#/paths/~1a/get' });
    for (const n of normalisations) expect(n.description).toMatch(/\S/);
  });

  test('a document that needs nothing reports nothing and comes back equal', () => {
    const clean = docWith({ X: { type: ['string', 'null'] } }, '3.1.0', {
      '/x': { get: { operationId: 'x', responses: { 200: { description: 'ok' } } } },
    });
    const { doc, normalisations } = normalizeDocumentWithNotes(clean);
    expect(normalisations).toEqual([]);
    expect(doc).toEqual(clean);
  });
});

describe('a schema that no rewrite mends', () => {
  const op = (schema: Record<string, unknown>): Operation => ({
    key: 'POST /x',
    method: 'POST',
    path: '/x',
    tags: [],
    parameters: [],
    requestBody: { required: true, content: { 'application/json': schema } },
    responses: { 200: { content: {} } },
    deprecated: false,
  });

  test('costs only the operations that use it', () => {
    const doc = docWith({ Bad: { type: 'string', pattern: '(' }, Good: { type: 'string' } });
    const v = new SchemaValidators(doc);
    expect(v.uncompilable(op({ $ref: '#/components/schemas/Bad' }))).toMatch(
      /^a schema of POST \/x cannot be compiled as JSON Schema 2020-12: /,
    );
    expect(v.uncompilable(op({ $ref: '#/components/schemas/Good' }))).toBeUndefined();
    expect(v.validate({ $ref: '#/components/schemas/Good' }, 'text')).toBeUndefined();
  });
});
