/**
 * JSON Schema (2020-12, as normalised on load) → fast-check arbitrary of valid instances, and a
 * deterministic minimal instance. Fields that name things or point at other objects are handed to hooks,
 * so that generated requests carry the run's prefix and tag and refer to objects that exist.
 */
import fc from 'fast-check';
import type { OpenApiDocument } from '../openapi/document.js';
import { resolveRef, type Schema } from '../openapi/operations.js';

export interface FieldHooks {
  /** A value for the property `name` of an object, or undefined to generate it from its schema. */
  arbitrary?(name: string, schema: Schema): fc.Arbitrary<unknown> | undefined;
  /** For an optional property, a value means: include it (names and tags make the object the run's own). */
  minimal?(name: string, schema: Schema, optional: boolean): { value: unknown } | undefined;
}

export interface GenContext {
  doc: OpenApiDocument;
  hooks?: FieldHooks;
  /** How many `$ref`s deep to generate optional content before settling for the minimal instance. */
  maxDepth?: number;
}

type S = Schema & {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  prefixItems?: Schema[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  multipleOf?: number;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minProperties?: number;
  default?: unknown;
};

/** Merge an allOf into one schema (properties and required are unioned; the rest, last one wins). */
export function mergeAllOf(ctx: GenContext, schema: S): S {
  if (!schema.allOf) return schema;
  const { allOf, ...rest } = schema;
  let merged: S = { ...rest };
  for (const part of allOf) {
    const p = flatten(ctx, part);
    merged = {
      ...p,
      ...merged,
      properties: { ...(p.properties ?? {}), ...(merged.properties ?? {}) },
      required: [...new Set([...(p.required ?? []), ...(merged.required ?? [])])],
    };
  }
  if (Object.keys(merged.properties ?? {}).length === 0) delete merged.properties;
  if ((merged.required ?? []).length === 0) delete merged.required;
  return merged;
}

function flatten(ctx: GenContext, schema: Schema): S {
  return mergeAllOf(ctx, resolveRef<S>(ctx.doc, schema));
}

function typesOf(schema: S): string[] {
  if (Array.isArray(schema.type)) return schema.type;
  if (typeof schema.type === 'string') return [schema.type];
  if (schema.properties || schema.additionalProperties !== undefined) return ['object'];
  if (schema.items || schema.prefixItems) return ['array'];
  return [];
}

/**
 * A value where the schema allows any JSON: small, so that bodies stay readable and shrink fast. Its numbers
 * keep to the bounds typed numbers get here (±1e9, 32-bit integers): RFC 8259 §6 lets an implementation
 * limit the range of numbers, so a value beyond them tests JSON's limits, not the API (PostgreSQL's jsonb
 * turns 5.7e175 into an integer of 176 digits that Prefect cannot serialise again).
 */
/** A finite double in [min, max]; -0 is sent as 0 (JSON has no negative zero a server must keep). */
const finiteDouble = (min: number, max: number) =>
  fc.double({ min, max, noNaN: true, noDefaultInfinity: true }).map((n) => (Object.is(n, -0) ? 0 : n));

const jsonScalar = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.string({ maxLength: 12 }),
  fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
  finiteDouble(-1e9, 1e9),
);
const anyJson = fc.oneof(
  jsonScalar,
  fc.array(jsonScalar, { maxLength: 4 }),
  fc.dictionary(fc.string({ maxLength: 10 }), jsonScalar, { maxKeys: 4 }),
);

const DATE_MIN = new Date('2000-01-01T00:00:00Z');
const DATE_MAX = new Date('2099-12-31T23:59:59Z');

