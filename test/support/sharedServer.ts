/**
 * A team's server, as the suite meets it: a managed Prefect (services on, as `prefect server start` runs them)
 * that already holds another client's objects, made through its API, and runs of the suite by URL against it.
 * Not a test (it takes many minutes): the measurements issue 79 asks for, by hand or in a bench.
 *
 *   npx tsx test/support/sharedServer.ts together [--db sqlite|postgres] [--rounds 3]
 *     two runs of the suite started together, each in a folder of its own, with 200 flows and 50 deployments of
 *     another client's present; per round: each run's exit code and failures, and the counts before and after.
 *   npx tsx test/support/sharedServer.ts full [--db postgres] [--runs 10000]
 *     the default run on an empty server, then on one holding a team's crowd (10,000 flow runs, 10,000 task
 *     runs, 20,000 logs, ...), side by side; the wall times, their ratio, and a sample of the team's objects
 *     read back identical.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { readPin, startPrefect } from '../../src/managed/prefect.js';
import type { Results } from '../../src/report/results.js';
import { cleanEnv, cliEntry, prefectBaseline, repoRoot } from './runCli.js';

async function send(base: string, method: string, p: string, body?: unknown): Promise<unknown> {
  for (let attempt = 1; ; attempt++) {
    const res = await fetch(`${base}${p}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).catch((e: Error) => {
      // A reset connection under load: asked again, as a client does.
      if (attempt < 8) return undefined;
      throw e;
    });
    if (!res) {
      await new Promise((r) => setTimeout(r, 100 * 2 ** attempt));
      continue;
    }
    if ((res.status === 503 || res.status === 429) && attempt < 8) {
      await new Promise((r) => setTimeout(r, 100 * 2 ** attempt));
      continue;
    }
    if (res.status >= 300) throw new Error(`${method} ${p} answered ${res.status}: ${await res.text()}`);
    const text = await res.text();
    return text ? JSON.parse(text) : undefined;
  }
}

/** Many requests, `width` at a time. */
async function inParallel<T>(items: T[], width: number, each: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await each(items[next++]);
    }),
  );
}

export interface Crowd {
  flows: number;
  deployments: number;
  flowRuns: number;
  taskRuns: number;
  logs: number;
  artifacts: number;
  variables: number;
}

/** Another client's objects, made through the API; answers some of their ids to read back later. */
export async function makeCrowd(base: string, crowd: Crowd): Promise<string[]> {
  const flows: string[] = [];
  for (let i = 0; i < crowd.flows; i++)
    flows.push(
      String(((await send(base, 'POST', '/flows/', { name: `team-flow-${i}`, tags: ['team'] })) as { id: string }).id),
    );
  const deployments = Array.from({ length: crowd.deployments }, (_, i) => i);
  await inParallel(deployments, 4, (i) =>
    send(base, 'POST', '/deployments/', {
      name: `team-deployment-${i}`,
      flow_id: flows[i % flows.length],
      tags: ['team'],
    }),
  );
  const runs: string[] = [];
  await inParallel(
    Array.from({ length: crowd.flowRuns }, (_, i) => i),
    8,
    async (i) => {
      const run = (await send(base, 'POST', '/flow_runs/', {
        flow_id: flows[i % flows.length],
        name: `team-run-${i}`,
        tags: ['team'],
        state: { type: i % 3 ? 'COMPLETED' : 'SCHEDULED', name: i % 3 ? 'Completed' : 'Scheduled' },
      })) as { id: string };
      runs.push(run.id);
    },
  );
  await inParallel(
    Array.from({ length: crowd.taskRuns }, (_, i) => i),
    8,
    (i) =>
      send(base, 'POST', '/task_runs/', {
        flow_run_id: runs[i % runs.length],
        task_key: 'team-task',
        dynamic_key: String(i),
        name: `team-task-${i}`,
        tags: ['team'],
      }),
  );
  const batches = Math.ceil(crowd.logs / 200);
  await inParallel(
    Array.from({ length: batches }, (_, b) => b),
    4,
    (b) =>
      send(
        base,
        'POST',
        '/logs/',
        Array.from({ length: Math.min(200, crowd.logs - b * 200) }, (_, i) => ({
          name: 'team',
          level: 20,
          message: `team log ${b}.${i}`,
          timestamp: new Date(Date.UTC(2026, 5, 1) + (b * 200 + i) * 1000).toISOString(),
          flow_run_id: runs[(b * 200 + i) % runs.length],
        })),
      ),
  );
  await inParallel(
    Array.from({ length: crowd.artifacts }, (_, i) => i),
    4,
    (i) => send(base, 'POST', '/artifacts/', { key: `team-artifact-${i}`, type: 'markdown', data: `# ${i}` }),
  );
  await inParallel(
    Array.from({ length: crowd.variables }, (_, i) => i),
    4,
    (i) => send(base, 'POST', '/variables/', { name: `team_variable_${i}`, value: i }),
  );
  return [...flows.slice(0, 5), ...runs.slice(0, 20)];
}

