/**
 * Against a target given by its URL and nothing else, not declared disposable: the suite finds its release
 * and database, objects someone else made before the run survive, destructive operations are skipped with a
 * reason, and every object the run recorded is gone after.
 */
import path from 'node:path';
import { beforeAll, describe, expect, inject, test } from 'vitest';
import { changedCounts, countsOf, postJson } from '../support/collections.js';
import { objectsLeft } from '../support/objectsLeft.js';
import { readPin } from '../../src/managed/prefect.js';
import { prefectBaseline, repoRoot, runCli, sqliteLabel, type CliRun } from '../support/runCli.js';

const base = () => inject('prefectBaseUrl');

const post = <T = Record<string, unknown>>(p: string, body: unknown) => postJson<T>(base(), p, body);
const collectionCounts = () => countsOf(base());

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
  // As a user points it at their server: the URL and nothing else (the baseline and the database found).
  run = await runCli([], { CONFORMANCE_BASE_URL: base() });
});

describe('a run against a shared (non-disposable) target', () => {
  test("finds the target's release and database, and applies that release's baseline", () => {
    const target = run.results!.target;
    expect(target.identity).toMatchObject({
      release: { version: readPin().prefect, from: 'GET /admin/version' },
      database: { name: 'sqlite', how: expect.stringMatching(/^POST \/block_types\/filter with like_ "\\e"/) },
    });
    expect(target.label).toBe(sqliteLabel);
    expect(run.results!.baseline!.file).toBe(path.relative(repoRoot, prefectBaseline));
  });

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
    expect(changedCounts(before, after, named)).toEqual([]);
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
