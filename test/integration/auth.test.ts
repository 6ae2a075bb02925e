/**
 * Auth against real components: the managed Prefect with HTTP Basic (PREFECT_SERVER_API_AUTH_STRING),
 * and a cloud-shaped proxy that wants `Authorization: Bearer <key>` under /api/accounts/…/workspaces/….
 * Both runs are clean, the auth checks ran, and no secret appears in any file the run wrote.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { laneBaseUrl } from '../support/lane.js';
import { CLOUD_KEY, startCloudProxy } from '../support/cloudProxy.js';
import type { RunningProxy } from '../support/proxy.js';
import { filesUnder, prefectBaseline, runCli, sqliteLabel, type CliRun } from '../support/runCli.js';

const AUTH_STRING = 'conformance-admin:Sup3r-s3cret-passw0rd';

function expectNoSecret(run: CliRun, secrets: string[]) {
  const files = filesUnder(run.outDir);
  expect(files.length).toBeGreaterThanOrEqual(3);
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const secret of secrets) expect(text.includes(secret), `${secret} in ${file}`).toBe(false);
  }
  for (const secret of secrets) expect(run.stdout + run.stderr).not.toContain(secret);
}

/**
 * The run's operations: every family on the flows' reads and creates, and the health route auth exempts. The
 * default run judges the auth family on every operation, with credentials the run makes (defaultRun.test.ts).
 */
const OPERATIONS = '^(GET|POST) /flows/|^GET /health$';

function expectAuthChecked(run: CliRun) {
  const auth = run.results!.checks.filter((c) => c.family === 'auth');
  expect(auth.filter((c) => c.status === 'skipped')).toEqual([]);
  expect(auth.filter((c) => c.id === 'auth.required' && c.status === 'passed').length).toBeGreaterThan(0);
  expect(auth.filter((c) => c.status === 'failed')).toEqual([]);
}

describe('HTTP Basic the user gave, on the managed server', () => {
  let run: CliRun;
  beforeAll(async () => {
    run = await runCli([], { CONFORMANCE_AUTH_STRING: AUTH_STRING, CONFORMANCE_OPERATIONS: OPERATIONS });
  });

  test('runs clean with the auth checks', () => {
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expectAuthChecked(run);
    expect(
      run.results!.checks.find((c) => c.id === 'auth.health-exemption' && c.operation === 'GET /health')?.message,
    ).toMatch(/^exempt/);
  });

  test('writes no secret anywhere', () => {
    const password = AUTH_STRING.split(':')[1];
    expectNoSecret(run, [AUTH_STRING, password, Buffer.from(AUTH_STRING).toString('base64')]);
  });
});

describe('a cloud-shaped target with a Bearer key', () => {
  let proxy: RunningProxy;
  let run: CliRun;
  beforeAll(async () => {
    proxy = await startCloudProxy(laneBaseUrl());
    run = await runCli([], {
      CONFORMANCE_BASE_URL: proxy.baseUrl,
      CONFORMANCE_API_KEY: CLOUD_KEY,
      CONFORMANCE_OPERATIONS: OPERATIONS,
      CONFORMANCE_BASELINE: prefectBaseline,
      CONFORMANCE_TARGET_LABEL: sqliteLabel,
    });
  });
  afterAll(() => proxy?.close());

  test('runs clean under /api/accounts/<uuid>/workspaces/<uuid>', () => {
    expect(proxy.baseUrl).toMatch(/\/api\/accounts\/[0-9a-f-]{36}\/workspaces\/[0-9a-f-]{36}$/);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expectAuthChecked(run);
  });

  test('writes no secret anywhere', () => {
    expectNoSecret(run, [CLOUD_KEY]);
  });
});