function stringArbitrary(schema: S): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.max(minLength, Math.min(schema.maxLength ?? minLength + 12, minLength + 40));
  switch (schema.format) {
    case 'uuid':
      return fc.uuid();
    case 'date-time':
      return fc.date({ min: DATE_MIN, max: DATE_MAX, noInvalidDate: true }).map((d) => d.toISOString());
    case 'date':
      return fc.date({ min: DATE_MIN, max: DATE_MAX, noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
    case 'time':
      return fc
        .date({ min: DATE_MIN, max: DATE_MAX, noInvalidDate: true })
        .map((d) => `${d.toISOString().slice(11, 19)}Z`);
    case 'email':
      return fc.emailAddress();
    case 'uri':
    case 'url':
      return fc.webUrl();
    case 'duration':
    case 'time-delta':
      return fc.integer({ min: 0, max: 86400 }).map((n) => `PT${n}S`);
    case 'ipv4':
      return fc.ipV4();
  }
  if (schema.pattern)
    return fc
      .stringMatching(new RegExp(schema.pattern, 'u'))
      .filter((s) => s.length >= minLength && (schema.maxLength === undefined || s.length <= schema.maxLength));
  return fc.string({ minLength, maxLength, unit: 'grapheme-ascii' });
}

function numberBounds(schema: S, integer: boolean): { min: number; max: number } {
  const step = integer ? 1 : 1e-6;
  let min =
    schema.minimum ??
    (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + step : integer ? -(2 ** 31) : -1e9);
  let max =
    schema.maximum ??
    (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - step : integer ? 2 ** 31 - 1 : 1e9);
  if (schema.minimum !== undefined && schema.exclusiveMinimum !== undefined)
    min = Math.max(min, schema.exclusiveMinimum + step);
  if (schema.maximum !== undefined && schema.exclusiveMaximum !== undefined)
    max = Math.min(max, schema.exclusiveMaximum - step);
  if (integer) {
    min = Math.ceil(min);
    max = Math.floor(max);
  }
  return { min, max };
}

function arbitraryOfType(ctx: GenContext, schema: S, type: string, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer': {
      const { min, max } = numberBounds(schema, true);
      const arb = fc.integer({ min, max });
      return schema.multipleOf
        ? arb.map((n) => Math.round(n / schema.multipleOf!) * schema.multipleOf!).filter((n) => n >= min && n <= max)
        : arb;
    }
    case 'number': {
      const { min, max } = numberBounds(schema, false);
      return finiteDouble(min, max);
    }
    case 'string':
      return stringArbitrary(schema);
    case 'array': {
      if (schema.prefixItems) {
        const head = schema.prefixItems.map((s) => arbitraryFor(s, ctx, depth + 1));
        return fc.tuple(...head);
      }
      const minLength = schema.minItems ?? 0;
      const maxLength = Math.max(
        minLength,
        Math.min(schema.maxItems ?? minLength + 2, minLength + (depth > 2 ? 0 : 3)),
      );
      const items = schema.items ? arbitraryFor(schema.items, ctx, depth + 1) : anyJson;
      return schema.uniqueItems
        ? fc.uniqueArray(items, { minLength, maxLength, selector: (v) => JSON.stringify(v) })
        : fc.array(items, { minLength, maxLength });
    }
    case 'object':
      return objectArbitrary(ctx, schema, depth);
  }
  return fc.constant(null);
}

function objectArbitrary(ctx: GenContext, schema: S, depth: number): fc.Arbitrary<unknown> {
  const properties = schema.properties ?? {};
  const required = new Set(schema.required ?? []);
  const tooDeep = depth > (ctx.maxDepth ?? 4);
  const parts: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, sub] of Object.entries(properties)) {
    if (tooDeep && !required.has(name)) continue;
    const hooked = ctx.hooks?.arbitrary?.(name, sub);
    parts[name] =
      hooked ?? (tooDeep ? fc.constant(minimalFor(sub, ctx, depth + 1)) : arbitraryFor(sub, ctx, depth + 1));
  }
  const record = fc.record(parts, { requiredKeys: Object.keys(parts).filter((k) => required.has(k)) });
  const extra = schema.additionalProperties;
  if (Object.keys(properties).length === 0 && extra && typeof extra === 'object' && !tooDeep) {
    return fc.dictionary(
      fc.string({ minLength: 1, maxLength: 8, unit: 'grapheme-ascii' }),
      arbitraryFor(extra, ctx, depth + 1),
      {
        minKeys: schema.minProperties ?? 0,
        maxKeys: 3,
      },
    );
  }
  if (Object.keys(properties).length === 0 && extra === undefined && !tooDeep && schema.minProperties === undefined) {
    return fc.dictionary(fc.string({ minLength: 1, maxLength: 8, unit: 'grapheme-ascii' }), anyJson, { maxKeys: 3 });
  }
  return record;
}

