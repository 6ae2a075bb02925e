/**
 * The servers users have, by URL and nothing else: Prefect on PostgreSQL (its database found, its entries
 * applied), and the hosted edition's shape (a gateway in front of the real Prefect: a path prefix, a Bearer
 * key, no /admin routes, flows, flow runs and task runs limited to 2,000 requests a minute and answered 429
 * with Retry-After). Behind the gateway the run judges as it does directly, check for check; `compare` of the
 * two names the routes the hosted side lacks and nothing else.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { startPrefect, type ManagedServer } from '../../src/managed/prefect.js';
import type { Comparison } from '../../src/report/compare.js';
import type { Results } from '../../src/report/results.js';
import { startGateway, type RunningGateway } from '../support/gateway.js';
import { failedChecks, runCli, type CliRun } from '../support/runCli.js';

describe('Prefect on PostgreSQL, by URL', () => {
  let server: ManagedServer;
  let run: CliRun;
  beforeAll(async () => {
    server = await startPrefect({ database: 'postgres' });
    run = await runCli([], { CONFORMANCE_BASE_URL: server.baseUrl, CONFORMANCE_OPERATIONS: '^(GET|POST) /flows/' });
  });
  afterAll(() => server?.stop());

  test('its database is found and named in its label, and the run passes with its baseline', () => {
    expect(run.stderr).toBe('');
    const target = run.results!.target;
    expect(target.identity?.database).toMatchObject({ name: 'postgres', how: expect.stringMatching(/PostgreSQL/) });
    expect(target.label).toMatch(/ on postgres$/);
    expect(failedChecks(run.results)).toEqual([]);
    expect(run.code).toBe(0);
  });
});

/** Every file under a folder. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    return statSync(file).isDirectory() ? filesUnder(file) : [file];
  });
}

/** Each verdict as `id operation → status`, for those of both runs' operations. */
const verdicts = (r: Results, operations: Set<string>) =>
  r.checks
    .filter((c) => operations.has(c.operation) && c.family !== 'auth')
    .map((c) => `${c.id} ${c.operation} → ${c.status}`)
    .sort();

describe('the hosted edition’s shape, rate limited', () => {
  const LIMIT = 2000;
  let gateway: RunningGateway;
  let direct: CliRun;
  let hosted: CliRun;
  let compared: CliRun;
  beforeAll(async () => {
    const upstream = inject('prefectBaseUrl');
    gateway = await startGateway(upstream, { limitPerMinute: LIMIT });
    direct = await runCli([], { CONFORMANCE_BASE_URL: upstream });
    hosted = await runCli([], { CONFORMANCE_BASE_URL: gateway.baseUrl, CONFORMANCE_API_KEY: gateway.key });
    compared = await runCli(['compare', direct.outDir, hosted.outDir], { CONFORMANCE_OUT: `${hosted.outDir}-compare` });
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
