/** The `methods` checks of a method a path does not offer: 405 (RFC 9110 §9.1), with Allow listing what it does (§15.5.6). */
import { UNKNOWN_UUID } from '../../model/profiles/profile.js';
import type { Operation } from '../../openapi/operations.js';
import type { CheckContext, Exchange } from '../core/context.js';
import { once } from '../core/once.js';
import { fail, pass, skip, statusKey, type Verdict } from '../core/verdict.js';

const PROBE_ORDER = ['GET', 'PUT', 'PATCH', 'DELETE', 'POST'];

const firstOfPath = (op: Operation, ctx: CheckContext) => ctx.model.operations.find((o) => o.path === op.path) === op;

const templateMatches = (template: string, path: string) =>
  new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path);

/** A method the path does not offer, and the path with parameters that name nothing (a route the document does not list can do no harm). */
function notOffered(op: Operation, ctx: CheckContext) {
  const offered = new Set(ctx.model.operations.filter((o) => o.path === op.path).map((o) => o.method));
  const path = op.path.replace(/\{[^}]+\}/g, UNKNOWN_UUID);
  // `GET /work_pools/count` is `GET /work_pools/{name}` for name "count": a method another template serves is offered.
  const servedElsewhere = (m: string) =>
    ctx.model.operations.some((o) => o.method === m && o.path !== op.path && templateMatches(o.path, path));
  return { method: PROBE_ORDER.find((m) => !offered.has(m) && !servedElsewhere(m)), offered, path };
}

/**
 * The first operation of a path that leaves some method unoffered (and served nowhere else): the one the 405 probe
 * is sent for.
 */
export const probes405 = (op: Operation, ctx: CheckContext) =>
  firstOfPath(op, ctx) && notOffered(op, ctx).method !== undefined;

function answerTo405Probe(ctx: CheckContext, op: Operation): Promise<Exchange> {
  return once(ctx, `405 ${op.path}`, () => {
    const { method, path } = notOffered(op, ctx);
    return ctx.send({
      method: method!,
      template: op.path,
      path,
      json: method === 'GET' ? undefined : {},
      refusedBeforeData: true,
    });
  });
}

/** A method the path does not offer: 405. */
export async function methods405(op: Operation, ctx: CheckContext): Promise<Verdict> {
  const ex = await answerTo405Probe(ctx, op);
  return ex.status === 405
    ? pass(`${ex.method} answered 405`)
    : fail(
        'status.unexpected',
        statusKey(ex),
        `${ex.method} ${op.path}, which the document does not offer, answered ${ex.status || ex.error}`,
        [ex],
        { method: ex.method },
      );
}

/**
 * The 405's Allow is true (RFC 9110 §10.2.1: the methods the resource supports): it lists every method the path
 * offers, not the method it refused, and no method that is itself answered 405. A listed method the document
 * does not offer for the path is sent to it (with identifiers that name nothing, as the probe was): the
 * document's own methods are exercised anyway.
 */
export async function methods405Allow(op: Operation, ctx: CheckContext): Promise<Verdict> {
  const ex = await answerTo405Probe(ctx, op);
  if (ex.status !== 405) return skip(`no 405 to look at (answered ${ex.status})`);
  const header = ex.responseHeaders.allow ?? '';
  const allowed = header.split(',').map((m) => m.trim().toUpperCase());
  const allow = new Set(allowed.filter((m) => m && m !== 'HEAD' && m !== 'OPTIONS'));
  const { offered, path } = notOffered(op, ctx);
  if (allow.has(ex.method))
    return fail(
      'header.untrue',
      `allow ${ex.method}`,
      `Allow is "${header}": it lists ${ex.method}, the method it refused`,
      [ex],
      {
        refused: ex.method,
      },
    );
  const missing = [...offered].filter((m) => !allow.has(m));
  if (missing.length)
    return fail(
      'header.incomplete',
      'allow',
      `Allow is "${header}"; the path also offers ${missing.join(', ')}`,
      [ex],
      {
        missing,
      },
    );
  for (const method of [...allow].filter((m) => !offered.has(m))) {
    const listed = await ctx.send({
      method,
      template: op.path,
      path,
      json: method === 'GET' ? undefined : {},
      refusedBeforeData: true,
    });
    if (listed.status === 405)
      return fail(
        'header.untrue',
        `allow ${method}`,
        `Allow is "${header}", but ${method} ${op.path} answers 405`,
        [ex, listed],
        {
          listed: method,
        },
      );
  }
  return pass(`Allow: ${header}`);
}
