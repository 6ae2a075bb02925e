/**
 * `explore` against the real Prefect behind the fault-injecting proxy: a crash on a class of generated bodies
 * that no baseline entry names is found once however many seeds meet it, kept with its seed and what shows it
 * again, and the exit code says so; one its replay does not show again is reported as met once, and does not
 * set the exit code; the unmutated server leaves nothing new.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { laneBaseUrl } from '../support/lane.js';
import { json, matches, startProxy, type RunningProxy } from '../support/proxy.js';
import type { Finding, SeedRun } from '../../src/report/explore.js';
import { prefectTargetEnv, runCli } from '../support/runCli.js';

let proxy: RunningProxy;
beforeAll(async () => {
  proxy = await startProxy(laneBaseUrl());
});
afterAll(() => proxy.close());

const explore = (...args: string[]) =>
  runCli(['explore', ...args], {
    ...prefectTargetEnv(proxy.baseUrl),
    CONFORMANCE_OPERATIONS: '^POST /flows/$',
  });

const session = (outDir: string) =>
  JSON.parse(readFileSync(path.join(outDir, 'explore.json'), 'utf8')) as { seeds: SeedRun[]; findings: Finding[] };

describe('explore', () => {
  test('a crash on generated names no entry names is new once, with its seed and replay; exit 1', async () => {
    // Generated names carry `-g<n>` (cases/safeValues.ts): every seed sends some.
    proxy.setMutant({
      id: 'crash-on-generated-names',
      breaks: 'POST /flows/ answers 500 for a generated name',
      onRequest: (req) =>
        matches('/flows/', 'POST', req) && /-g\d+/.test(req.body.toString('utf8'))
          ? {
              status: 500,
              headers: { 'content-type': 'application/json' },
              body: json.body({ exception_message: 'Internal Server Error' }),
            }
          : req,
    });
    // Two seeds, whatever the machine's speed (minutes alone gave one seed on a slow, busy machine).
    const r = await explore('--minutes', '30', '--seeds', '2');
    expect(r.code).toBe(1);
    const { seeds, findings } = session(r.outDir);
    expect(seeds.map((s) => s.seed)).toEqual([20261122, 20261123]);
    expect(seeds[0].seed).toBe(20261122);
    const crashes = findings.filter((f) => f.check === 'contract.no-5xx');
    expect(crashes).toHaveLength(1);
    expect(crashes[0]).toMatchObject({ operation: 'POST /flows/', kind: 'server-error', seed: 20261122 });
    expect(crashes[0].replay).toMatch(/replay/);
    expect(crashes[0].replayed).toBe('shown again');
    // Later seeds met it again: nothing new from them for that key.
    expect(
      seeds
        .slice(1)
        .every((s) => !s.found.includes(`contract.no-5xx POST /flows/ ${crashes[0].kind} ${crashes[0].key}`)),
    ).toBe(true);
    expect(readFileSync(path.join(r.outDir, 'explore.md'), 'utf8')).toContain('| `contract.no-5xx` (MUST) |');
    const draft = JSON.parse(readFileSync(path.join(r.outDir, 'explore-baseline.json'), 'utf8')) as {
      entries: unknown[];
    };
    expect(draft.entries).toHaveLength(findings.length);
    expect(r.stdout).toMatch(/^NEW \(exit 1\)/m);
  });

  test('a crash met once, which its replay does not show again, is reported as such and does not set exit 1', async () => {
    let crashed = false;
    proxy.setMutant({
      id: 'crash-once',
      breaks: 'POST /flows/ answers 500 once, for the first generated name',
      onRequest: (req) => {
        if (crashed || !matches('/flows/', 'POST', req) || !/-g\d+/.test(req.body.toString('utf8'))) return req;
        crashed = true;
        return {
          status: 500,
          headers: { 'content-type': 'application/json' },
          body: json.body({ exception_message: 'Internal Server Error' }),
        };
      },
    });
    const r = await explore('--minutes', '0.1');
    const { findings } = session(r.outDir);
    expect(findings.map((f) => [f.check, f.operation, f.replayed])).toEqual([
      ['contract.no-5xx', 'POST /flows/', 'not shown again'],
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^NOTHING NEW SHOWN AGAIN \(exit 0\): .* but 1 met once, not shown again by its replay/m);
    const draft = JSON.parse(readFileSync(path.join(r.outDir, 'explore-baseline.json'), 'utf8')) as {
      entries: Array<{ intermittent?: string }>;
    };
    expect(draft.entries[0].intermittent).toMatch(/met once by explore/);
  });

  test('the unmutated server: every failure met is known, exit 0', async () => {
    proxy.setMutant(undefined);
    const r = await explore('--minutes', '0.1');
    const { seeds, findings } = session(r.outDir);
    expect(seeds.length).toBeGreaterThanOrEqual(1);
    expect(findings).toEqual([]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^NOTHING NEW \(exit 0\)/m);
  });
});
