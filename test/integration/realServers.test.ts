/**
 * The servers users have, by URL and nothing else.
 * - A shared Prefect as its docs start it (`prefect server start`, its background services on: scheduler, late
 *   runs, event persister, triggers, foreman...), not declared disposable: the suite finds its release and
 *   database, the run ends in bounded time and judges as with the services off, objects someone else made
 *   before the run survive, destructive operations are skipped with a reason, and every object the run
 *   recorded is gone after. It is the other release the tests run (3.4.25, not the pinned one), so that this
 *   one whole run also holds that release's baseline to every family: no false red on a release the suite
 *   was not tuned on (otherVersion.test.ts starts it managed, with a scoped run).
 * - Prefect on PostgreSQL: its database found, its entries applied.
 * - The hosted edition's shape: a gateway in front of a Prefect (a path prefix, a Bearer key, no /admin routes,
 *   flows, flow runs and task runs limited to half the pace a direct run kept on them, and answered 429 with
 *   Retry-After).
 *   Behind the gateway a run of the limited collections judges as the same run does directly, check for
 *   check; `compare` of the two names the routes the hosted side lacks and nothing else.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { laneBaseUrl } from '../support/lane.js';
import { startPrefect, type ManagedServer } from '../../src/managed/prefect.js';
import { readExchangeLog } from '../../src/config/exchangeLog.js';
import type { Comparison } from '../../src/report/compare.js';
import type { Results } from '../../src/report/results.js';
import { changedCounts, countsOf, postJson } from '../support/collections.js';
import { firstSegment, HOSTED_LIMITED, startGateway, type RunningGateway } from '../support/gateway.js';
import { objectsLeft } from '../support/objectsLeft.js';
import { failedChecks, filesUnder, OTHER_RELEASE, runCli, WHOLE_RUN_MS, type CliRun } from '../support/runCli.js';

let shared: ManagedServer;
const base = () => shared.baseUrl;

const post = <T = Record<string, unknown>>(p: string, body: unknown) => postJson<T>(base(), p, body);
const collectionCounts = () => countsOf(base());

const foreign: Record<string, string> = {};
/** Flow runs of someone else's, more than a filter's page of 200. */
const CROWD = 250;
let before: Record<string, number>;
let run: CliRun;

beforeAll(async () => {
  shared = await startPrefect({ version: OTHER_RELEASE, database: 'sqlite', services: true });
  const flow = await post('/flows/', { name: 'someone-elses-flow', tags: ['production'] });
  foreign['/flows/'] = String(flow.id);
  foreign['/flow_runs/'] = String((await post('/flow_runs/', { flow_id: flow.id, tags: ['production'] })).id);
  foreign['/deployments/'] = String(
    (await post('/deployments/', { name: 'someone-elses-deployment', flow_id: flow.id })).id,
  );
  foreign['/variables/'] = String((await post('/variables/', { name: 'someone_elses_variable', value: 1 })).id);
  foreign['/artifacts/'] = String((await post('/artifacts/', { type: 'markdown', data: 'someone else' })).id);
  // A server in use holds more than a page of runs: an or_ filter, which cannot be scoped to the run's ids,
  // selects them too, and the run's own lie among them past the first page (filters.oracle reads on).
  for (let i = 0; i < CROWD; i++) await post('/flow_runs/', { flow_id: flow.id, tags: ['production'] });
  before = await collectionCounts();
  // As a user points it at their server: the URL and nothing else (the baseline and the database found).
  run = await runCli([], { CONFORMANCE_BASE_URL: base() }, WHOLE_RUN_MS);
});
afterAll(() => shared?.stop());

