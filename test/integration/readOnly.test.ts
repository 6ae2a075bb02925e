/**
 * CONFORMANCE_READ_ONLY=1 against a recording proxy in front of the real server: over a whole run, only
 * GETs and the documented read POSTs reach the target, and the run still passes what it can check.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { laneBaseUrl } from '../support/lane.js';
import { isReadOperation } from '../../src/model/model.js';
import type { Operation } from '../../src/openapi/operations.js';
import { startProxy, type RunningProxy } from '../support/proxy.js';
import { prefectBaseline, runCli, sqliteLabel, type CliRun } from '../support/runCli.js';

let proxy: RunningProxy;
let run: CliRun;

beforeAll(async () => {
  proxy = await startProxy(laneBaseUrl());
  proxy.setMutant(undefined);
  run = await runCli([], {
    CONFORMANCE_BASE_URL: proxy.baseUrl,
    CONFORMANCE_READ_ONLY: '1',
    CONFORMANCE_BASELINE: prefectBaseline,
    CONFORMANCE_TARGET_LABEL: sqliteLabel,
  });
});

afterAll(() => proxy?.close());

describe('read-only mode', () => {
  test('sends no request that changes state', () => {
    expect(proxy.seen.length).toBeGreaterThan(100);
    const templates = run.results!.operations.map((o) => ({ method: o.method, path: o.path }) as Operation);
    const writes = proxy.seen.filter((line) => {
      const [method, rawPath] = line.split(' ');
      const path = rawPath.split('?')[0];
      const op = templates.find(
        (t) => t.method === method && new RegExp(`^${t.path.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path),
      );
      return !(op ? isReadOperation(op) : method === 'GET');
    });
    expect(writes).toEqual([]);
  });

  test('passes, and says why what needs data of its own was skipped', () => {
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const create = run.results!.operations.find((o) => o.method === 'POST' && o.path === '/flows/')!;
    expect(create.exercised).toBe(false);
    expect(create.note).toMatch(/read-only/);
    expect(run.results!.summary.passed).toBeGreaterThan(100);
  });
});