/** How many objects each collection of the crowd holds, by its count. */
export async function counts(base: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const c of [
    'flows',
    'deployments',
    'flow_runs',
    'task_runs',
    'artifacts',
    'variables',
    'work_pools',
    'block_documents',
  ])
    out[c] = (await send(base, 'POST', `/${c}/count`, {})) as number;
  return out;
}

/** The team's objects as the server serves them, by id: a sample to compare before and after. */
async function readSample(base: string, ids: string[], flows: number): Promise<string> {
  const reads = await Promise.all(
    ids.map((id, i) => send(base, 'GET', `${i < Math.min(5, flows) ? '/flows/' : '/flow_runs/'}${id}`)),
  );
  // What moves by itself (an estimate that grows with the clock) is left out.
  return JSON.stringify(reads, (k, v) => (/^estimated_|^updated$/.test(k) ? undefined : v));
}

interface RunOutcome {
  code: number;
  seconds: number;
  failed: string[];
  outDir: string;
}

/**
 * One run of the suite by URL against the shared server, as a team's CI job runs it: `together` as a job on a
 * server it shares does (not `--disposable`: the other client's objects and the other job's are not its to
 * change, and an edge that breaks a collection for every client is withheld), `full` as a team that lent its
 * server for the run.
 */
function runSuite(base: string, seed: number, label: string, disposable = true): Promise<RunOutcome> {
  const outDir = mkdtempSync(path.join(os.tmpdir(), 'shared-run-'));
  const started = Date.now();
  const child = spawn(cliEntry, [], {
    cwd: repoRoot,
    env: cleanEnv({
      CONFORMANCE_BASE_URL: base,
      ...(disposable ? { CONFORMANCE_DISPOSABLE_TARGET: '1' } : {}),
      CONFORMANCE_BASELINE: prefectBaseline,
      CONFORMANCE_TARGET_LABEL: label,
      CONFORMANCE_OUT: outDir,
      CONFORMANCE_SEED: String(seed),
      PREFECT_HOME: mkdtempSync(path.join(os.tmpdir(), 'prefect-home-')),
    }),
    stdio: 'ignore',
  });
  return new Promise((resolve) =>
    child.on('exit', (code) => {
      let failed: string[] = [];
      try {
        const results = JSON.parse(readFileSync(path.join(outDir, 'results.json'), 'utf8')) as Results;
        failed = [
          ...results.checks
            .filter((c) => c.status === 'failed' || c.status === 'xpass' || c.status === 'error')
            .map((c) => `${c.status} [${c.level}] ${c.id} ${c.operation}: ${(c.message ?? '').slice(0, 160)}`),
          ...(results.errors ?? []),
        ];
      } catch (e) {
        failed = [`no results: ${(e as Error).message}`];
      }
      resolve({ code: code ?? -1, seconds: Math.round((Date.now() - started) / 1000), failed, outDir });
    }),
  );
}