describe('a run against a shared target with its services on', () => {
  test("finds the target's release and database, and applies that release's baseline", () => {
    const target = run.results!.target;
    expect(target.identity).toMatchObject({
      release: { version: OTHER_RELEASE, from: 'GET /admin/version' },
      database: { name: 'sqlite', how: expect.stringMatching(/^POST \/block_types\/filter with like_ "\\e"/) },
    });
    expect(target.label).toBe(`prefect ${OTHER_RELEASE} on sqlite`);
    expect(run.results!.baseline!.file).toBe(`fixtures/baselines/prefect-${OTHER_RELEASE}.json`);
  });

  test('passes, with destructive operations skipped and their reason given', () => {
    expect(run.stderr).toBe('');
    expect(failedChecks(run.results)).toEqual([]);
    expect(run.code).toBe(0);
    // Ended within its deadline, nothing cut (the time it took goes to the bench, not a test).
    expect(run.results!.timing?.timeBox.spent).toBeUndefined();
    expect(run.results!.target.managed).toBeUndefined();
    const admin = run.results!.operations.find((o) => o.method === 'POST' && o.path === '/admin/database/clear')!;
    expect(admin.exercised).toBe(false);
    expect(admin.note).toMatch(/unsafe on a shared target/);
    // Its baseline is met (some of its known deviations were), and all but a few operations were exercised.
    expect(run.results!.summary.xfail).toBeGreaterThan(0);
    const exercised = run.results!.operations.filter((o) => o.exercised).length;
    expect(exercised / run.results!.operations.length).toBeGreaterThanOrEqual(0.9);
  });

  test('judges the or_ filters of a server holding more runs than a page by reading their answers on', () => {
    const oracle = run.results!.checks.find(
      (c) => c.id === 'filters.oracle' && c.operation === 'POST /flow_runs/filter',
    );
    expect(oracle?.status).toBe('passed');
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
    expect(run.results!.cleanup!.failed).toEqual([]);
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

/** Each verdict as `id operation → status`, for those of both runs' operations. */
const verdicts = (r: Results, operations: Set<string>) =>
  r.checks
    .filter((c) => operations.has(c.operation) && c.family !== 'auth')
    .map((c) => `${c.id} ${c.operation} → ${c.status}`)
    .sort();

/**
 * Half the pace, in requests a minute, a run kept on the collections the gateway limits: a limit the same run
 * meets behind the gateway unless it goes at under half that speed. A fixed limit is met on an idle machine and
 * not on a loaded one, whose run keeps under it (CI's two cores, busy with the other lane, kept it under 3,000).
 */
function halfThePace(run: CliRun): number {
  const limited = readExchangeLog(path.join(run.outDir, '.run', 'exchanges.jsonl')).filter((x) =>
    HOSTED_LIMITED.includes(firstSegment(x.t)),
  );
  const at = limited.map((x) => x.at ?? 0);
  const seconds = Math.max(1, (Math.max(...at) - Math.min(...at)) / 1000);
  return Math.floor((limited.length / seconds) * 30);
}

describe('the hosted edition’s shape, rate limited', () => {
  /** The collections the gateway limits, and the routes it lacks. */
  const OPERATIONS = '^(GET|POST|PATCH|DELETE|PUT) /(flows|flow_runs|task_runs|admin)/';
  let gateway: RunningGateway;
  let direct: CliRun;
  let hosted: CliRun;
  let compared: CliRun;
  beforeAll(async () => {
    // The lane's Prefect, directly and behind the gateway: the same server, selection and seed.
    direct = await runCli([], { CONFORMANCE_BASE_URL: laneBaseUrl(), CONFORMANCE_OPERATIONS: OPERATIONS });
    gateway = await startGateway(laneBaseUrl(), { limitPerMinute: halfThePace(direct), trace: true });
    hosted = await runCli([], {
      CONFORMANCE_BASE_URL: gateway.baseUrl,
      CONFORMANCE_API_KEY: gateway.key,
      CONFORMANCE_OPERATIONS: OPERATIONS,
    });
    compared = await runCli(['compare', direct.outDir, hosted.outDir], {
      CONFORMANCE_OUT: `${hosted.outDir}-compare`,
    });
  });
  afterAll(() => gateway?.close());

  test('passes, its baseline chosen by the stated rule for a release it cannot read', () => {
    expect(hosted.stderr).toBe('');
    expect(failedChecks(hosted.results)).toEqual([]);
    expect(hosted.code).toBe(0);
    const r = hosted.results!;
    expect(r.target.identity?.release).toBeUndefined();
    expect(r.baseline!.why).toMatch(/release could not be read .*its document is nearest prefect \d+\.\d+\.\d+'s/);
  });

  test("the target's 429s were met, waited for and reported, and never judged", () => {
    const pacing = hosted.results!.timing!.pacing!;
    expect(gateway.counts().rateLimited).toBeGreaterThan(0);
    expect(pacing.rateLimited).toBe(gateway.counts().rateLimited);
    expect(pacing.waitedMs).toBeGreaterThan(0);
    expect(hosted.results!.checks.filter((c) => /\b429\b/.test(c.message ?? '') && c.status !== 'passed')).toEqual([]);
  });

  test("the gateway's trace holds every request it answered, each served after it arrived", () => {
    const trace = gateway.trace();
    expect(trace).toHaveLength(gateway.seen.length);
    expect(trace.filter(([arrived, served]) => served < arrived)).toEqual([]);
    expect(trace.filter(([, , , , status]) => status === 429)).toHaveLength(gateway.counts().rateLimited);
  });

  test('the same verdicts as the direct run on the same server and seed, check for check', () => {
    const both = new Set(hosted.results!.operations.map((o) => `${o.method} ${o.path}`));
    expect(verdicts(hosted.results!, both)).toEqual(verdicts(direct.results!, both));
  });

  test('the key reaches no file the run wrote, nor its output', () => {
    for (const file of filesUnder(hosted.outDir))
      expect(readFileSync(file, 'utf8').includes(gateway.key), file).toBe(false);
    expect(hosted.stdout + hosted.stderr).not.toContain(gateway.key);
  });

  test('compare names the routes the hosted side lacks, and nothing else', () => {
    expect(compared.code).toBe(0);
    const c = JSON.parse(readFileSync(path.join(`${hosted.outDir}-compare`, 'compare.json'), 'utf8')) as Comparison;
    expect(c.edition).toMatchObject({
      onlyA: [
        'DELETE /admin/storage',
        'GET /admin/settings',
        'GET /admin/storage',
        'GET /admin/version',
        'PUT /admin/storage',
      ],
      onlyB: [],
    });
    expect(c.drift!.changes).toEqual([]);
    expect(c.verdicts!.changes).toEqual([]);
    expect(c.behaviour!.differences).toEqual([]);
  });
});

describe('Prefect on PostgreSQL, by URL', () => {
  let server: ManagedServer;
  let pgRun: CliRun;
  beforeAll(async () => {
    server = await startPrefect({ database: 'postgres' });
    pgRun = await runCli([], { CONFORMANCE_BASE_URL: server.baseUrl, CONFORMANCE_OPERATIONS: '^(GET|POST) /flows/' });
  });
  afterAll(() => server?.stop());

  test('its database is found and named in its label, and the run passes with its baseline', () => {
    expect(pgRun.stderr).toBe('');
    const target = pgRun.results!.target;
    expect(target.identity?.database).toMatchObject({ name: 'postgres', how: expect.stringMatching(/PostgreSQL/) });
    expect(target.label).toMatch(/ on postgres$/);
    expect(failedChecks(pgRun.results)).toEqual([]);
    expect(pgRun.code).toBe(0);
  });
});
