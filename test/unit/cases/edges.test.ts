/** The edges of a body: each field's boundary values, valid rows valid by the document and the out-of-range rows not. */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { minimalFor } from '../../../src/cases/arbitrary.js';
import {
  EXTREME,
  OUT_OF_RANGE,
  edgeRows,
  edgesOfField,
  positiveAmounts,
  singleField,
  unknownOnlyBody,
} from '../../../src/cases/edges.js';
import { indexOperations, jsonBodySchema, type Schema } from '../../../src/openapi/operations.js';
import { SchemaValidators } from '../../../src/openapi/validators.js';
import { referenceDoc } from '../support.js';

const doc = referenceDoc();
const validators = new SchemaValidators(doc);
const accepts = (schema: Schema) => (json: unknown) => validators.validate(schema, json) === undefined;

describe('edges of a field', () => {
  test('an integer between bounds: below and at the minimum, −1, at and above the maximum (0 is below the minimum here)', () => {
    const edges = edgesOfField(doc, 'n', { type: 'integer', minimum: 1, maximum: 10 });
    expect(edges.map((e) => [e.label, e.value])).toEqual([
      ['below-minimum', 0],
      ['minimum', 1],
      ['minus-one', -1],
      ['maximum', 10],
      ['above-maximum', 11],
    ]);
  });

  test('exclusive bounds: the bound itself is out of range, the next integer in it', () => {
    const edges = Object.fromEntries(
      edgesOfField(doc, 'n', { type: 'integer', exclusiveMinimum: 0, exclusiveMaximum: 5 }).map((e) => [
        e.label,
        e.value,
      ]),
    );
    expect(edges).toMatchObject({ 'below-minimum': 0, minimum: 1, maximum: 4, 'above-maximum': 5 });
  });

  test('an unbounded integer gets the 32-bit bounds the generators use, then one past 64 bits; nothing out of range', () => {
    const edges = edgesOfField(doc, 'n', { type: 'integer' });
    expect(edges.map((e) => e.label)).toEqual(['minimum', 'zero', 'minus-one', 'maximum', 'past-64-bits']);
    expect(edges[0].value).toBe(-(2 ** 31));
    // As JSON it reads as an integer past 2^64, which no 64-bit integer holds.
    expect(BigInt(JSON.stringify(edges.at(-1)!.value)) > 2n ** 64n - 1n).toBe(true);
    expect(edges.map((e) => e.label).filter((l) => OUT_OF_RANGE.has(l))).toEqual([]);
  });

  test('an unbounded number ends past 64 bits too; a bound leaves the extremes out', () => {
    expect(edgesOfField(doc, 'x', { type: 'number' }).at(-1)).toEqual({
      field: 'x',
      label: 'past-64-bits',
      value: 2 ** 64,
    });
    const bounded = edgesOfField(doc, 'n', { type: 'integer', maximum: 10 }).map((e) => e.label);
    expect(bounded.filter((l) => EXTREME.has(l))).toEqual([]);
  });

  test('a nullable string: null, empty, long, non-ASCII, reserved characters; a maxLength gives at and past it', () => {
    const edges = edgesOfField(doc, 's', { anyOf: [{ type: 'string', maxLength: 4 }, { type: 'null' }] });
    expect(edges.map((e) => [e.label, e.value])).toEqual([
      ['null', null],
      ['empty', ''],
      ['long', 'xxxx'],
      ['too-long', 'xxxxx'],
      ['non-ascii', 'Grüße, 世界 🌍'],
      ['reserved-characters', '<&%>'],
    ]);
  });

  test("a name keeps the run's name at its start, and is never empty or null", () => {
    const edges = edgesOfField(doc, 'name', { anyOf: [{ type: 'string' }, { type: 'null' }] }, 'run-7');
    expect(edges.map((e) => e.label)).toEqual(['long', 'past-storage', 'non-ascii', 'reserved-characters']);
    for (const e of edges) expect(String(e.value).startsWith('run-7')).toBe(true);
  });

  test('a string the document sets no maximum length on goes past what an index entry holds, in text no compression shortens', () => {
    const [edge] = edgesOfField(doc, 'name', { type: 'string' }, 'run-7').filter((e) => e.label === 'past-storage');
    const text = String(edge?.value);
    expect(EXTREME.has('past-storage')).toBe(true);
    expect(text).toHaveLength(10_000);
    expect(text).toMatch(/^run-7-[a-z0-9]+$/);
    // No short pattern repeats: a thousand characters hold more than a hundred distinct runs of four.
    const runs = new Set(Array.from({ length: 1000 }, (_, i) => text.slice(100 + i, 104 + i)));
    expect(runs.size).toBeGreaterThan(100);
    // The same text on every run: a seed changes only the random bodies.
    expect(edgesOfField(doc, 'name', { type: 'string' }, 'run-7').find((e) => e.label === 'past-storage')?.value).toBe(
      text,
    );
    expect(edgesOfField(doc, 's', { type: 'string', maxLength: 8 }).map((e) => e.label)).not.toContain('past-storage');
  });

  test('an amount a request takes or gives back: an integer bounded below at zero or one, and not above', () => {
    const amountsOf = (key: string) =>
      positiveAmounts(doc, jsonBodySchema(indexOperations(doc).find((o) => o.key === key)!)!);
    expect(amountsOf('POST /v2/concurrency_limits/decrement')).toEqual([{ field: 'slots', least: 1 }]);
    expect(amountsOf('POST /v2/concurrency_limits/increment')).toEqual([{ field: 'slots', least: 1 }]);
    // A limit of 1 to 50 is a page, bounded above; an offset starts at zero, inclusive.
    expect(amountsOf('POST /flows/bulk_delete')).toEqual([]);
    expect(amountsOf('POST /flows/filter')).toEqual([]);
  });

  test('enums, patterns and uuids have no edge but null; dates have the earliest and latest, in UTC and at offsets past them', () => {
    expect(edgesOfField(doc, 'e', { type: 'string', enum: ['A', 'B'] })).toEqual([]);
    expect(edgesOfField(doc, 'p', { type: 'string', pattern: '^a$' })).toEqual([]);
    expect(edgesOfField(doc, 'u', { anyOf: [{ type: 'string', format: 'uuid' }, { type: 'null' }] })).toEqual([
      { field: 'u', label: 'null', value: null },
    ]);
    expect(edgesOfField(doc, 'd', { type: 'string', format: 'date-time' }).map((e) => e.value)).toEqual([
      '0001-01-01T00:00:00Z',
      '9999-12-31T23:59:59Z',
      '0001-01-01T00:00:00+23:59',
      '9999-12-31T23:59:59-23:59',
    ]);
  });
});

