/**
 * Prefect as its docs start it: `prefect server start` with its background services on (scheduler, late
 * runs, event persister, triggers, foreman...), given by URL and nothing else. The run ends in bounded time,
 * judges as it does with the services off, and every collection holds as many objects after it as before,
 * the user's own objects among them.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startPrefect, type ManagedServer } from '../../src/managed/prefect.js';
import { changedCounts, countsOf, postJson } from '../support/collections.js';
import { failedChecks, runCli, type CliRun } from '../support/runCli.js';

let server: ManagedServer;
let before: Record<string, number>;
let run: CliRun;
const foreign: string[] = [];

beforeAll(async () => {
  server = await startPrefect({ database: 'sqlite', services: true });
  const flow = await postJson(server.baseUrl, '/flows/', { name: 'someone-elses-flow' });
  foreign.push(`/flows/${flow.id}`);
  const deployment = await postJson(server.baseUrl, '/deployments/', {
    name: 'someone-elses-deployment',
    flow_id: flow.id,
  });
  foreign.push(`/deployments/${deployment.id}`);
  before = await countsOf(server.baseUrl);
  run = await runCli([], { CONFORMANCE_BASE_URL: server.baseUrl }, 900_000);
});
afterAll(() => server?.stop());

describe('Prefect with its services on, by URL', () => {
  test('the run ends, passes the gate with no failure outside the baseline, and says what it found', () => {
    expect(run.stderr).toBe('');
    expect(failedChecks(run.results)).toEqual([]);
    expect(run.code).toBe(0);
    expect(run.results!.target.identity?.database?.name).toBe('sqlite');
    // Ended within its deadline, nothing cut (the time it took goes to the bench, not a test).
    expect(run.results!.timing?.timeBox.spent).toBeUndefined();
  });

  test("every collection holds as many objects as before, and the user's objects are kept", async () => {
    const named = new Set(run.results!.cleanup!.notDeletable.map((o) => o.collection));
    expect(changedCounts(before, await countsOf(server.baseUrl), named)).toEqual([]);
    for (const p of foreign) expect((await fetch(`${server.baseUrl}${p}`)).status, p).toBe(200);
    expect(run.results!.cleanup!.failed).toEqual([]);
  });
});
