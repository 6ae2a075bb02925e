/**
 * Family `errors` (spec §7 and the document): identifiers that are not identifiers, bodies that are not
 * JSON, and error answers a client can read.
 */
import { isJsonMediaType, type Operation } from '../openapi/operations.js';
import { defineCheck } from './check.js';
import { fail, pass, skip, statusKey } from './verdict.js';

function uuidParams(op: Operation): string[] {
  return op.parameters
    .filter((p) => p.in === 'path' && (p.schema as { format?: string }).format === 'uuid')
    .map((p) => p.name);
}

export const errorsChecks = [
  defineCheck({
    id: 'errors.malformed-id',
    level: 'MUST',
    clause: '7; OpenAPI document (format: uuid)',
    title: 'MUST answer 404 or 422 to an identifier that is not a UUID where one is documented, never a 5xx',
    appliesTo: (op) => uuidParams(op).length > 0,
    run: async (op, ctx) => {
      const built = await ctx.validRequest(op);
      const name = uuidParams(op)[uuidParams(op).length - 1];
      const value = String(built.pathParams[name]);
      const ex = await ctx.send(
        { ...built.request, path: built.request.path.replace(encodeURIComponent(value), 'not-a-uuid') },
        op,
      );
      return ex.status === 404 || ex.status === 422
        ? pass(`answered ${ex.status}`)
        : fail('status.unexpected', statusKey(ex), `{${name}} = "not-a-uuid" answered ${ex.status || ex.error}`, [ex], {
            param: name,
          });
    },
  }),
  defineCheck({
    id: 'errors.wrong-content-type',
    level: 'SHOULD',
    clause: '4.2; OpenAPI document (requestBody content: application/json)',
    title: 'SHOULD refuse a JSON body sent as text/plain with a 4xx',
    // The exercise sends the recipe's body as text/plain (run/exercise.ts); a server error there is also
    // contract.no-5xx's, a MUST failure.
    appliesTo: (op, ctx) => {
      const exercised = ctx.exchangesOf(op);
      return exercised.skipped !== undefined || exercised.sent.some((s) => s.kind === 'wrong-content-type');
    },
    run: async (op, ctx) => {
      const exercised = ctx.exchangesOf(op);
      if (exercised.skipped) return skip(exercised.skipped);
      const ex = exercised.sent.find((s) => s.kind === 'wrong-content-type')!.exchange;
      return ex.status >= 400 && ex.status < 500
        ? pass(`answered ${ex.status}`)
        : fail('input.accepted', statusKey(ex), `a JSON body sent as text/plain answered ${ex.status || ex.error}`, [
            ex,
          ]);
    },
  }),
  defineCheck({
    id: 'errors.4xx-json',
    level: 'SHOULD',
    clause: '7',
    title: 'SHOULD answer a 4xx with a JSON body a client can read',
    // An operation the server never answered with a 4xx gives this check nothing to look at.
    appliesTo: (op, ctx) => {
      const exercised = ctx.exchangesOf(op);
      return (
        exercised.skipped !== undefined ||
        exercised.sent.some(({ exchange: ex }) => ex.status >= 400 && ex.status < 500)
      );
    },
    run: (op, ctx) => {
      const exercised = ctx.exchangesOf(op);
      if (exercised.skipped) return skip(exercised.skipped);
      const errors = exercised.sent.map((s) => s.exchange).filter((ex) => ex.status >= 400 && ex.status < 500);
      if (errors.length === 0) return skip('no 4xx was answered for this operation');
      const bad = errors.find((ex) => !isJsonMediaType(ex.contentType) || ex.parseError !== undefined);
      if (!bad) return pass(`${errors.length} 4xx answer(s), all JSON`);
      return fail(
        isJsonMediaType(bad.contentType) ? 'json.unparsable' : 'content-type.mismatch',
        `${bad.status} ${bad.contentType || 'none'}`,
        `a ${bad.status} came as "${bad.contentType}"${bad.parseError ? ` and does not parse: ${bad.parseError}` : ''}`,
        [bad],
      );
    },
  }),
];