describe('rows of edges over the reference document', () => {
  const bodies = indexOperations(doc).flatMap((op) => {
    const schema = jsonBodySchema(op);
    const body = schema ? minimalFor(schema, { doc }) : undefined;
    return schema && body && typeof body === 'object' && !Array.isArray(body)
      ? [[op.key, schema, body as Record<string, unknown>] as const]
      : [];
  });

  test.each(bodies)(
    '%s: a row is valid unless its label is out of range, and so is each of its fields alone',
    (_k, schema, body) => {
      const rows = edgeRows({
        doc,
        bodySchema: schema,
        body,
        keeps: () => false,
        marks: () => false,
        marksMayBeNull: false,
        isName: () => false,
        nameStem: 'run-edge',
        accepts: accepts(schema),
      });
      for (const row of rows) {
        expect(row.valid, `${row.label} ${row.fields}`).toBe(!OUT_OF_RANGE.has(row.label));
        for (const field of row.fields) {
          const alone = singleField(row, field, body);
          expect(accepts(schema)(alone), `${row.label} /${field}`).toBe(row.valid);
        }
      }
    },
  );

  const schemaWithMarks = {
    type: 'object',
    properties: {
      name: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      flow_id: { type: 'string', format: 'uuid' },
      limit: { type: 'integer', minimum: 0 },
      tags: { anyOf: [{ type: 'array', items: { type: 'string' } }, { type: 'null' }] },
      description: { anyOf: [{ type: 'string' }, { type: 'null' }] },
    },
  };
  const id = '00000000-0000-4000-8000-000000000000';
  const rowsOf = (marksMayBeNull: boolean) =>
    edgeRows({
      doc,
      bodySchema: schemaWithMarks,
      body: { name: 'run-1', flow_id: id, limit: 1, tags: ['run'] },
      keeps: (f) => f === 'flow_id',
      marks: (f) => f === 'tags',
      marksMayBeNull,
      isName: (f) => f === 'name',
      nameStem: 'run-edge',
      accepts: accepts(schemaWithMarks),
    });

  test('every field of a body gets its edges, one label per row, and fields kept are left as they are', () => {
    const rows = rowsOf(false);
    const byLabel = Object.fromEntries(rows.map((r) => [r.label, r.fields]));
    expect(byLabel).toEqual({
      'below-minimum': ['limit'],
      minimum: ['limit'],
      maximum: ['limit'],
      'past-64-bits': ['limit'],
      // The mark's null too: the ledger holds the object the create makes by its id.
      null: ['description', 'tags'],
      // An optional field whose schema has no null: null is another value than leaving it out.
      'null-not-allowed': ['limit'],
      empty: ['description'],
      long: ['description', 'name'],
      'non-ascii': ['description', 'name'],
      'reserved-characters': ['description', 'name'],
      'past-storage': ['description', 'name'],
    });
    expect(rows.find((r) => r.label === 'null-not-allowed')?.valid).toBe(false);
    for (const row of rows) {
      expect(row.json.flow_id).toBe(id);
      if (row.label !== 'null') expect(row.json.tags).toEqual(['run']);
    }
  });

  test('a required field, a name and a kept field get no null-not-allowed; a mark whose schema has no null gets it', () => {
    const schema = {
      type: 'object',
      required: ['count'],
      properties: {
        count: { type: 'integer' },
        name: { type: 'string' },
        ref: { type: 'string', format: 'uuid' },
        tags: { type: 'array', items: { type: 'string' } },
      },
    };
    const rows = edgeRows({
      doc,
      bodySchema: schema,
      body: { count: 1, name: 'run-1', ref: id, tags: ['run'] },
      keeps: (f) => f === 'ref',
      marks: (f) => f === 'tags',
      marksMayBeNull: false,
      isName: (f) => f === 'name',
      nameStem: 'run-edge',
      accepts: accepts(schema),
    });
    expect(rows.find((r) => r.label === 'null-not-allowed')?.fields).toEqual(['tags']);
    expect(rows.filter((r) => r.fields.includes('tags')).map((r) => r.label)).toEqual(['null-not-allowed']);
  });

  test("on an update of the run's own object, a name and the tags may be null too, and get no other edge", () => {
    const rows = rowsOf(true);
    const byLabel = Object.fromEntries(rows.map((r) => [r.label, r.fields]));
    expect(byLabel.null).toEqual(['description', 'name', 'tags']);
    for (const row of rows.filter((r) => r.label !== 'null')) expect(row.json.tags).toEqual(['run']);
    expect(rows.find((r) => r.label === 'long')?.fields).toEqual(['description', 'name']);
  });

  test('rows are the same whatever order the properties come in (deterministic, no seed)', () => {
    fc.assert(
      fc.property(fc.shuffledSubarray(['a', 'b', 'c', 'd'], { minLength: 4 }), (order) => {
        const properties = Object.fromEntries(order.map((k) => [k, { type: 'integer', maximum: 3 }]));
        const schema = { type: 'object', properties };
        const rows = edgeRows({
          doc,
          bodySchema: schema,
          body: {},
          keeps: () => false,
          marks: () => false,
          marksMayBeNull: false,
          isName: () => false,
          nameStem: 'run-edge',
          accepts: accepts(schema),
        });
        return rows.every((r) => r.fields.join() === 'a,b,c,d');
      }),
    );
  });
});

describe('a body of a property the document does not name', () => {
  test('names one property the schema does not, and nothing else; a body that is not an object, or is a map, has none', () => {
    const schema = { type: 'object', properties: { name: {}, conformance_unknown: {} }, additionalProperties: false };
    const body = unknownOnlyBody(doc, schema)!;
    expect(Object.keys(body)).toHaveLength(1);
    expect(Object.keys(schema.properties)).not.toContain(Object.keys(body)[0]);
    expect(accepts(schema)(body)).toBe(false);
    expect(unknownOnlyBody(doc, { type: 'array', items: { type: 'string' } })).toBeUndefined();
    // A map (labels): every key is data.
    expect(unknownOnlyBody(doc, { type: 'object', additionalProperties: true })).toBeUndefined();
    expect(
      unknownOnlyBody(doc, { type: 'object', properties: { a: {} }, additionalProperties: { type: 'string' } }),
    ).toBeUndefined();
  });
});
