/**
 * Delete exactly what the ledger says the run created, newest first (children before their parents), then
 * what the server made on the run's behalf (found by the profile through the run's tag and its objects), then
 * a server-made singleton the run caused; and say what could not be deleted.
 */
import type { Obj } from '../openapi/json.js';
import type { Profile, SideEffect } from '../model/profiles/profile.js';
import { type Answer, is2xx, type Send } from '../openapi/request.js';
import { Ledger, type LedgerEntry } from './ledger.js';

export interface CleanupSummary {
  deleted: number;
  alreadyGone: number;
  /** What could not be deleted; `path` (and its operation's `template`) where it can be read again. */
  failed: Array<{ collection: string; id: string; reason: string; path?: string; template?: string }>;
  notDeletable: Array<{ collection: string; id: string }>;
  /** Objects the server made of its own accord during the run: deleted, or left with the reason. */
  sideEffects?: Array<{ path: string; why: string; deleted: boolean; reason?: string }>;
  /**
   * What operations that make an object for each name they are given (Profile.madeForNames) listed: `deleted`
   * were made by the run's requests (their failed deletes are in `failed`), `kept` were not (there before it).
   */
  madeForNames?: { by: string[]; deleted: number; kept: number };
}

/**
 * What the server made on behalf of the run (the profile finds it by the run's tag and the ledger's ids),
 * deleted after the ledger's objects, side by side (they name none of each other; the client bounds what is in
 * flight, and a far target's round trips overlap); each is counted as deleted, already gone or failed.
 */
export async function cleanupMadeForRun(
  send: Send,
  ledgerFile: string,
  runTag: string,
  madeForRun: NonNullable<Profile['madeForRun']>,
  report: CleanupSummary,
): Promise<void> {
  const entries = Ledger.read(ledgerFile);
  const ids = (collection: string) => entries.filter((e) => e.collection === collection).map((e) => e.id);
  const made = await madeForRun(send, { runTag, ids });
  const answers = await Promise.all(made.map((m) => send({ method: 'DELETE', template: m.template, path: m.path })));
  for (const [i, answer] of answers.entries()) countDelete(report, answer, made[i]);
}

/** A delete's answer, counted in the report: deleted, already gone, or failed (with where to read it again). */
function countDelete(report: CleanupSummary, answer: Answer, { path, template }: { path: string; template: string }) {
  if (is2xx(answer)) report.deleted++;
  else if (answer.status === 404) report.alreadyGone++;
  else
    report.failed.push({ collection: template, id: path, reason: `${answer.status || answer.error}`, path, template });
}

/**
 * What the run's requests may have made for the names they were given (Profile.madeForNames), read back side by
 * side: each the request made is deleted and counted; one that was there before (the request read it) is kept,
 * and one already gone says nothing.
 */
export async function cleanupMadeForNames(
  send: Send,
  ledgerFile: string,
  madeForNames: NonNullable<Profile['madeForNames']>,
  report: CleanupSummary,
): Promise<void> {
  // Each object once, with a test for every answer that listed it: whether that request made it.
  const byPath = new Map<string, { template: string; madeBy: Array<(obj: Obj) => boolean> }>();
  const by = new Set<string>();
  for (const m of Ledger.readAll(ledgerFile).maybeMade) {
    const made = madeForNames[m.maybeMadeBy];
    if (!made) continue;
    by.add(m.maybeMadeBy);
    const seen = byPath.get(m.path) ?? { template: m.template, madeBy: [] };
    seen.madeBy.push((obj) => made.madeBy(obj, m.answeredAt));
    byPath.set(m.path, seen);
  }
  if (byPath.size === 0) return;
  // Said apart from the ledger's objects: the run did not ask for these, the server made them for its names.
  const said = { by: [...by].sort(), deleted: 0, kept: 0 };
  await Promise.all(
    [...byPath].map(async ([path, { template, madeBy }]) => {
      const now = await send({ method: 'GET', template, path });
      const obj = is2xx(now) && now.json && typeof now.json === 'object' ? (now.json as Obj) : undefined;
      if (!obj) return;
      if (!madeBy.some((made) => made(obj))) return void said.kept++;
      const answer = await send({ method: 'DELETE', template, path });
      countDelete(report, answer, { path, template });
      if (is2xx(answer)) said.deleted++;
    }),
  );
  report.madeForNames = said;
}

