/**
 * The `methods` checks of DELETE (spec §4.1): one scenario per operation, made once and judged by each check:
 * the object gone, a second DELETE 404, nothing else gone, and the object out of the collection's views.
 */
import { filterModel } from '../../model/filters.js';
import { namedCollection, type Collection } from '../../model/model.js';
import type { Obj } from '../../openapi/json.js';
import type { Operation } from '../../openapi/operations.js';
import { is2xx, type RequestToSend } from '../../openapi/request.js';
import type { CheckContext, Exchange } from '../core/context.js';
import { once } from '../core/once.js';
import { fail, type FailureKind, pass, skip, Skip, statusKey, unexpected, type Verdict } from '../core/verdict.js';
import { countOf, pathNaming, readOf } from './shared.js';

interface DeleteScenario {
  first: Exchange;
  readAfter?: Exchange;
  second: Exchange;
  countBefore?: number;
  countAfter?: number;
  bystander?: Exchange;
  /** The collection's filter and paginate after the DELETE, asked for the target's id and the bystander's. */
  views: Array<{ name: 'filter' | 'paginate'; exchange: Exchange; target: string; bystander: string }>;
}

/**
 * The views of a collection that select by id (`<key>.id.any_` in the body of its filter and paginate), for an
 * object of it: where a deleted object must be gone from too.
 */
function viewsById(
  ctx: CheckContext,
  c: Collection,
): Array<{ name: 'filter' | 'paginate'; op: Operation; key: string }> {
  const model = filterModel(ctx.model, c);
  const key = model?.ownKey;
  const byId = key && model.filters[key].fields.some((f) => f.path.join('.') === 'id' && 'any_' in f.operators);
  if (!byId || c.parentParams.length > 0) return [];
  return [
    { name: 'filter' as const, op: c.filter },
    { name: 'paginate' as const, op: c.paginate },
  ].flatMap((v) => (v.op ? [{ ...v, op: v.op, key }] : []));
}

/** The ids a filter's or a paginate's answer holds (a list, or paginate's `results`). */
const idsIn = (json: unknown): string[] => {
  const items = Array.isArray(json) ? json : (json as { results?: unknown } | undefined)?.results;
  return Array.isArray(items) ? items.map((o) => String((o as Obj)?.id)) : [];
};

/** What a DELETE scenario acts on: the request, the object it deletes (and its id), another to stay. */
interface DeleteObjects {
  c: Collection;
  request: RequestToSend;
  target: Obj;
  targetId: unknown;
  bystander: Obj;
}

/**
 * The objects of an operation's DELETE scenario, made (and the target's id read) before the scenario runs
 * alone, beside other checks: the DELETE checks' `prepare`. What need not follow another goes side by side
 * (a far target's round trips are paid once for both). The recipe of a DELETE names a fresh object made for
 * it: that object is the target, rather than one more. A scenario sent again (`round` 1) acts on fresh objects.
 */
function deleteObjects(ctx: CheckContext, op: Operation, round = 0): Promise<DeleteObjects> {
  return once(ctx, `delete objects ${op.key}${round ? ` again ${round}` : ''}`, async () => {
    const c = namedCollection(ctx.model, op);
    if (!c) throw new Skip('the path names no object of a collection');
    const { param, ref } = ctx.model.recordOf(op).named!;
    const field = ref.field;
    const [built, bystander] = await Promise.all([ctx.validRequest(op), ctx.object(c.path, 'fresh')]);
    const named = built.pathParams[param];
    const target =
      field === c.idField && named !== undefined && round === 0
        ? { [field]: named }
        : await ctx.object(c.path, 'fresh');
    const request = { ...built.request, path: pathNaming(built.request, target[field]) };
    // The target's id, for the views that select by id: read where its path names it otherwise.
    const targetId =
      target.id ??
      (c.read && viewsById(ctx, c).length > 0
        ? ((await ctx.send(readOf(c, await ctx.itemPath(c, target)))).json as Obj | undefined)?.id
        : undefined);
    return { c, request, target, targetId, bystander };
  });
}

