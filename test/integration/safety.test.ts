/**
 * Against a target that is not declared disposable: objects someone else made before the run survive,
 * destructive operations are skipped with a reason, and every object the run recorded is gone after.
 */
import path from 'node:path';
import { beforeAll, describe, expect, inject, test } from 'vitest';
import { objectsLeft } from '../support/objectsLeft.js';
import { prefectBaseline, runCli, sqliteLabel, type CliRun } from '../support/runCli.js';

const base = () => inject('prefectBaseUrl');

async function post<T = Record<string, unknown>>(p: string, body: unknown): Promise<T> {
  const res = await fetch(`${base()}${p}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status, `POST ${p}`).toBeLessThan(300);
  return (await res.json()) as T;
}

/**
 * How many objects each collection holds: by its count operation, else by paging its filter. The
 * collections are those of the served document (`POST /x/count`, `POST /x/filter`); events are the
 * server's own record of what happened, not objects a client makes.
 */
async function collectionCounts(): Promise<Record<string, number>> {
  const doc = (await (await fetch(`${base()}/openapi.json`)).json()) as { paths: Record<string, { post?: object }> };
  const posts = Object.keys(doc.paths).filter((p) => doc.paths[p].post);
  const counts: Record<string, number> = {};
  for (const p of posts) {
    const m = p.match(/^((?:\/v2)?\/[a-z_]+)\/(count|filter)$/);
    if (!m || m[1] === '/events' || (m[2] === 'filter' && posts.includes(`${m[1]}/count`))) continue;
    if (m[2] === 'count') counts[m[1]] = await post<number>(p, {});
    else {
      let n = 0;
      for (;;) {
        const page = await post<unknown[]>(p, { limit: 200, offset: n });
        n += page.length;
        if (page.length < 200) break;
      }
      counts[m[1]] = n;
    }
  }
  return counts;
}

const foreign: Record<string, string> = {};
let before: Record<string, number>;
let run: CliRun;

beforeAll(async () => {
  const flow = await post('/flows/', { name: 'someone-elses-flow', tags: ['production'] });
  foreign['/flows/'] = String(flow.id);
  foreign['/flow_runs/'] = String((await post('/flow_runs/', { flow_id: flow.id, tags: ['production'] })).id);
  foreign['/deployments/'] = String(
    (await post('/deployments/', { name: 'someone-elses-deployment', flow_id: flow.id })).id,
  );
  foreign['/variables/'] = String((await post('/variables/', { name: 'someone_elses_variable', value: 1 })).id);
  foreign['/artifacts/'] = String((await post('/artifacts/', { type: 'markdown', data: 'someone else' })).id);
  before = await collectionCounts();
  run = await runCli([], {
    CONFORMANCE_BASE_URL: base(),
    CONFORMANCE_BASELINE: prefectBaseline,
    CONFORMANCE_TARGET_LABEL: sqliteLabel,
  });
});

describe('a run against a shared (non-disposable) target', () => {
  test('passes, with destructive operations skipped and their reason given', () => {
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.results!.target.managed).toBeUndefined();
    const admin = run.results!.operations.find((o) => o.method === 'PUT' && o.path === '/admin/storage')!;
    expect(admin.exercised).toBe(false);
    expect(admin.note).toMatch(/unsafe on a shared target/);
  });

  test('foreign objects created before the run survive it', async () => {
    for (const [collection, id] of Object.entries(foreign)) {
      const res = await fetch(`${base()}${collection}${id}`);
      expect(res.status, `${collection}${id}`).toBe(200);
    }
  });

  test('every object the run recorded is gone', async () => {
    const { ledger, left } = await objectsLeft(base(), path.join(run.outDir, '.run', 'ledger.jsonl'));
    expect(ledger.length).toBeGreaterThan(50);
    expect(left).toEqual([]);
  });

  test('every collection holds as many objects as before the run, but for those the report names as not deletable', async () => {
    const after = await collectionCounts();
    expect(Object.keys(after).length).toBeGreaterThan(15);
    const named = new Set(run.results!.cleanup!.notDeletable.map((o) => o.collection));
    const changed = Object.keys(before)
      .filter((c) => after[c] !== before[c] && !named.has(c))
      .map((c) => `${c}: ${before[c]} → ${after[c]}`);
    expect(changed).toEqual([]);
  });

  test('no flow, flow run or deployment carrying the run tag is left', async () => {
    const tag = run.results!.runTag;
    for (const collection of ['flows', 'flow_runs', 'deployments']) {
      const res = await fetch(`${base()}/${collection}/count`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ [collection]: { tags: { all_: [tag] } } }),
      });
      expect(await res.json(), collection).toBe(0);
    }
  });
});