const log = (line: string) => process.stdout.write(`${line}\n`);

async function together(db: 'sqlite' | 'postgres', rounds: number): Promise<void> {
  for (let round = 1; round <= rounds; round++) {
    const server = await startPrefect({ database: db, services: true, log });
    try {
      await makeCrowd(server.baseUrl, {
        flows: 200,
        deployments: 50,
        flowRuns: 0,
        taskRuns: 0,
        logs: 0,
        artifacts: 0,
        variables: 0,
      });
      const before = await counts(server.baseUrl);
      const label = `prefect ${readPin().prefect} on ${db}`;
      const outcomes = await Promise.all([
        runSuite(server.baseUrl, 1 + round, label, false),
        runSuite(server.baseUrl, 101 + round, label, false),
      ]);
      const after = await counts(server.baseUrl);
      log(
        `round ${round} on ${db}: exits ${outcomes.map((o) => `${o.code} (${o.seconds} s)`).join(', ')}; counts ${JSON.stringify(before) === JSON.stringify(after) ? 'equal' : `before ${JSON.stringify(before)} after ${JSON.stringify(after)}`}`,
      );
      for (const o of outcomes) for (const f of o.failed) log(`  ${path.basename(o.outDir)}: ${f}`);
    } finally {
      await server.stop();
    }
  }
}

async function full(db: 'sqlite' | 'postgres', flowRuns: number): Promise<void> {
  const label = `prefect ${readPin().prefect} on ${db}`;
  const crowd: Crowd = {
    flows: 200,
    deployments: 50,
    flowRuns,
    taskRuns: flowRuns,
    logs: 2 * flowRuns,
    artifacts: 500,
    variables: 100,
  };
  const empty = await startPrefect({ database: db, services: true, log });
  const crowded = await startPrefect({ database: db, services: true, log });
  try {
    const filling = Date.now();
    const sample = await makeCrowd(crowded.baseUrl, crowd);
    log(
      `the crowd made in ${Math.round((Date.now() - filling) / 1000)} s: ${JSON.stringify(await counts(crowded.baseUrl))}`,
    );
    const before = await readSample(crowded.baseUrl, sample, crowd.flows);
    const countsBefore = await counts(crowded.baseUrl);
    // Side by side in one session: empty, full, empty, full would take twice as long; one each, the empty first.
    const onEmpty = await runSuite(empty.baseUrl, 101, label);
    const onFull = await runSuite(crowded.baseUrl, 101, label);
    const same = before === (await readSample(crowded.baseUrl, sample, crowd.flows));
    const countsSame = JSON.stringify(countsBefore) === JSON.stringify(await counts(crowded.baseUrl));
    log(
      `empty: exit ${onEmpty.code} in ${onEmpty.seconds} s; full: exit ${onFull.code} in ${onFull.seconds} s; ratio ${(onFull.seconds / onEmpty.seconds).toFixed(2)}`,
    );
    log(`the team's sample reads back ${same ? 'identical' : 'CHANGED'}; counts ${countsSame ? 'equal' : 'CHANGED'}`);
    for (const o of [onEmpty, onFull]) for (const f of o.failed) log(`  ${path.basename(o.outDir)}: ${f}`);
  } finally {
    await Promise.all([empty.stop(), crowded.stop()]);
  }
}

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    db: { type: 'string', default: 'sqlite' },
    rounds: { type: 'string', default: '3' },
    runs: { type: 'string', default: '10000' },
  },
});
const db = values.db === 'postgres' ? 'postgres' : 'sqlite';
if (positionals[0] === 'together') await together(db, Number(values.rounds));
else if (positionals[0] === 'full') await full(db, Number(values.runs));
else {
  process.stderr.write('usage: sharedServer.ts together|full [--db sqlite|postgres] [--rounds N] [--runs N]\n');
  process.exitCode = 2;
}
