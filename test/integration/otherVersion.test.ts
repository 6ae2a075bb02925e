/**
 * The suite on a Prefect release it was not tuned on, managed: `--prefect-version 3.4.25` installs that release
 * with the pins of prefect-versions.json, starts it, and the run is judged against 3.4.25's own baseline, chosen
 * by the version the server reports. A run of one collection's reads and writes: the whole of that release, every
 * family against its baseline, is realServers.test.ts's run of its shared server (by URL, services on).
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { readPin } from '../../src/managed/prefect.js';
import { OTHER_RELEASE, runCli, type CliRun } from '../support/runCli.js';

/** One collection's reads and writes. */
const OPERATIONS = '^(GET|POST|PATCH|DELETE) /flows/';
let run: CliRun;

beforeAll(async () => {
  expect(readPin(OTHER_RELEASE).why).toBeDefined(); // a release of the table, with the pins it needs
  run = await runCli(['--prefect-version', OTHER_RELEASE], {
    CONFORMANCE_OPERATIONS: '^(GET|POST|PATCH|DELETE) /flows/',
  });
});

describe(`a managed Prefect ${OTHER_RELEASE}`, () => {
  test('is the target, reports its own version, and gets its own baseline', () => {
    expect(run.stderr).toBe('');
    const r = run.results!;
    expect(r.target.managed).toBe(`prefect ${OTHER_RELEASE} on sqlite`);
    expect(r.target.serverVersion).toBe(OTHER_RELEASE);
    expect(r.baseline).toEqual({
      file: `fixtures/baselines/prefect-${OTHER_RELEASE}.json`,
      why: `fixtures/baselines/prefect-${OTHER_RELEASE}.json (auto: the target is prefect ${OTHER_RELEASE} (the managed server))`,
    });
  });

  test('passes the gate: no failure outside its baseline, every selected operation exercised', () => {
    const r = run.results!;
    const failed = r.checks.filter((c) => c.status === 'failed').map((c) => `${c.id} ${c.operation}: ${c.message}`);
    expect(failed).toEqual([]);
    expect(run.code).toBe(0);
    expect(r.summary.xfail).toBeGreaterThan(0);
    const selected = r.operations.filter((o) => new RegExp(OPERATIONS).test(`${o.method} ${o.path}`));
    expect(selected.length).toBeGreaterThan(5);
    expect(selected.filter((o) => !o.exercised).map((o) => `${o.method} ${o.path}`)).toEqual([]);
  });

  test('leaves nothing behind', () => {
    const cleanup = run.results!.cleanup!;
    expect(cleanup.failed).toEqual([]);
    expect(cleanup.deleted).toBeGreaterThan(0);
  });
});
