/**
 * Drift between two OpenAPI documents, as a client sees it: operations added or removed, and each
 * change of a request or success-response schema classified as breaking (an old client can break) or
 * non-breaking (an addition). Both documents are read in their 2020-12 form (see normalize.ts).
 */
import type { OpenApiDocument } from './document.js';
import { indexOperations, jsonBodySchema, resolveRef, type Operation, type Schema } from './operations.js';

export interface DriftChange {
  operation: string;
  /** Where: `request body.flows.name.any_[]`, `query limit`, `200 response.state.type`, or the operation itself. */
  where: string;
  kind:
    | 'operation removed'
    | 'operation added'
    | 'response field removed'
    | 'response field added'
    | 'request field removed'
    | 'request field added'
    | 'new required request field'
    | 'request field no longer required'
    | 'response field no longer required'
    | 'changed type'
    | 'enum value removed'
    | 'enum value added'
    | 'success status removed'
    | 'success status added';
  breaking: boolean;
  detail?: string;
}

export interface DocumentDrift {
  a: { title?: string; version?: string; operations: number };
  b: { title?: string; version?: string; operations: number };
  changes: DriftChange[];
}

interface FieldFacts {
  types: Set<string>;
  required: boolean;
  enum?: Set<string>;
}

const MAX_DEPTH = 8;

/** Every property path of a schema with its types, whether it is required, and its enum; $refs followed once per branch. */
function fieldsOf(
  doc: OpenApiDocument,
  schema: unknown,
  prefix: string,
  out = new Map<string, FieldFacts>(),
  required = true,
  refs: string[] = [],
): Map<string, FieldFacts> {
  if (!schema || typeof schema !== 'object' || refs.length > MAX_DEPTH) return out;
  const ref = (schema as Schema).$ref;
  if (typeof ref === 'string') {
    if (refs.includes(ref)) return out; // recursive schema: its shape is already described above
    return fieldsOf(doc, resolveRef(doc, schema), prefix, out, required, [...refs, ref]);
  }
  const s = schema as Schema;
  const facts = out.get(prefix) ?? { types: new Set<string>(), required };
  facts.required &&= required;
  const types = Array.isArray(s.type) ? (s.type as string[]) : typeof s.type === 'string' ? [s.type as string] : [];
  for (const t of types) facts.types.add(t === 'integer' ? 'number' : t);
  if (s.const !== undefined) (facts.enum ??= new Set()).add(JSON.stringify(s.const));
  for (const v of (s.enum as unknown[] | undefined) ?? []) (facts.enum ??= new Set()).add(JSON.stringify(v));
  out.set(prefix, facts);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const)
    for (const branch of (s[key] as unknown[] | undefined) ?? []) fieldsOf(doc, branch, prefix, out, required, refs);
  const props = (s.properties as Record<string, unknown> | undefined) ?? {};
  const req = new Set((s.required as string[] | undefined) ?? []);
  for (const [name, sub] of Object.entries(props)) fieldsOf(doc, sub, `${prefix}.${name}`, out, req.has(name), refs);
  if (s.items) fieldsOf(doc, s.items, `${prefix}[]`, out, true, refs);
  if (s.additionalProperties && typeof s.additionalProperties === 'object')
    fieldsOf(doc, s.additionalProperties, `${prefix}{}`, out, false, refs);
  return out;
}

function successStatuses(op: Operation): string[] {
  return Object.keys(op.responses).filter((s) => /^2/.test(s));
}

function jsonResponseSchema(op: Operation, status: string): unknown {
  const content = op.responses[status]?.content ?? {};
  const ct = Object.keys(content).find((c) => /json/i.test(c));
  return ct ? content[ct] : undefined;
}

function describeTypes(types: Set<string>): string {
  return [...types].sort().join('|') || 'any';
}

