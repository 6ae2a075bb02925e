/**
 * Family `spec`: the target's document against the conventions of spec §1 (SHOULD), one finding per
 * operation with its path. These look at the document only; they send nothing.
 */
import type { Session } from '../run/session.js';
import type { Operation } from '../spec/operations.js';
import { fail, pass, type Check, type Verdict } from './types.js';

const SNAKE = /^[a-z0-9]+(_[a-z0-9]+)*$/;
const QUERY_FOR_BODY = /^(limit|offset|sort|page|page[-_]token|filter|\w+_id|\w+_ids)$/;

function lint(id: string, clause: string, title: string, run: (op: Operation, session: Session) => Verdict, applies: (op: Operation, session: Session) => boolean = () => true): Check<Session> {
  return { id, family: 'spec', level: 'SHOULD', clause, title, appliesTo: applies, run: (op, session) => run(op, session) };
}

export const specLintChecks: Array<Check<Session>> = [
  lint('spec.plural-collections', '1 convention 1', 'SHOULD name collections in the plural', (op, session) => {
    const c = session.model.collectionOf(op)!;
    return /s$/.test(c.name) ? pass() : fail(`${op.path}: collection "${c.name}" (${c.path}) is not plural`);
  }, (op, session) => session.model.collectionOf(op)?.create === op),
  lint('spec.snake-case-routes', '1 convention 3', 'SHOULD write route segments in snake_case', (op) => {
    const bad = op.path.split('/').filter((s) => s && !s.startsWith('{') && !SNAKE.test(s));
    return bad.length ? fail(`${op.path}: ${bad.map((s) => `"${s}"`).join(', ')} not snake_case`) : pass();
  }),
  lint('spec.no-needless-nesting', '1 convention 4', 'SHOULD nest a collection only when its members cannot be reached outside the parent', (op, session) => {
    const c = session.model.collectionOf(op)!;
    const elsewhere = [...session.model.collections.values()].find((o) => o !== c && o.parentParams.length === 0 && o.name !== c.name && o.name.endsWith(`_${c.name}`));
    return elsewhere ? fail(`${c.path} nests "${c.name}", whose members are also reached at ${elsewhere.path}`) : pass();
  }, (op, session) => {
    const c = session.model.collectionOf(op);
    return c !== undefined && c.parentParams.length > 0 && c.create === op;
  }),
  lint('spec.query-in-body', '1 convention 5', 'SHOULD take filtering, sorting and pagination in the POST body, not the query string', (op) => {
    const bad = op.parameters.filter((p) => p.in === 'query' && QUERY_FOR_BODY.test(p.name)).map((p) => p.name);
    return bad.length ? fail(`${op.key} takes ${bad.join(', ')} in the query string`) : pass();
  }),
  lint('spec.get-without-body', '4.1 rule 2', 'SHOULD declare no request body on a GET', (op) => (op.requestBody ? fail(`${op.key} declares a request body`) : pass()), (op) => op.method === 'GET'),
  lint('spec.json-response-schema', '1 (the document describes the interface)', 'SHOULD document a JSON response schema for success (or a body-less 204)', (op): Verdict => {
    const success = Object.entries(op.responses).filter(([s]) => /^2/.test(s));
    if (success.length === 0) return fail(`${op.key} documents no success response`);
    const ok = success.some(([s, r]) => s === '204' || Object.entries(r.content).some(([ct, schema]) => /json/.test(ct) && schema && Object.keys(schema).length > 0));
    return ok ? pass() : fail(`${op.key} documents ${success.map(([s, r]) => `${s} ${Object.keys(r.content).join(',') || '(no content)'}`).join('; ')} without a JSON schema`);
  }),
];

