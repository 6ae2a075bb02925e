/**
 * Family `auth` (spec §5): with credentials configured, protected operations (one read per collection)
 * refuse a request without them or with wrong ones, and serve one with the right ones. Health endpoints
 * may be exempt; the exemption is reported, never failed.
 */
import type { RequestSpec } from '../http/client.js';
import type { Session } from '../run/session.js';
import type { Operation } from '../spec/operations.js';
import { is2xx, probing, recipe, send } from './probe.js';
import { fail, pass, skip, type Check, type Verdict } from './types.js';
import { sampledReads } from './versioning.js';

const HEALTH = /^GET \/(health|ready)\/?$/;

function wrongCredentials(session: Session): Record<string, string> {
  if (session.config.apiKey) return { authorization: 'Bearer conformance-wrong-key' };
  return { authorization: `Basic ${Buffer.from('conformance:wrong-password').toString('base64')}` };
}

const refused = (status: number) => status === 401 || status === 403;

function authCheck(id: string, title: string, level: 'MUST' | 'MAY', applies: (op: Operation, session: Session) => boolean, run: (spec: RequestSpec, op: Operation, session: Session) => Promise<Verdict>): Check<Session> {
  return {
    id,
    family: 'auth',
    level,
    clause: '5',
    title,
    appliesTo: applies,
    run: (op, session) =>
      session.config.apiKey || session.config.authString
        ? probing(async () => run((await recipe(session, op)).spec, op, session))
        : skip('no credentials configured (CONFORMANCE_API_KEY or CONFORMANCE_AUTH_STRING)'),
  };
}

const protectedSample = (op: Operation, session: Session) => sampledReads(session).has(op);

export const authChecks: Array<Check<Session>> = [
  authCheck('auth.required', 'MUST refuse a protected operation without credentials (401 or 403)', 'MUST', protectedSample, async (spec, op, session) => {
    const ex = await send(session, op, { ...spec, withoutAuth: true });
    return refused(ex.status) ? pass(`answered ${ex.status}`) : fail(`without credentials it answered ${ex.status || ex.error}`, [ex]);
  }),
  authCheck('auth.wrong-refused', 'MUST refuse a protected operation with wrong credentials (401 or 403)', 'MUST', protectedSample, async (spec, op, session) => {
    const ex = await send(session, op, { ...spec, withoutAuth: true, headers: wrongCredentials(session) });
    return refused(ex.status) ? pass(`answered ${ex.status}`) : fail(`with wrong credentials it answered ${ex.status || ex.error}`, [ex]);
  }),
  authCheck('auth.right-accepted', 'MUST serve a protected operation with the right credentials', 'MUST', protectedSample, async (spec, op, session) => {
    const ex = await send(session, op, spec);
    return is2xx(ex) ? pass(`answered ${ex.status}`) : fail(`with the configured credentials it answered ${ex.status || ex.error}`, [ex]);
  }),
  authCheck('auth.health-exemption', 'MAY serve health endpoints without credentials (reported, never failed)', 'MAY', (op) => HEALTH.test(op.key), async (spec, op, session) => {
    const ex = await send(session, op, { ...spec, withoutAuth: true });
    return pass(is2xx(ex) ? `exempt: answered ${ex.status} without credentials` : `protected: answered ${ex.status} without credentials`);
  }),
];
