/**
 * What a bench breaks its run down into: where the server's time went (per operation, per check) from the
 * run's exchange log, what each case of a check sends, and with --cpu-profile the suite's hottest functions
 * from V8's CPU profiles.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Behaviour } from '../config/exchangeLog.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

/** The functions with the most self time over every .cpuprofile in a folder, by name and file. */
export function hottestFunctions(
  repoRoot: string,
  dir: string,
  top: number,
): Array<{ fn: string; selfPercent: number }> {
  const self = new Map<string, number>();
  let total = 0;
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))) {
    const profile = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as { nodes: ProfileNode[] };
    for (const node of profile.nodes) {
      const hits = node.hitCount ?? 0;
      total += hits;
      const where = node.callFrame.url.replace(/^file:\/\//, '').replace(`${repoRoot}/`, '');
      const key = `${node.callFrame.functionName || '(anonymous)'} ${where || '(native)'}${where ? `:${node.callFrame.lineNumber + 1}` : ''}`;
      self.set(key, (self.get(key) ?? 0) + hits);
    }
  }
  return [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([fn, hits]) => ({ fn, selfPercent: Number(((100 * hits) / Math.max(1, total)).toFixed(1)) }));
}

/** The exchanges and their time grouped by `keyOf`, the most time first (the client's timing: a localhost round trip). */
function timeBy(
  exchanges: Behaviour[],
  keyOf: (x: Behaviour) => string,
): Array<[string, { n: number; seconds: number }]> {
  const grouped = new Map<string, { n: number; ms: number }>();
  for (const x of exchanges) {
    const entry = grouped.get(keyOf(x)) ?? { n: 0, ms: 0 };
    entry.n++;
    entry.ms += x.ms;
    grouped.set(keyOf(x), entry);
  }
  return [...grouped.entries()]
    .sort((a, b) => b[1].ms - a[1].ms)
    .map(([key, e]) => [key, { n: e.n, seconds: Number((e.ms / 1000).toFixed(2)) }]);
}

/** The server's time per operation. */
export function serverTimeByOperation(
  exchanges: Behaviour[],
  top: number,
): Array<{ operation: string; requests: number; seconds: number }> {
  return timeBy(exchanges, (x) => `${x.method} ${x.template}`)
    .slice(0, top)
    .map(([operation, { n, seconds }]) => ({ operation, requests: n, seconds }));
}

/** The exchanges of each check (and of the exercise), from the exchange log's `by`: the cost a --budget order weighs. */
export function exchangesByCheck(exchanges: Behaviour[]): Record<string, { exchanges: number; seconds: number }> {
  return Object.fromEntries(
    timeBy(exchanges, (x) => x.by ?? 'other').map(([by, { n, seconds }]) => [by, { exchanges: n, seconds }]),
  );
}

/**
 * What one case of each check sent, on average: its exchanges (the log's senders) over its cases in the run's
 * results, to two decimals. A check that sent nothing is left out (planning counts it 1; one that reads the
 * exercise or the document alone sends nothing of its own). What `npm run bench` writes into
 * src/checks/core/planning.json.
 */
export function exchangesPerCase(
  byCheck: Record<string, { exchanges: number }>,
  checks: Array<{ check: string }>,
): Record<string, number> {
  const cases = new Map<string, number>();
  for (const c of checks) cases.set(c.check, (cases.get(c.check) ?? 0) + 1);
  return Object.fromEntries(
    [...cases]
      .filter(([id]) => byCheck[id]?.exchanges)
      .map(([id, n]) => [id, Math.round((byCheck[id].exchanges / n) * 100) / 100] as const)
      .sort(([a], [b]) => a.localeCompare(b)),
  );
}
