/** How many objects a Prefect holds, collection by collection: what a run must leave as it found it. */
import { expect } from 'vitest';

/** A POST as a client makes it: sent again after a 503 (a server whose services hold its SQLite lock), a few times. */
export async function postJson<T = Record<string, unknown>>(base: string, p: string, body: unknown): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const res = await fetch(`${base}${p}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (res.status === 503 && attempt < 6) {
      await new Promise((r) => setTimeout(r, 200 * 2 ** attempt));
      continue;
    }
    expect(res.status, `POST ${p}`).toBeLessThan(300);
    return (await res.json()) as T;
  }
}

/**
 * How many objects each collection holds: by its count operation, else by paging its filter. The
 * collections are those of the served document (`POST /x/count`, `POST /x/filter`); events are the
 * server's own record of what happened, not objects a client makes.
 */
export async function countsOf(base: string): Promise<Record<string, number>> {
  const doc = (await (await fetch(`${base}/openapi.json`)).json()) as { paths: Record<string, { post?: object }> };
  const posts = Object.keys(doc.paths).filter((p) => doc.paths[p].post);
  const counts: Record<string, number> = {};
  for (const p of posts) {
    const m = p.match(/^((?:\/v2)?\/[a-z_]+)\/(count|filter)$/);
    if (!m || m[1] === '/events' || (m[2] === 'filter' && posts.includes(`${m[1]}/count`))) continue;
    if (m[2] === 'count') counts[m[1]] = await postJson<number>(base, p, {});
    else {
      let n = 0;
      for (;;) {
        const page = await postJson<unknown[]>(base, p, { limit: 200, offset: n });
        n += page.length;
        if (page.length < 200) break;
      }
      counts[m[1]] = n;
    }
  }
  return counts;
}

/** The collections whose count changed, `collection: before → after`, but for those `exempt`. */
export function changedCounts(
  before: Record<string, number>,
  after: Record<string, number>,
  exempt: ReadonlySet<string> = new Set(),
): string[] {
  return Object.keys(before)
    .filter((c) => after[c] !== before[c] && !exempt.has(c))
    .map((c) => `${c}: ${before[c]} → ${after[c]}`);
}