/**
 * One DELETE scenario per operation, judged by the DELETE checks: the count, the DELETE, then everything that
 * follows it side by side: the read, the second DELETE, the count, the reads of the bystander and the views.
 * Three round trips: behind latency each is paid in full, and a lane's scenarios go one at a time. The count
 * beside the second DELETE is exact on a conforming server, whose second DELETE changes nothing (§4.1 rule 1:
 * 404); a server whose second DELETE deletes again answers it 2xx, which delete-twice-404 judges.
 */
function deleteScenario(ctx: CheckContext, op: Operation, round = 0): Promise<DeleteScenario> {
  return once(ctx, `delete ${op.key}${round ? ` again ${round}` : ''}`, async () => {
    const { c, request, target, targetId, bystander } = await deleteObjects(ctx, op, round);
    const read = async (obj: Obj) => ctx.send(readOf(c, await ctx.itemPath(c, obj)));
    const countBefore = await countOf(ctx, op);
    const first = await ctx.send(request, op);
    // By id only where the object's id is known: the target named by its id, or made fresh for the scenario.
    const ids = { target: targetId, bystander: bystander.id };
    const [readAfter, second, countAfter, bystanderRead, views] = await Promise.all([
      c.read ? read(target) : undefined,
      ctx.send(request, op),
      countOf(ctx, op),
      c.read ? read(bystander) : undefined,
      typeof ids.target === 'string' && typeof ids.bystander === 'string'
        ? Promise.all(
            viewsById(ctx, c).map(async (v) => {
              const json = { [v.key]: { id: { any_: [ids.target, ids.bystander] } } };
              const exchange = await ctx.send({ method: 'POST', template: v.op.path, path: v.op.path, json });
              return { name: v.name, exchange, target: ids.target as string, bystander: ids.bystander as string };
            }),
          )
        : ([] as DeleteScenario['views']),
    ]);
    return { first, readAfter, second, countBefore, countAfter, bystander: bystanderRead, views };
  });
}

/** The DELETE checks' preparation: the scenario's objects, made beside other checks before it runs alone. */
export const prepareDelete = (op: Operation, ctx: CheckContext) => deleteObjects(ctx, op);

/** A DELETE of one object of a collection the model names. */
export const isDeleteOfObject = (op: Operation, ctx: CheckContext) =>
  op.method === 'DELETE' && namedCollection(ctx.model, op) !== undefined;

/** A DELETE whose collection offers a GET of one object, to see the object gone. */
export const isDeleteOfReadableObject = (op: Operation, ctx: CheckContext) =>
  isDeleteOfObject(op, ctx) && namedCollection(ctx.model, op)!.read !== undefined;

/** A DELETE whose collection offers a read or a count, to see what else the DELETE removed. */
export const isDeleteOfObservableObject = (op: Operation, ctx: CheckContext) => {
  const c = isDeleteOfObject(op, ctx) ? namedCollection(ctx.model, op)! : undefined;
  return c !== undefined && (c.read !== undefined || (c.count !== undefined && c.parentParams.length === 0));
};

/** A DELETE whose collection's filter or paginate selects by id, to see the object gone from them. */
export const isDeleteOfObjectInViews = (op: Operation, ctx: CheckContext) =>
  isDeleteOfObject(op, ctx) && viewsById(ctx, namedCollection(ctx.model, op)!).length > 0;

/** What followed the scenario's DELETE (`then`) answered 404, or fails as `kind` with both exchanges. */
const answered404 = (deleted: Exchange, then: Exchange, kind: FailureKind, what: string): Verdict =>
  then.status === 404 ? pass() : fail(kind, statusKey(then), `${what} answered ${then.status}`, [deleted, then]);

