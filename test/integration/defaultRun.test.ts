/**
 * The embedded default, as README's first command runs it: nothing configured, so the suite starts its
 * own Prefect (SQLite), exercises every operation of the document, writes its reports, cleans up and
 * stops the server.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { runCli, type CliRun } from '../support/runCli.js';

let run: CliRun;

beforeAll(async () => {
  run = await runCli([]);
});

describe('npm run conformance with nothing configured', () => {
  test('exits 0 with the baseline applied', () => {
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.results!.checks.filter((c) => c.status === 'failed' && c.level === 'MUST')).toEqual([]);
    expect(run.results!.summary.xpass).toBe(0);
    expect(run.results!.summary.xfail).toBeGreaterThan(0);
    expect(run.stdout.trim().split('\n').at(-1)).toMatch(/^\d+ passed, \d+ failed, \d+ skipped, \d+ xfail, 0 xpass$/);
  });

  test('lists every operation of the served document, and reaches 2xx on at least 95%', async () => {
    const served = JSON.parse(readFileSync(path.join(run.outDir, '.run', 'openapi.json'), 'utf8')) as { paths: Record<string, object> };
    const documented = Object.values(served.paths).flatMap((item) => Object.keys(item).filter((k) => k !== 'parameters'));
    const ops = run.results!.operations;
    expect(ops).toHaveLength(documented.length);
    expect(ops.every((o) => o.exercised)).toBe(true);
    const reached = ops.filter((o) => o.reached2xx).length;
    expect(reached / ops.length).toBeGreaterThanOrEqual(0.95);
    for (const o of ops.filter((x) => !x.reached2xx)) expect(o.note, `${o.method} ${o.path}`).toBeTruthy();
  });

  test('results.json has the contract fields; junit.xml is written', () => {
    const r = run.results!;
    expect(r.tool.name).toBeTruthy();
    expect(r.target).toMatchObject({ openapi: '3.1.0', profile: 'prefect', managed: expect.stringContaining('sqlite') });
    expect(typeof r.seed).toBe('number');
    expect(Date.parse(r.startedAt)).not.toBeNaN();
    expect(r.durationMs).toBeGreaterThan(0);
    for (const c of r.checks.slice(0, 50)) expect(Object.keys(c)).toEqual(expect.arrayContaining(['id', 'family', 'level', 'clause', 'title', 'operation', 'status']));
    expect(r.summary.requests).toBeGreaterThan(r.operations.length);
    const junit = readFileSync(path.join(run.outDir, 'junit.xml'), 'utf8');
    expect(junit).toContain('<testsuites');
    expect((junit.match(/<testcase /g) ?? []).length).toBe(r.checks.length);
  });

  test('cleans up everything it recorded, and stops the server', async () => {
    const c = run.results!.cleanup!;
    expect(c.failed).toEqual([]);
    expect(c.deleted).toBeGreaterThan(50);
    expect(existsSync(path.join(run.outDir, '.run', 'ledger.jsonl'))).toBe(true);
    await expect(fetch(`${run.results!.target.baseUrl}/health`, { signal: AbortSignal.timeout(2000) })).rejects.toThrow();
  });
});
