/**
 * Family `errors` (spec §7 and the document): identifiers that are not identifiers, bodies that are not
 * JSON, and error answers a client can read.
 */
import { isReadOperation } from '../cases/requests.js';
import type { Session } from '../run/session.js';
import { jsonBodySchema, type Operation } from '../spec/operations.js';
import { probing, recipe, send } from './probe.js';
import { fail, pass, skip, type Check } from './types.js';

const isJson = (ct: string) => /^application\/([\w.+-]+\+)?json\b/i.test(ct.trim());

function uuidParams(op: Operation): string[] {
  return op.parameters.filter((p) => p.in === 'path' && (p.schema as { format?: string }).format === 'uuid').map((p) => p.name);
}

export const errorsChecks: Array<Check<Session>> = [
  {
    id: 'errors.malformed-id',
    family: 'errors',
    level: 'MUST',
    clause: '7; OpenAPI document (format: uuid)',
    title: 'MUST answer 404 or 422 to an identifier that is not a UUID where one is documented, never a 5xx',
    appliesTo: (op) => uuidParams(op).length > 0,
    run: (op, session) =>
      probing(async () => {
        const built = await recipe(session, op);
        const name = uuidParams(op)[uuidParams(op).length - 1];
        const value = String(built.pathParams[name]);
        const ex = await send(session, op, { ...built.spec, path: built.spec.path.replace(encodeURIComponent(value), 'not-a-uuid') });
        return ex.status === 404 || ex.status === 422 ? pass(`answered ${ex.status}`) : fail(`{${name}} = "not-a-uuid" answered ${ex.status || ex.error}`, [ex]);
      }),
  },
  {
    id: 'errors.wrong-content-type',
    family: 'errors',
    level: 'SHOULD',
    clause: '4.2; OpenAPI document (requestBody content: application/json)',
    title: 'SHOULD refuse a JSON body sent as text/plain with a 4xx',
    appliesTo: (op, session) => jsonBodySchema(op) !== undefined && (session.cases.profile.safety(op)?.generated ?? true) && !(session.config.readOnly && !isReadOperation(op)),
    run: (op, session) =>
      probing(async () => {
        if (session.runOf(op).skipped) return skip(session.runOf(op).skipped!);
        const built = await recipe(session, op);
        const ex = await send(session, op, { ...built.spec, json: undefined, raw: JSON.stringify(built.spec.json ?? {}), headers: { 'content-type': 'text/plain' } });
        return ex.status >= 400 && ex.status < 500 ? pass(`answered ${ex.status}`) : fail(`a JSON body sent as text/plain answered ${ex.status || ex.error}`, [ex]);
      }),
  },
  {
    id: 'errors.4xx-json',
    family: 'errors',
    level: 'SHOULD',
    clause: '7',
    title: 'SHOULD answer a 4xx with a JSON body a client can read',
    appliesTo: () => true,
    run: (op, session) => {
      const run = session.runOf(op);
      if (run.skipped) return skip(run.skipped);
      const errors = run.sent.map((s) => s.exchange).filter((ex) => ex.status >= 400 && ex.status < 500);
      if (errors.length === 0) return skip('no 4xx was answered for this operation');
      const bad = errors.find((ex) => !isJson(ex.contentType) || ex.parseError !== undefined);
      return bad ? fail(`a ${bad.status} came as "${bad.contentType}"${bad.parseError ? ` and does not parse: ${bad.parseError}` : ''}`, [bad]) : pass(`${errors.length} 4xx answer(s), all JSON`);
    },
  },
];
