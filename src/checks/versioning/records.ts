/**
 * Family `versioning` (spec §9): the version header, named as the target's document declares it (else
 * the spec's X-SERVICE-API-VERSION), probed on one read operation of each collection.
 */
import type { Operation } from '../../openapi/operations.js';
import { is2xx } from '../../openapi/request.js';
import { defineCheck } from '../core/check.js';
import type { CheckContext } from '../core/context.js';
import { once } from '../core/once.js';
import { sampledReads } from '../core/sampledReads.js';
import { fail, pass, Skip, statusKey, type Verdict } from '../core/verdict.js';

const SPEC_HEADER = 'X-SERVICE-API-VERSION';
const SEMVER = /^\d+\.\d+\.\d+$/;

/** The current version: what `GET /version` answers, when the document has it and it is x.y.z. */
function currentVersion(ctx: CheckContext): Promise<string> {
  return once(ctx, 'current version', async () => {
    const op = ctx.model.operations.find((o) => o.key === 'GET /version');
    if (!op) throw new Skip('the document has no GET /version to learn the current version from');
    const ex = await ctx.send({ method: 'GET', template: op.path, path: op.path });
    if (typeof ex.json !== 'string' || !SEMVER.test(ex.json))
      throw new Skip(`GET /version answered ${ex.body.slice(0, 60)}, not x.y.z`);
    return ex.json;
  });
}

/** A version just below the profile's minimum. */
function belowMinimum(ctx: CheckContext): string {
  const minimum = ctx.profile.version?.minimum;
  if (!minimum) throw new Skip('the profile documents no minimum version');
  const [major, minor, patch] = minimum.split('.').map(Number);
  if (patch > 0) return `${major}.${minor}.${patch - 1}`;
  if (minor > 0) return `${major}.${minor - 1}.99`;
  if (major > 0) return `${major - 1}.99.99`;
  throw new Skip(`nothing is below ${minimum}`);
}

/** Send the operation's valid request with the header set to the value (or without it), and judge the answer. */
async function withVersion(
  ctx: CheckContext,
  op: Operation,
  value: string | undefined,
  expect: 'accepted' | 'refused',
): Promise<Verdict> {
  const header = ctx.model.versionHeader ?? SPEC_HEADER;
  const built = await ctx.validRequest(op);
  const ex = await ctx.send({ ...built.request, headers: value === undefined ? {} : { [header]: value } }, op);
  const shown = value === undefined ? `no ${header}` : `${header}: ${value}`;
  const ok = expect === 'accepted' ? is2xx(ex) : ex.status >= 400 && ex.status < 500;
  return ok
    ? pass(`${shown} → ${ex.status}`)
    : fail('status.unexpected', statusKey(ex), `${shown} answered ${ex.status || ex.error}`, [ex], { header, value });
}

/** One read per collection: what the versioning checks send, rather than every operation. */
const sampled = (op: Operation, ctx: CheckContext) => sampledReads(ctx.model).has(op);

export const versioningChecks = [
  defineCheck({
    id: 'versioning.current-accepted',
    level: 'MUST',
    clause: '9',
    title: 'MUST accept the current version in the version header',
    appliesTo: sampled,
    run: async (op, ctx) => withVersion(ctx, op, await currentVersion(ctx), 'accepted'),
  }),
  defineCheck({
    id: 'versioning.missing-accepted',
    level: 'MUST',
    clause: '9',
    title: 'MUST accept a request without the version header (it is optional)',
    appliesTo: sampled,
    run: (op, ctx) => withVersion(ctx, op, undefined, 'accepted'),
  }),
  defineCheck({
    id: 'versioning.malformed-refused',
    level: 'SHOULD',
    clause:
      'open: the spec gives the header the form x.y.z and leaves the answer to another form unshown (9): a 4xx is expected, and reported, not gated; 9',
    title: 'SHOULD refuse a version header not of the form x.y.z with a 4xx',
    appliesTo: sampled,
    run: (op, ctx) => withVersion(ctx, op, 'not-a-version', 'refused'),
  }),
  defineCheck({
    id: 'versioning.below-minimum-refused',
    level: 'SHOULD',
    clause:
      'open: the behaviour for an unsupported version is not shown by the spec (9): a 4xx is expected, and reported, not gated; 9',
    title: 'SHOULD refuse a version below the minimum the target supports with a 4xx',
    appliesTo: sampled,
    run: (op, ctx) => withVersion(ctx, op, belowMinimum(ctx), 'refused'),
  }),
];