/** The side effects a run may cause that do not exist yet: those the run will answer for. */
export async function absentSideEffects(send: Send, sideEffects: SideEffect[]): Promise<SideEffect[]> {
  const absent: SideEffect[] = [];
  for (const effect of sideEffects) {
    const answer = await send({ method: 'GET', template: effect.template, path: effect.path });
    if (answer.status === 404) absent.push(effect);
  }
  return absent;
}

/**
 * After the ledger's objects are gone: each side effect that was absent before the run and exists now is
 * deleted when it holds nothing but what the server put in it, and reported either way.
 */
export async function cleanupSideEffects(
  send: Send,
  absentBefore: SideEffect[],
  runTag: string,
): Promise<NonNullable<CleanupSummary['sideEffects']>> {
  const report: NonNullable<CleanupSummary['sideEffects']> = [];
  for (const effect of absentBefore) {
    const now = await send({ method: 'GET', template: effect.template, path: effect.path });
    if (!is2xx(now)) continue;
    if (!(await effect.isBare(send, runTag))) {
      report.push({ ...pick(effect), deleted: false, reason: 'it holds objects the run did not make' });
      continue;
    }
    const answer = await send({ method: 'DELETE', template: effect.template, path: effect.path });
    report.push(
      is2xx(answer) || answer.status === 404
        ? { ...pick(effect), deleted: true }
        : { ...pick(effect), deleted: false, reason: `DELETE answered ${answer.status || answer.error}` },
    );
  }
  return report;
}

const pick = ({ path, why }: SideEffect) => ({ path, why });

/**
 * A delete that failed may have been done since by a parent's: a side effect deleted with what it held.
 * Each failure with a path is read again; one that is gone now counts as already gone, not as left behind.
 */
export async function recheckFailed(send: Send, report: CleanupSummary): Promise<void> {
  const still: CleanupSummary['failed'] = [];
  for (const f of report.failed) {
    const answer = f.path
      ? await send({ method: 'GET', template: f.template ?? f.collection, path: f.path })
      : undefined;
    if (answer?.status === 404) report.alreadyGone++;
    else still.push(f);
  }
  report.failed = still;
}

/** The pauses before a delete a busy server refused is sent again: load passes, and the team's server is left clean. */
const BUSY_DELETE_PAUSES_MS = [5000, 15000] as const;

/** A delete that met a busy server (503, 429, no answer) through the client's retries. */
const metBusyServer = (f: CleanupSummary['failed'][number]) => /^(503|429)\b|ECONN|no answer|timeout/i.test(f.reason);

/**
 * The deletes a busy server refused, sent again after each pause while any is left: a shared server's load (its
 * services, another client) must not leave the run's objects behind.
 */
export async function deleteBusyAgain(
  send: Send,
  report: CleanupSummary,
  pausesMs: readonly number[] = BUSY_DELETE_PAUSES_MS,
): Promise<void> {
  for (const pause of pausesMs) {
    const busy = report.failed.filter((f) => f.path && metBusyServer(f));
    if (busy.length === 0) return;
    await new Promise((r) => setTimeout(r, pause));
    for (const f of busy) {
      const answer = await send({ method: 'DELETE', template: f.template ?? f.collection, path: f.path! });
      if (!is2xx(answer) && answer.status !== 404) {
        f.reason = answer.status ? `${answer.status}: ${answer.body.slice(0, 200)}` : (answer.error ?? 'no answer');
        continue;
      }
      if (is2xx(answer)) report.deleted++;
      else report.alreadyGone++;
      report.failed = report.failed.filter((x) => x !== f);
    }
  }
}

/** A cleanup so far: its report, and how many of the ledger's entries it has handled. */
export interface CleanupPass {
  report: CleanupSummary;
  handled: number;
}

