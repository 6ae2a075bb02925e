/**
 * Family `spec`: the target's document against the conventions of spec §1 (SHOULD), one finding per
 * operation with its path. These look at the document only; they send nothing.
 */
import type { Operation } from '../../openapi/operations.js';
import { defineCheck } from '../core/check.js';
import type { CheckContext } from '../core/context.js';
import { fail, pass, type Verdict } from '../core/verdict.js';

const SNAKE = /^[a-z0-9]+(_[a-z0-9]+)*$/;
const QUERY_FOR_BODY = /^(limit|offset|sort|page|page[-_]token|filter|\w+_id|\w+_ids)$/;

const violated = (key: string, message: string): Verdict => fail('convention.violated', key, message);

const createOf = (op: Operation, ctx: CheckContext) => {
  const c = ctx.model.collectionOf(op);
  return c?.create === op ? c : undefined;
};

/** `spec.plural-collections`: a collection's name is a plural noun (ends in s). */
function pluralCollections(op: Operation, ctx: CheckContext): Verdict {
  const c = createOf(op, ctx)!;
  return /s$/.test(c.name) ? pass() : violated(c.name, `${op.path}: collection "${c.name}" (${c.path}) is not plural`);
}

/** `spec.snake-case-routes`: each literal segment of the path is snake_case. */
function snakeCaseRoutes(op: Operation): Verdict {
  const bad = op.path.split('/').filter((s) => s && !s.startsWith('{') && !SNAKE.test(s));
  return bad.length
    ? violated(bad.join(' '), `${op.path}: ${bad.map((s) => `"${s}"`).join(', ')} not snake_case`)
    : pass();
}

/**
 * `spec.no-needless-nesting`: a nested collection whose members are also reached at the top level is nested
 * needlessly.
 */
function noNeedlessNesting(op: Operation, ctx: CheckContext): Verdict {
  const c = createOf(op, ctx)!;
  const elsewhere = [...ctx.model.collections.values()].find(
    (o) => o !== c && o.parentParams.length === 0 && o.name !== c.name && o.name.endsWith(`_${c.name}`),
  );
  return elsewhere
    ? violated(c.path, `${c.path} nests "${c.name}", whose members are also reached at ${elsewhere.path}`)
    : pass();
}

/** `spec.query-in-body`: pagination, sort and filter inputs go in a POST's body, not the query string. */
function queryInBody(op: Operation): Verdict {
  const bad = op.parameters.filter((p) => p.in === 'query' && QUERY_FOR_BODY.test(p.name)).map((p) => p.name);
  return bad.length ? violated(bad.join(' '), `${op.key} takes ${bad.join(', ')} in the query string`) : pass();
}

/** `spec.json-response-schema`: every success response is described: a JSON schema, or no body. */
function jsonResponseSchema(op: Operation): Verdict {
  const success = Object.entries(op.responses).filter(([s]) => /^2/.test(s));
  if (success.length === 0) return violated('none', `${op.key} documents no success response`);
  // A success documented with no content (a 204, or a 200 a server answers without a body) is described:
  // the document says there is no body to have a schema.
  const described = ([s, r]: (typeof success)[number]) =>
    s === '204' ||
    Object.keys(r.content).length === 0 ||
    Object.entries(r.content).some(([ct, schema]) => /json/.test(ct) && schema && Object.keys(schema).length > 0);
  if (success.some(described)) return pass();
  const shown = success.map(([s, r]) => `${s} ${Object.keys(r.content).join(',') || '(no content)'}`).join('; ');
  return violated(success.map(([s]) => s).join(' '), `${op.key} documents ${shown} without a JSON schema`);
}

export const specChecks = [
  defineCheck({
    id: 'spec.plural-collections',
    level: 'MUST',
    clause: '1 convention 1',
    title: 'MUST name collections in the plural',
    reads: 'document',
    appliesTo: (op, ctx) => createOf(op, ctx) !== undefined,
    run: pluralCollections,
  }),
  defineCheck({
    id: 'spec.snake-case-routes',
    level: 'MUST',
    clause: '1 convention 3',
    title: 'MUST write route segments in snake_case',
    reads: 'document',
    run: snakeCaseRoutes,
  }),
  defineCheck({
    id: 'spec.no-needless-nesting',
    level: 'SHOULD',
    clause: '1 convention 4',
    title: 'SHOULD nest a collection only when its members cannot be reached outside the parent',
    reads: 'document',
    appliesTo: (op, ctx) => (createOf(op, ctx)?.parentParams.length ?? 0) > 0,
    run: noNeedlessNesting,
  }),
  defineCheck({
    id: 'spec.query-in-body',
    level: 'MUST',
    clause: '1 convention 5',
    title: 'MUST take filtering, sorting and pagination in the POST body, not the query string',
    reads: 'document',
    // Convention 5 puts them in "the body of POST requests, where applicable": a GET takes nothing from its body
    // (§4.1 rule 2), so a GET list's `limit` and `offset` have the query string as their only place.
    appliesTo: (op) => op.method === 'POST',
    run: queryInBody,
  }),
  defineCheck({
    id: 'spec.get-without-body',
    reads: 'document',
    level: 'MUST',
    clause: '4.1 rule 2',
    title: 'MUST declare no request body on a GET',
    appliesTo: (op) => op.method === 'GET',
    run: (op) => (op.requestBody ? violated('requestBody', `${op.key} declares a request body`) : pass()),
  }),
  defineCheck({
    id: 'spec.json-response-schema',
    level: 'MAY',
    clause: '1 (the complete interface can be described by an OpenAPI document)',
    title: 'MAY document a JSON response schema for success (or a success without a body)',
    reads: 'document',
    run: jsonResponseSchema,
  }),
];