function diffFields(
  operation: string,
  side: 'request' | 'response',
  a: Map<string, FieldFacts>,
  b: Map<string, FieldFacts>,
  changes: DriftChange[],
): void {
  for (const [where, fa] of a) {
    const fb = b.get(where);
    if (!fb) {
      // A field under one already reported as removed says nothing more.
      if ([...a.keys()].some((p) => p !== where && where.startsWith(p) && !b.has(p))) continue;
      changes.push({ operation, where, kind: `${side} field removed`, breaking: true });
      continue;
    }
    if (fa.types.size && fb.types.size && describeTypes(fa.types) !== describeTypes(fb.types)) {
      // Widening a request type, or narrowing a response type, cannot break an old client.
      const widened = [...fa.types].every((t) => fb.types.has(t));
      const narrowed = [...fb.types].every((t) => fa.types.has(t));
      const breaking = side === 'request' ? !widened : !narrowed;
      changes.push({
        operation,
        where,
        kind: 'changed type',
        breaking,
        detail: `${describeTypes(fa.types)} → ${describeTypes(fb.types)}`,
      });
    }
    if (fa.enum && fb.enum) {
      for (const v of fa.enum)
        if (!fb.enum.has(v)) changes.push({ operation, where, kind: 'enum value removed', breaking: true, detail: v });
      for (const v of fb.enum)
        if (!fa.enum.has(v))
          changes.push({ operation, where, kind: 'enum value added', breaking: side === 'response', detail: v });
    }
    if (side === 'request' && fb.required && !fa.required)
      changes.push({ operation, where, kind: 'new required request field', breaking: true });
    if (side === 'request' && !fb.required && fa.required)
      changes.push({ operation, where, kind: 'request field no longer required', breaking: false });
    if (side === 'response' && !fb.required && fa.required)
      changes.push({ operation, where, kind: 'response field no longer required', breaking: true });
  }
  for (const [where, fb] of b) {
    if (a.has(where)) continue;
    if ([...b.keys()].some((p) => p !== where && where.startsWith(p) && !a.has(p))) continue;
    if (side === 'request' && fb.required)
      changes.push({ operation, where, kind: 'new required request field', breaking: true });
    else changes.push({ operation, where, kind: `${side} field added`, breaking: false });
  }
}

function parameterFields(op: Operation): Map<string, FieldFacts> {
  const out = new Map<string, FieldFacts>();
  for (const p of op.parameters.filter((x) => x.in !== 'path' && x.in !== 'cookie')) {
    const types = Array.isArray(p.schema.type)
      ? (p.schema.type as string[])
      : typeof p.schema.type === 'string'
        ? [p.schema.type as string]
        : [];
    out.set(`${p.in} ${p.name}`, {
      types: new Set(types.map((t) => (t === 'integer' ? 'number' : t))),
      required: p.required,
    });
  }
  return out;
}

export function documentDrift(a: OpenApiDocument, b: OpenApiDocument): DocumentDrift {
  const opsA = new Map(indexOperations(a).map((op) => [op.key, op]));
  const opsB = new Map(indexOperations(b).map((op) => [op.key, op]));
  const changes: DriftChange[] = [];
  for (const key of opsA.keys())
    if (!opsB.has(key)) changes.push({ operation: key, where: key, kind: 'operation removed', breaking: true });
  for (const key of opsB.keys())
    if (!opsA.has(key)) changes.push({ operation: key, where: key, kind: 'operation added', breaking: false });
  for (const [key, opA] of opsA) {
    const opB = opsB.get(key);
    if (!opB) continue;
    diffFields(key, 'request', parameterFields(opA), parameterFields(opB), changes);
    const bodyA = jsonBodySchema(opA);
    const bodyB = jsonBodySchema(opB);
    const bodyFields = (doc: OpenApiDocument, op: Operation, body: Schema | undefined) =>
      body
        ? fieldsOf(doc, body, 'request body', new Map(), op.requestBody?.required === true)
        : new Map<string, FieldFacts>();
    diffFields(key, 'request', bodyFields(a, opA, bodyA), bodyFields(b, opB, bodyB), changes);
    for (const status of successStatuses(opA))
      if (!opB.responses[status])
        changes.push({ operation: key, where: `${status} response`, kind: 'success status removed', breaking: true });
    for (const status of successStatuses(opB))
      if (!opA.responses[status])
        changes.push({ operation: key, where: `${status} response`, kind: 'success status added', breaking: false });
    for (const status of successStatuses(opA).filter((s) => opB.responses[s])) {
      const ra = jsonResponseSchema(opA, status);
      const rb = jsonResponseSchema(opB, status);
      if (ra || rb)
        diffFields(
          key,
          'response',
          ra ? fieldsOf(a, ra, `${status} response`) : new Map(),
          rb ? fieldsOf(b, rb, `${status} response`) : new Map(),
          changes,
        );
    }
  }
  changes.sort(
    (x, y) =>
      Number(y.breaking) - Number(x.breaking) ||
      x.operation.localeCompare(y.operation) ||
      x.where.localeCompare(y.where),
  );
  return {
    a: { title: a.info?.title, version: a.info?.version, operations: opsA.size },
    b: { title: b.info?.title, version: b.info?.version, operations: opsB.size },
    changes,
  };
}
