/**
 * The hosted edition's shape, by URL: a gateway in front of a Prefect (a path prefix, a Bearer key, no /admin
 * routes, flows, flow runs and task runs limited to half the pace a direct run kept on them, and answered 429
 * with Retry-After). Behind the gateway a run of the flows judges as the same run does directly, check for
 * check; `compare` of the two names the routes the hosted side lacks and nothing else. (A shared Prefect with
 * its services on, by URL, is the second side of defaultRun.test.ts's compare.)
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { laneBaseUrl } from '../support/lane.js';
import { readExchangeLog } from '../../src/config/exchangeLog.js';
import type { Comparison } from '../../src/report/compare.js';
import type { Results } from '../../src/report/results.js';
import { firstSegment, HOSTED_LIMITED, startGateway, type RunningGateway } from '../support/gateway.js';
import { failedChecks, filesUnder, runCli, type CliRun } from '../support/runCli.js';

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
    HOSTED_LIMITED.includes(firstSegment(x.template)),
  );
  const at = limited.map((x) => x.at ?? 0);
  const seconds = Math.max(1, (Math.max(...at) - Math.min(...at)) / 1000);
  return Math.floor((limited.length / seconds) * 30);
}

describe('the hosted edition’s shape, rate limited', () => {
  /** The collections the gateway limits, and the routes it lacks. */
  const OPERATIONS = '^(GET|POST|PATCH|DELETE|PUT) /(flows|admin)/';
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
