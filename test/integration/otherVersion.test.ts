/**
 * The suite on a Prefect release it was not tuned on, managed on PostgreSQL: `--prefect-version 3.4.25 --db
 * postgres` installs that release with the pins of prefect-versions.json, starts it on a database of its own on
 * the machine's PostgreSQL, and the run is judged against 3.4.25's own baseline (its PostgreSQL entries among
 * them), chosen by the version the server reports; the database is dropped afterwards. A run of one
 * collection's reads and writes.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { readPin } from '../../src/managed/prefect.js';
import { conformanceDatabases } from '../support/postgres.js';
import { OTHER_RELEASE, runCli, type CliRun } from '../support/runCli.js';

/** One collection's reads and writes. */
const OPERATIONS = '^(GET|POST|PATCH|DELETE) /flows/';
let run: CliRun;

beforeAll(async () => {
  expect(readPin(OTHER_RELEASE).why).toBeDefined(); // a release of the table, with the pins it needs
  run = await runCli(['--prefect-version', OTHER_RELEASE, '--db', 'postgres'], { CONFORMANCE_OPERATIONS: OPERATIONS });
});

describe(`a managed Prefect ${OTHER_RELEASE} on PostgreSQL`, () => {
  test('is the target, reports its own version, and gets its own baseline', () => {
    expect(run.stderr).toBe('');
    const r = run.results!;
    expect(r.target.managed).toBe(`prefect ${OTHER_RELEASE} on postgres`);
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

  test('leaves nothing behind: its objects deleted, then its database dropped', () => {
    const cleanup = run.results!.cleanup!;
    expect(cleanup.failed).toEqual([]);
    expect(cleanup.deleted).toBeGreaterThan(0);
    // The run names its database (other tests' servers make theirs meanwhile): it is made, and gone after.
    const how = run.results!.target.identity!.database!.how;
    const own = /database of its own \((conformance_\w+), dropped with it\)/.exec(how)?.[1];
    expect(own, how).toBeDefined();
    expect(conformanceDatabases()).not.toContain(own);
  });
});