/** An arbitrary of values valid against `schema`. */
export function arbitraryFor(schema: Schema, ctx: GenContext, depth = 0): fc.Arbitrary<unknown> {
  const s = flatten(ctx, schema);
  if ('const' in s) return fc.constant(s.const);
  if (s.enum) return fc.constantFrom(...s.enum);
  const branches = s.anyOf ?? s.oneOf;
  if (branches) {
    const { anyOf: _a, oneOf: _o, ...outer } = s;
    const merged = branches.map((b) => ({ ...outer, ...flatten(ctx, b) }) as Schema);
    // Past the depth limit, prefer the branch with the smallest instance: recursion must end.
    if (depth > (ctx.maxDepth ?? 4)) return fc.constant(minimalFor(s, ctx, depth));
    return fc.oneof(...merged.map((b) => arbitraryFor(b, ctx, depth + 1)));
  }
  const types = typesOf(s);
  if (types.length === 0) return depth > (ctx.maxDepth ?? 4) ? fc.constant(null) : anyJson;
  if (types.length === 1) return arbitraryOfType(ctx, s, types[0], depth);
  return fc.oneof(...types.map((t) => arbitraryOfType(ctx, s, t, depth)));
}

function minimalOfType(ctx: GenContext, s: S, type: string, depth: number): unknown {
  switch (type) {
    case 'null':
      return null;
    case 'boolean':
      return false;
    case 'integer':
    case 'number': {
      const { min, max } = numberBounds(s, type === 'integer');
      const base = Math.min(Math.max(type === 'integer' ? 1 : 1, min), max);
      return s.multipleOf ? Math.ceil(base / s.multipleOf) * s.multipleOf : base;
    }
    case 'string': {
      switch (s.format) {
        case 'uuid':
          return '00000000-0000-4000-8000-000000000000';
        case 'date-time':
          return new Date().toISOString();
        case 'date':
          return new Date().toISOString().slice(0, 10);
        case 'email':
          return 'conformance@example.com';
        case 'uri':
        case 'url':
          return 'https://example.com/';
        case 'duration':
        case 'time-delta':
          return 'PT60S';
      }
      if (s.pattern) {
        const sample = fc.sample(stringArbitrary(s), { numRuns: 1, seed: 1 })[0];
        return sample;
      }
      return 'x'.repeat(Math.max(1, s.minLength ?? 1));
    }
    case 'array':
      if (s.prefixItems) return s.prefixItems.map((p) => minimalFor(p, ctx, depth + 1));
      return Array.from({ length: s.minItems ?? 0 }, () => minimalFor(s.items ?? {}, ctx, depth + 1));
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const name of s.required ?? []) {
        const sub = s.properties?.[name] ?? (typeof s.additionalProperties === 'object' ? s.additionalProperties : {});
        const hooked = ctx.hooks?.minimal?.(name, sub, false);
        out[name] = hooked ? hooked.value : minimalFor(sub, ctx, depth + 1);
      }
      if (depth === 0) {
        for (const [name, sub] of Object.entries(s.properties ?? {})) {
          if (name in out) continue;
          const hooked = ctx.hooks?.minimal?.(name, sub, true);
          if (hooked && hooked.value !== undefined) out[name] = hooked.value;
        }
      }
      return out;
    }
  }
  return null;
}

/**
 * The smallest useful valid instance: required fields only, the first enum value, the lowest bound;
 * of a union, the first branch that is not null (a useful body beats a null one).
 */
export function minimalFor(schema: Schema, ctx: GenContext, depth = 0): unknown {
  const s = flatten(ctx, schema);
  if ('const' in s) return s.const;
  if (s.enum) return s.enum[0];
  const branches = s.anyOf ?? s.oneOf;
  if (branches) {
    const { anyOf: _a, oneOf: _o, ...outer } = s;
    const resolved = branches.map((b) => ({ ...outer, ...flatten(ctx, b) }) as S);
    const nonNull = resolved.filter((b) => !(typesOf(b).length === 1 && typesOf(b)[0] === 'null'));
    // Deep in a recursive schema, null ends the recursion.
    const pick =
      depth > (ctx.maxDepth ?? 4)
        ? (resolved.find((b) => typesOf(b).includes('null')) ?? resolved[0])
        : (nonNull[0] ?? resolved[0]);
    return minimalFor(pick, ctx, depth + 1);
  }
  const types = typesOf(s);
  if (types.length === 0) return depth > (ctx.maxDepth ?? 4) ? null : {};
  const type =
    depth > (ctx.maxDepth ?? 4) && types.includes('null') ? 'null' : (types.find((t) => t !== 'null') ?? types[0]);
  return minimalOfType(ctx, s, type, depth);
}
