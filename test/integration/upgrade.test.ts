/**
 * `conformance upgrade`: a corpus written through one release, its database migrated by the next, read back
 * through it. A loss planted between the migration and the second release's start (rows deleted from its
 * database) turns the run red, named in the report; every other collection reads back whole.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { OTHER_RELEASE, runCli } from '../support/runCli.js';
import { readPin } from '../../src/managed/prefect.js';

// The completed flow run, gone from the migrated database before the second release starts.
const PLANT_LOSS = `python3 -c "import os, sqlite3; db = sqlite3.connect(os.environ['CONFORMANCE_DATABASE_URL'].split(':///', 1)[1]); db.execute(\\"DELETE FROM flow_run WHERE name LIKE '%-completed'\\"); db.commit()"`;

describe('conformance upgrade', () => {
  test(`${OTHER_RELEASE} → the pin on SQLite: a planted loss fails the run, and is the only one`, async () => {
    const to = readPin().prefect;
    const run = await runCli(
      [
        'upgrade',
        '--from',
        OTHER_RELEASE,
        '--to',
        to,
        '--operations',
        '^GET /flows/\\{id\\}$',
        '--after-migration',
        PLANT_LOSS,
      ],
      {},
      600_000,
    );
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(run.code).toBe(1);
    const upgrade = run.results?.upgrade;
    expect(upgrade).toMatchObject({ from: OTHER_RELEASE, to, database: 'sqlite' });
    const rows = new Map(upgrade!.collections.map((c) => [c.collection, c]));
    for (const name of [
      'flows',
      'flow_runs',
      'flow_run_states',
      'task_runs',
      'logs',
      'artifacts',
      'variables',
      'block_documents',
      'work_pools',
      'work_pool_queues',
      'concurrency_limits',
      'deployments',
    ])
      expect(rows.get(name)?.written, name).toBeGreaterThan(0);
    const flowRuns = rows.get('flow_runs')!;
    expect(flowRuns.lost).toHaveLength(1);
    expect(flowRuns.lost[0].how).toMatch(/GET \/flow_runs\/\{id\} answered 404/);
    const others = upgrade!.collections.filter((c) => c.collection !== 'flow_runs');
    expect(others.filter((c) => c.lost.length || c.changed.length).map((c) => c.collection)).toEqual([]);
    expect(run.results?.summary.failed).toBe(0);
    expect(run.stdout).toMatch(/LOST flow_runs /);
    expect(run.stdout).toMatch(/FAIL \(exit 1\): 1 object\(s\) lost in the upgrade to/);
    const html = readFileSync(path.join(run.outDir, 'index.html'), 'utf8');
    expect(html).toMatch(/data-testid="upgrade"/);
    expect(html).toMatch(/LOST flow_runs/);
  }, 660_000);
});