/** A GET of the object after its DELETE: 404. */
export async function deleteThen404(op: Operation, ctx: CheckContext): Promise<Verdict> {
  const s = await deleteScenario(ctx, op);
  if (!is2xx(s.first)) return unexpected('the DELETE of a fresh object', s.first);
  if (!s.readAfter) return skip('the collection offers no GET of one object');
  return answered404(s.first, s.readAfter, 'state.changed', 'GET after DELETE');
}

/** A second DELETE of the object: 404. */
export async function deleteTwice404(op: Operation, ctx: CheckContext): Promise<Verdict> {
  const s = await deleteScenario(ctx, op);
  if (!is2xx(s.first)) return unexpected('the DELETE of a fresh object', s.first);
  return answered404(s.first, s.second, 'status.unexpected', 'the second DELETE');
}

/** Another object of the collection still there, and the count one fewer. */
export async function deleteOnlyTarget(op: Operation, ctx: CheckContext): Promise<Verdict> {
  const s = await deleteScenario(ctx, op);
  if (!is2xx(s.first)) return unexpected('the DELETE of a fresh object', s.first);
  if (s.bystander && s.bystander.status !== 200)
    return fail(
      'state.changed',
      'bystander',
      `another object of the collection is gone after the DELETE: ${s.bystander.status}`,
      [s.first, s.bystander],
    );
  const { countBefore: before, countAfter: after } = s;
  if (before !== undefined && after !== undefined && after < before - 1) {
    // The count is the collection's, which another client may shrink beside the DELETE (a shared server): the
    // fall counts only when it comes back, with the scenario sent again on fresh objects.
    const again = await deleteScenario(ctx, op, 1);
    const fell = (x: DeleteScenario) =>
      is2xx(x.first) && x.countBefore !== undefined && x.countAfter !== undefined && x.countAfter < x.countBefore - 1;
    if (!fell(again))
      return skip(
        `the count went from ${before} to ${after} for one DELETE, but not when the DELETE was sent again on fresh objects (${again.countBefore} to ${again.countAfter}): the collection shrank beside it, another client's doing`,
      );
    return fail(
      'state.changed',
      'count',
      `the count went from ${before} to ${after} for one DELETE, and from ${again.countBefore} to ${again.countAfter} when sent again on fresh objects`,
      [s.first, again.first],
      { countBefore: before, countAfter: after },
    );
  }
  // A count that fell by less than one: objects were added beside the DELETE (a server's scheduler, another
  // client), or the target stayed (delete-then-404 judges that); either way it cannot show what else went.
  const note =
    before !== undefined && after !== undefined && after > before - 1
      ? `the count went from ${before} to ${after}, less than one fewer: objects were added beside the DELETE, or the target stayed (methods.delete-then-404 judges that), and the count cannot show what else the DELETE took`
      : undefined;
  if (s.bystander) return pass(note);
  if (note) return skip(note);
  return before !== undefined ? pass() : skip('the collection offers neither a read nor a count to see it');
}

/** The object gone from the collection's filter and paginate by id, the other one still there. */
export async function deleteGoneFromViews(op: Operation, ctx: CheckContext): Promise<Verdict> {
  const s = await deleteScenario(ctx, op);
  if (!is2xx(s.first)) return unexpected('the DELETE of a fresh object', s.first);
  if (s.views.length === 0) return skip("the objects' ids are not known to select them by");
  for (const v of s.views) {
    if (!is2xx(v.exchange)) return unexpected(`the ${v.name} by id after the DELETE`, v.exchange);
    const ids = idsIn(v.exchange.json);
    if (ids.includes(v.target))
      return fail('state.changed', v.name, `the ${v.name} by id still answers the deleted object`, [
        s.first,
        v.exchange,
      ]);
    if (!ids.includes(v.bystander))
      return fail('state.changed', `${v.name} bystander`, `the ${v.name} by id lost another object too`, [
        s.first,
        v.exchange,
      ]);
  }
  return pass(s.views.map((v) => v.name).join(' and '));
}
