/** Document drift on the committed Prefect document and on one-change edits of it. */
import { describe, expect, test } from 'vitest';
import { documentDrift, type DriftChange } from '../../../src/openapi/drift.js';
import type { OpenApiDocument } from '../../../src/openapi/document.js';
import { referenceDoc } from '../support.js';

type Schemas = Record<
  string,
  { properties: Record<string, Record<string, unknown>>; required?: string[]; enum?: string[] }
>;

function edited(edit: (schemas: Schemas, doc: OpenApiDocument) => void): {
  before: OpenApiDocument;
  after: OpenApiDocument;
} {
  const before = referenceDoc();
  const after = structuredClone(before);
  edit(after.components!.schemas as Schemas, after);
  return { before, after };
}

const summary = (changes: DriftChange[]) =>
  [...new Set(changes.map((c) => `${c.breaking ? 'breaking' : 'non-breaking'} ${c.kind}`))].sort();

describe('documentDrift', () => {
  test('a document against itself: no change', () => {
    const doc = referenceDoc();
    expect(documentDrift(doc, structuredClone(doc)).changes).toEqual([]);
  });

  test('a removed response field is breaking, wherever the schema is used; an added one is not', () => {
    const { before, after } = edited((s) => delete s.Flow.properties.labels);
    const removed = documentDrift(before, after).changes;
    expect(summary(removed)).toEqual(['breaking response field removed']);
    expect(removed.map((c) => c.operation)).toContain('POST /flows/');
    expect(removed.find((c) => c.operation === 'GET /flows/{id}')!.where).toBe('200 response.labels');
    expect(summary(documentDrift(after, before).changes)).toEqual(['non-breaking response field added']);
  });

  test('a new required request field is breaking; a new optional one is not', () => {
    const required = edited((s) => {
      s.FlowCreate.properties.owner = { type: 'string' };
      s.FlowCreate.required = [...(s.FlowCreate.required ?? []), 'owner'];
    });
    const changes = documentDrift(required.before, required.after).changes.filter(
      (c) => c.operation === 'POST /flows/',
    );
    expect(changes).toEqual([
      expect.objectContaining({ where: 'request body.owner', kind: 'new required request field', breaking: true }),
    ]);
    const optional = edited((s) => (s.FlowCreate.properties.owner = { type: 'string' }));
    expect(summary(documentDrift(optional.before, optional.after).changes)).toEqual([
      'non-breaking request field added',
    ]);
  });

  test('a changed type is breaking; a removed enum value is breaking, an added one is listed', () => {
    const typed = edited((s) => (s.Flow.properties.name = { type: 'integer' }));
    const change = documentDrift(typed.before, typed.after).changes.find((c) => c.operation === 'GET /flows/{id}')!;
    expect(change).toMatchObject({
      where: '200 response.name',
      kind: 'changed type',
      breaking: true,
      detail: 'string → number',
    });

    const fewer = edited((s) => (s.StateType.enum = s.StateType.enum!.filter((v) => v !== 'PAUSED')));
    const removed = documentDrift(fewer.before, fewer.after).changes;
    expect(removed.length).toBeGreaterThan(0);
    expect(removed.every((c) => c.kind === 'enum value removed' && c.breaking && c.detail === '"PAUSED"')).toBe(true);
    expect(documentDrift(fewer.after, fewer.before).changes.every((c) => c.kind === 'enum value added')).toBe(true);
  });

  test('an operation removed is breaking, one added is not', () => {
    const { before, after } = edited((_s, doc) => delete (doc.paths['/flows/{id}'] as Record<string, unknown>).delete);
    expect(documentDrift(before, after).changes).toEqual([
      { operation: 'DELETE /flows/{id}', where: 'DELETE /flows/{id}', kind: 'operation removed', breaking: true },
    ]);
    expect(documentDrift(after, before).changes).toEqual([
      { operation: 'DELETE /flows/{id}', where: 'DELETE /flows/{id}', kind: 'operation added', breaking: false },
    ]);
  });
});
