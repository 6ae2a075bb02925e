/**
 * Family `auth` (spec §5): with credentials configured, protected operations (one read per collection)
 * refuse a request without them or with wrong ones, and serve one with the right ones. Health endpoints
 * may be exempt; the exemption is reported, never failed.
 */
import type { Operation } from '../../openapi/operations.js';
import { is2xx, type RequestToSend } from '../../openapi/request.js';
import { defineCheck } from '../core/check.js';
import type { CheckContext, Exchange } from '../core/context.js';
import { sampledReads } from '../core/sampledReads.js';
import { fail, pass, Skip, statusKey, type Verdict } from '../core/verdict.js';

const HEALTH = /^GET \/(health|ready)\/?$/;

const refused = (status: number) => status === 401 || status === 403;

/** Credentials of the configured kind that are wrong. */
function wrongCredentials(ctx: CheckContext): Record<string, string> {
  if (ctx.settings.credentials === 'bearer') return { authorization: 'Bearer conformance-wrong-key' };
  return { authorization: `Basic ${Buffer.from('conformance:wrong-password').toString('base64')}` };
}

/** The operation's valid request, changed as given, sent; skipped when no credentials are configured. */
async function sendWith(ctx: CheckContext, op: Operation, change: Partial<RequestToSend>): Promise<Exchange> {
  if (!ctx.settings.credentials)
    throw new Skip('no credentials configured (CONFORMANCE_API_KEY or CONFORMANCE_AUTH_STRING)');
  const built = await ctx.validRequest(op);
  return ctx.send({ ...built.request, ...change }, op);
}

/** One read per collection: what the auth checks send, rather than every operation. */
const protectedSample = (op: Operation, ctx: CheckContext) => sampledReads(ctx.model).has(op);

/** `auth.required`: the valid request without credentials must be refused with 401 or 403. */
async function required(op: Operation, ctx: CheckContext): Promise<Verdict> {
  const ex = await sendWith(ctx, op, { withoutAuth: true });
  return refused(ex.status)
    ? pass(`answered ${ex.status}`)
    : fail('status.unexpected', statusKey(ex), `without credentials it answered ${ex.status || ex.error}`, [ex]);
}

/**
 * `auth.wrong-refused`: the valid request with credentials of the configured kind that are wrong must be refused
 * with 401 or 403.
 */
async function wrongRefused(op: Operation, ctx: CheckContext): Promise<Verdict> {
  const ex = await sendWith(ctx, op, { withoutAuth: true, headers: wrongCredentials(ctx) });
  return refused(ex.status)
    ? pass(`answered ${ex.status}`)
    : fail('status.unexpected', statusKey(ex), `with wrong credentials it answered ${ex.status || ex.error}`, [ex]);
}

/** `auth.right-accepted`: the valid request with the configured credentials must succeed. */
async function rightAccepted(op: Operation, ctx: CheckContext): Promise<Verdict> {
  const ex = await sendWith(ctx, op, {});
  return is2xx(ex)
    ? pass(`answered ${ex.status}`)
    : fail('status.unexpected', statusKey(ex), `with the configured credentials it answered ${ex.status || ex.error}`, [
        ex,
      ]);
}

/** `auth.health-exemption`: whether a health endpoint answers without credentials, reported either way. */
async function healthExemption(op: Operation, ctx: CheckContext): Promise<Verdict> {
  const ex = await sendWith(ctx, op, { withoutAuth: true });
  return pass(
    is2xx(ex)
      ? `exempt: answered ${ex.status} without credentials`
      : `protected: answered ${ex.status} without credentials`,
  );
}

export const authChecks = [
  defineCheck({
    id: 'auth.required',
    level: 'MUST',
    clause: '5',
    title: 'MUST refuse a protected operation without credentials (401 or 403)',
    appliesTo: protectedSample,
    run: required,
  }),
  defineCheck({
    id: 'auth.wrong-refused',
    level: 'MUST',
    clause: '5',
    title: 'MUST refuse a protected operation with wrong credentials (401 or 403)',
    appliesTo: protectedSample,
    run: wrongRefused,
  }),
  defineCheck({
    id: 'auth.right-accepted',
    level: 'MUST',
    clause: '5',
    title: 'MUST serve a protected operation with the right credentials',
    appliesTo: protectedSample,
    run: rightAccepted,
  }),
  defineCheck({
    id: 'auth.health-exemption',
    level: 'MAY',
    clause:
      'open: the spec does not show the authentication of a local server, nor which endpoints need it (5): reported, never failed; 5',
    title: 'MAY serve health endpoints without credentials (reported, never failed)',
    appliesTo: (op) => HEALTH.test(op.key),
    run: healthExemption,
  }),
];