/**
 * The order deletes may go in: an entry's parents are the entries it names (its refs, or a segment of its
 * delete path: a schedule under its deployment) and they wait until it is deleted. Entries unrelated to each
 * other are deleted side by side.
 */
function parentsOf(entries: LedgerEntry[]): number[][] {
  const byId = new Map<string, number[]>();
  entries.forEach((e, i) => {
    byId.set(e.id, [...(byId.get(e.id) ?? []), i]);
  });
  return entries.map((e, i) => {
    const named = new Set([...(e.refs ?? []), ...(e.deletePath?.split('/') ?? []).filter((s) => s !== e.id)]);
    return [...named].flatMap((id) => byId.get(id) ?? []).filter((p) => p !== i);
  });
}

/**
 * Deletes the ledger's objects, each through its own delete, children before their parents: an object's
 * delete may do more than a parent's cascade in the database (Prefect's deployment delete removes the
 * deployment's concurrency limit; deleted with its flow, the limit stays). Objects that name none of each
 * other go side by side (a far target's round trips overlap; the client bounds what is in flight), the newest
 * first; objects that name each other in a ring go newest first, one by one. Given an earlier pass, only the
 * entries written since are deleted, into the same report: cleanup starts when the suites end, while vitest
 * still writes its reports, and a test that outlived its timeout may still create an object until vitest's
 * worker is stopped.
 */
export async function cleanup(send: Send, ledgerFile: string, earlier?: CleanupPass): Promise<CleanupPass> {
  const { entries: all, deletedByRun } = Ledger.readAll(ledgerFile);
  const handled = earlier?.handled ?? 0;
  const entries = all.slice(handled).reverse();
  const report: CleanupSummary = earlier?.report ?? { deleted: 0, alreadyGone: 0, failed: [], notDeletable: [] };
  const parents = parentsOf(entries);
  /** Children of each entry not yet deleted (or tried). */
  const waitingOn = entries.map(() => 0);
  for (const ps of parents) for (const p of ps) waitingOn[p]++;
  const started = entries.map(() => false);
  const deleteOne = async (i: number): Promise<void> => {
    const entry = entries[i];
    if (!entry.deletePath) {
      report.notDeletable.push({ collection: entry.collection, id: entry.id });
      return;
    }
    const template = entry.deleteTemplate?.replace(/^DELETE /, '') ?? entry.collection;
    // One the run deleted itself is read first: a read need not wait for a write's turn, and it is gone
    // unless the server answered a DELETE it did not do (methods.delete-then-404 judges that).
    if (deletedByRun.has(entry.deletePath)) {
      const read = await send({ method: 'GET', template, path: entry.deletePath });
      if (read.status === 404) {
        report.alreadyGone++;
        return;
      }
    }
    const answer = await send({ method: 'DELETE', template, path: entry.deletePath });
    if (is2xx(answer)) report.deleted++;
    // Deleting a parent deletes its children with it; a test may have deleted its own object already.
    else if (answer.status === 404) report.alreadyGone++;
    else
      report.failed.push({
        collection: entry.collection,
        id: entry.id,
        reason: answer.status ? `${answer.status}: ${answer.body.slice(0, 200)}` : (answer.error ?? 'no answer'),
        path: entry.deletePath,
        template: entry.deleteTemplate?.replace(/^DELETE /, ''),
      });
  };
  await new Promise<void>((resolve, reject) => {
    let running = 0;
    let done = 0;
    const launch = (i: number) => {
      started[i] = true;
      running++;
      deleteOne(i).then(() => {
        running--;
        done++;
        for (const p of parents[i]) if (--waitingOn[p] === 0 && !started[p]) launch(p);
        next();
      }, reject);
    };
    const next = () => {
      if (done === entries.length) return resolve();
      // A ring of entries naming each other: its newest goes first, alone.
      if (running === 0) {
        const first = started.indexOf(false);
        if (first >= 0) launch(first);
      }
    };
    entries.forEach((_, i) => {
      if (waitingOn[i] === 0) launch(i);
    });
    next();
  });
  return { report, handled: Math.max(handled, all.length) };
}
