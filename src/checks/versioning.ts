/**
 * Family `versioning` (spec §9): the version header, named as the target's document declares it (else
 * the spec's X-SERVICE-API-VERSION), probed on one read operation of each collection.
 */
import type { Session } from '../run/session.js';
import type { Operation } from '../spec/operations.js';
import { is2xx, probing, recipe, send, Skip } from './probe.js';
import { fail, pass, type Check, type Level } from './types.js';

const SPEC_HEADER = 'X-SERVICE-API-VERSION';
const SEMVER = /^\d+\.\d+\.\d+$/;

/** One read per collection: its filter, else the read of one object. */
export function sampledReads(session: Session): Set<Operation> {
  const out = new Set<Operation>();
  for (const c of session.model.collections.values()) {
    const op = c.filter ?? c.read;
    if (op) out.add(op);
  }
  return out;
}

const versions = new WeakMap<Session, Promise<string>>();

/** The current version: what `GET /version` answers, when the document has it and it is x.y.z. */
function currentVersion(session: Session): Promise<string> {
  let p = versions.get(session);
  if (!p) {
    p = (async () => {
      const op = session.model.operations.find((o) => o.key === 'GET /version');
      if (!op) throw new Skip('the document has no GET /version to learn the current version from');
      const ex = await send(session, undefined, { method: 'GET', template: op.path, path: op.path });
      if (typeof ex.json !== 'string' || !SEMVER.test(ex.json)) throw new Skip(`GET /version answered ${ex.body.slice(0, 60)}, not x.y.z`);
      return ex.json;
    })();
    versions.set(session, p);
  }
  return p;
}

function versionCheck(id: string, level: Level, title: string, value: (session: Session) => Promise<string | undefined>, expect: 'accepted' | 'refused'): Check<Session> {
  return {
    id,
    family: 'versioning',
    level,
    clause: '9',
    title,
    appliesTo: (op, session) => sampledReads(session).has(op),
    run: (op, session) =>
      probing(async () => {
        const header = session.model.versionHeader ?? SPEC_HEADER;
        const v = await value(session);
        const built = await recipe(session, op);
        const ex = await send(session, op, { ...built.spec, headers: v === undefined ? {} : { [header]: v } });
        const shown = v === undefined ? `no ${header}` : `${header}: ${v}`;
        if (expect === 'accepted') return is2xx(ex) ? pass(`${shown} → ${ex.status}`) : fail(`${shown} answered ${ex.status || ex.error}`, [ex]);
        return ex.status >= 400 && ex.status < 500 ? pass(`${shown} → ${ex.status}`) : fail(`${shown} answered ${ex.status || ex.error}`, [ex]);
      }),
  };
}

export const versioningChecks: Array<Check<Session>> = [
  versionCheck('versioning.current-accepted', 'MUST', 'MUST accept the current version in the version header', currentVersion, 'accepted'),
  versionCheck('versioning.missing-accepted', 'MUST', 'MUST accept a request without the version header (it is optional)', async () => undefined, 'accepted'),
  versionCheck('versioning.malformed-refused', 'SHOULD', 'SHOULD refuse a version header not of the form x.y.z with a 4xx', async () => 'not-a-version', 'refused'),
  versionCheck(
      'versioning.below-minimum-refused',
      'SHOULD',
      'SHOULD refuse a version below the minimum the target supports with a 4xx',
      async (session) => {
        const minimum = session.cases.profile.version?.minimum;
        if (!minimum) throw new Skip('the profile documents no minimum version');
        const [major, minor, patch] = minimum.split('.').map(Number);
        if (patch > 0) return `${major}.${minor}.${patch - 1}`;
        if (minor > 0) return `${major}.${minor - 1}.99`;
        if (major > 0) return `${major - 1}.99.99`;
        throw new Skip(`nothing is below ${minimum}`);
      },
      'refused',
    ),
];

