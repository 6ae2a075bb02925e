/**
 * `npm run bench`: the default conformance run against a managed Prefect on SQLite (installed first, so
 * installation is not measured), with wall time, requests, the suite's own CPU and peak memory, and the
 * server's CPU beside it: how busy the suite kept the server, how many requests were in flight on average,
 * how soon the first verdict came, and the requests and answer times of each family. `--budget S` benches a
 * time-boxed run. A slow target: `--services` starts the Prefect as its docs do (`prefect server start`,
 * background services on), `--url URL` benches a target already running, `--prefect-version X` picks the managed
 * release. Writes reports/bench.json and prints a table. It states numbers; it fails nothing.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config/config.js';
import { repoRoot } from '../config/repoRoot.js';
import { inheritedEnvironment } from '../config/managedSettings.js';
import { readExchangeLog, type Behaviour } from '../config/exchangeLog.js';
import type { Results } from '../report/results.js';
import { readPin } from '../managed/prefect.js';
import { cpuSeconds, pssKb, rssKb, tree } from '../managed/processes.js';
import { record } from './history.js';
import { exchangesByCheck, exchangesPerCase, hottestFunctions, serverTimeByOperation } from './breakdown.js';
import type { Planning } from '../checks/core/planning.js';
import { benchTarget, type BenchTarget } from './target.js';

/** Where the benched run writes its reports. */
const RUN_DIR = path.join(repoRoot, 'reports', 'bench-run');
const CPU_PROFILE_DIR = path.join(repoRoot, 'reports', 'cpu-profile');
const USAGE =
  'usage: npm run bench -- [--cpu-profile] [--budget SECONDS] [--services] [--prefect-version VERSION] [--url URL]';

function benchOptions() {
  try {
    const { values } = parseArgs({
      options: {
        'cpu-profile': { type: 'boolean', default: false },
        budget: { type: 'string' },
        services: { type: 'boolean', default: false },
        'prefect-version': { type: 'string' },
        url: { type: 'string' },
      },
    });
    if (values.budget !== undefined && !/^[1-9]\d*$/.test(values.budget))
      throw new Error(`--budget takes whole seconds, got "${values.budget}"`);
    if (values.url && (values.services || values['prefect-version']))
      throw new Error(
        '--url benches a running target: --services and --prefect-version start one; give one or the other',
      );
    if (values.url && !URL.canParse(values.url))
      throw new Error(`--url must be the target's API root, such as http://127.0.0.1:4200/api, got "${values.url}"`);
    if (values['prefect-version']) readPin(values['prefect-version']);
    return values;
  } catch (e) {
    process.stderr.write(`bench: ${(e as Error).message}\n${USAGE}\n`);
    process.exit(2);
  }
}

/** What a bench ran, as its history names it: `default` for the default run of the pinned release. */
function benchKind(options: ReturnType<typeof benchOptions>): string {
  const parts = [
    options.url ? 'url' : options.services ? 'services' : undefined,
    options['prefect-version'] ? `prefect ${options['prefect-version']}` : undefined,
    options.budget ? `budget ${options.budget}` : undefined,
    options['cpu-profile'] ? 'cpu-cpuProfiled' : undefined,
  ].filter(Boolean);
  return parts.length ? parts.join(', ') : 'default';
}

/** The CPU seconds of a process and its descendants so far; undefined without a process. */
const treeCpu = (pid: number | undefined) =>
  pid === undefined ? undefined : tree(pid).reduce((s, p) => s + cpuSeconds(p, true), 0);

/** What the clock, the process table and the server's CPU said of one run of the CLI. */
interface Measured {
  exitCode: number;
  startedAt: number;
  wallSeconds: number;
  suiteCpuSeconds: number;
  serverCpuSeconds?: number;
  peakRssKb: number;
  peakPssKb: number;
}

/** Runs the CLI as `npm run conformance` runs it (compiled, by its launcher) against the target, and times it. */
async function measuredRun(target: BenchTarget, options: ReturnType<typeof benchOptions>): Promise<Measured> {
  // The previous bench's reports stay for the CLI to replace, as it replaces a user's previous run's: deleting
  // allure's thousands of files inside the bench's clock would time the bench, not the run.
  const serverCpuBefore = treeCpu(target.serverPid);
  const selfBefore = cpuSeconds('self', true);
  const started = performance.now();
  const startedAt = Date.now();
  // --cpu-prof is refused in NODE_OPTIONS: the launcher passes it on to node (vitest's worker thread and the
  // CLI's own threads write a profile each).
  const cpuProfileFlags = options['cpu-profile'] ? `--cpu-prof --cpu-prof-dir=${CPU_PROFILE_DIR}` : '';
  const child = spawn(path.join(repoRoot, 'bin', 'conformance'), [], {
    cwd: repoRoot,
    env: inheritedEnvironment({
      CONFORMANCE_BASE_URL: target.baseUrl,
      CONFORMANCE_OUT: RUN_DIR,
      CONFORMANCE_QUIET: '1',
      CONFORMANCE_NODE_FLAGS: cpuProfileFlags,
      ...target.env,
      ...(options.budget ? { CONFORMANCE_BUDGET: options.budget } : {}),
    }),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const peaks = { rss: 0, pss: 0 };
  const sampler = setInterval(() => {
    const processes = tree(child.pid!);
    peaks.rss = Math.max(
      peaks.rss,
      processes.reduce((s, p) => s + rssKb(p), 0),
    );
    peaks.pss = Math.max(
      peaks.pss,
      processes.reduce((s, p) => s + pssKb(p), 0),
    );
  }, 100);
  const exitCode = await new Promise<number>((r) => child.on('exit', (c) => r(c ?? 1)));
  clearInterval(sampler);
  const wallSeconds = (performance.now() - started) / 1000;
  // The suite's children were waited for, so their CPU is in our cutime/cstime; the server's is not.
  const suiteCpuSeconds = cpuSeconds('self', true) - selfBefore;
  const serverCpuAfter = treeCpu(target.serverPid);
  const serverCpuSeconds =
    serverCpuBefore === undefined || serverCpuAfter === undefined ? undefined : serverCpuAfter - serverCpuBefore;
  return {
    exitCode,
    startedAt,
    wallSeconds,
    suiteCpuSeconds,
    serverCpuSeconds,
    peakRssKb: peaks.rss,
    peakPssKb: peaks.pss,
  };
}

const fixed = (n: number, digits = 2) => Number(n.toFixed(digits));

/** bench.json's figures, from the measurement, the run's results and its exchange log. */
function benchFigures(
  target: BenchTarget,
  options: ReturnType<typeof benchOptions>,
  m: Measured,
  results: Results,
  exchanges: Behaviour[],
) {
  const cores = os.cpus().length;
  // Requests in flight on average: the time the exchanges took, over the time from the first to the last.
  const sendingMs =
    Math.max(...exchanges.map((x) => x.at ?? 0)) - Math.min(...exchanges.map((x) => (x.at ?? 0) - x.ms));
  const timeBox = results.timing?.timeBox;
  const firstVerdict = results.timing?.firstVerdictAt ? Date.parse(results.timing.firstVerdictAt) : undefined;
  const server = m.serverCpuSeconds;
  return {
    date: new Date().toISOString(),
    machine: { cores, memoryGiB: Math.round(os.totalmem() / 2 ** 30), node: process.version },
    target: target.label,
    exitCode: m.exitCode,
    wallSeconds: fixed(m.wallSeconds),
    requests: results.summary.requests,
    requestsPerSecond: fixed(results.summary.requests / m.wallSeconds, 1),
    checks: results.checks.length,
    suiteCpuSeconds: fixed(m.suiteCpuSeconds),
    suiteCpuShareOfMachine: fixed(m.suiteCpuSeconds / (m.wallSeconds * cores), 3),
    // Absent for a target on another machine, whose CPU cannot be read here.
    serverCpuSeconds: server === undefined ? undefined : fixed(server),
    // The server is one process: its CPU over the wall time is how much of the run it was working.
    serverBusyShare: server === undefined ? undefined : fixed(server / m.wallSeconds, 3),
    averageInFlight: fixed(exchanges.reduce((n, x) => n + x.ms, 0) / Math.max(1, sendingMs)),
    secondsToFirstVerdict: firstVerdict ? fixed((firstVerdict - m.startedAt) / 1000) : undefined,
    peakRssMB: Math.round(m.peakRssKb / 1024),
    // The same processes' memory with shared pages (node's binary, in the CLI and in vitest) counted once.
    peakPssMB: Math.round(m.peakPssKb / 1024),
    concurrency: loadConfig().concurrency,
    runs: results.runs,
    budgetSeconds: options.budget ? Number(options.budget) : undefined,
    notRun: results.summary.notRun ?? 0,
    // A slow target: when the deadline (or budget) ended the sending, and what the target answered meanwhile.
    timeBox: `${timeBox?.kind} ${timeBox?.seconds} s`,
    timeBoxSpentAtSeconds: timeBox?.spent ? fixed((Date.parse(timeBox.spent.at) - m.startedAt) / 1000) : undefined,
    retriedAfter503: results.operations.reduce((n, o) => n + (o.retried ?? 0), 0),
    answered5xx: exchanges.filter((x) => x.status >= 500).length,
    noAnswer: exchanges.filter((x) => x.status === 0).length,
    cleanupDeleted: results.cleanup?.deleted,
    // Objects cleanup's time did not reach (or could not delete): a slow target's leftovers.
    cleanupLeft: results.cleanup?.failed.length,
    requestsByFamily: results.timing?.latency,
    exchangesByCheck: exchangesByCheck(exchanges),
  };
}

/** The figures as rows, and with --cpu-profile the hottest functions and the server's time per operation. */
function printBench(bench: ReturnType<typeof benchFigures>, cpuProfiled?: CpuProfiled): void {
  const rows = Object.entries(bench).filter(([, v]) => typeof v !== 'object');
  process.stdout.write(`${rows.map(([k, v]) => `${k.padEnd(24)} ${v}`).join('\n')}\n`);
  if (!cpuProfiled) return;
  process.stdout.write(
    '\nsuite: self time (all processes and threads)\n' +
      cpuProfiled.hottestSuiteFunctions.map((f) => `${String(f.selfPercent).padStart(5)} %  ${f.fn}`).join('\n') +
      '\n',
  );
  process.stdout.write(
    '\nserver: time per operation (client-timed round trips)\n' +
      cpuProfiled.serverTimeByOperation
        .map((o) => `${String(o.seconds).padStart(7)} s ${String(o.requests).padStart(5)}  ${o.operation}`)
        .join('\n') +
      '\n',
  );
}

interface CpuProfiled {
  hottestSuiteFunctions: ReturnType<typeof hottestFunctions>;
  serverTimeByOperation: ReturnType<typeof serverTimeByOperation>;
}

async function main(): Promise<void> {
  // --cpu-profile: a V8 CPU profile of every suite process and thread, and the server's time per operation.
  const options = benchOptions();
  if (options['cpu-profile']) {
    rmSync(CPU_PROFILE_DIR, { recursive: true, force: true });
    mkdirSync(CPU_PROFILE_DIR, { recursive: true });
  }
  const target = await benchTarget(repoRoot, RUN_DIR, options);
  const measured = await measuredRun(target, options);
  await target.stop();
  const results = JSON.parse(readFileSync(path.join(RUN_DIR, 'results.json'), 'utf8')) as Results;
  const exchanges = readExchangeLog(path.join(RUN_DIR, '.run', 'exchanges.jsonl'));
  const bench = benchFigures(target, options, measured, results, exchanges);
  const cpuProfiled: CpuProfiled | undefined = options['cpu-profile']
    ? {
        hottestSuiteFunctions: hottestFunctions(repoRoot, CPU_PROFILE_DIR, 25),
        serverTimeByOperation: serverTimeByOperation(exchanges, 25),
      }
    : undefined;
  mkdirSync(path.join(repoRoot, 'reports'), { recursive: true });
  writeFileSync(
    path.join(repoRoot, 'reports', 'bench.json'),
    JSON.stringify({ ...bench, cpuProfile: cpuProfiled }, null, 2),
  );
  record(repoRoot, {
    kind: benchKind(options),
    target: target.label,
    figures: {
      wallSeconds: bench.wallSeconds,
      requests: bench.requests,
      serverCpuSeconds: bench.serverCpuSeconds,
      serverBusyShare: bench.serverBusyShare,
      peakRssMB: bench.peakRssMB,
      peakPssMB: bench.peakPssMB,
      secondsToFirstVerdict: bench.secondsToFirstVerdict,
      suiteCpuSeconds: bench.suiteCpuSeconds,
      exitCode: bench.exitCode,
    },
  });
  // The default run is what planning's exchanges per case stand for (checks/core/planning.ts).
  if (benchKind(options) === 'default' && bench.exitCode === 0) writePlanning(bench.exchangesByCheck, results);
  printBench(bench, cpuProfiled);
}

/** planning.json's exchanges per case, from this run: the rest of the file (the kill matrix's catches) is kept. */
function writePlanning(byCheck: Record<string, { exchanges: number }>, results: Results): void {
  const file = path.join(repoRoot, 'src', 'checks', 'core', 'planning.json');
  const planning = JSON.parse(readFileSync(file, 'utf8')) as Planning;
  planning.exchangesPerCase = exchangesPerCase(byCheck, results.checks);
  writeFileSync(file, `${JSON.stringify(planning, null, 2)}\n`);
  process.stdout.write(
    `${path.relative(repoRoot, file)}: exchanges per case of ${Object.keys(planning.exchangesPerCase).length} checks\n`,
  );
}

main().catch((e: unknown) => {
  process.stderr.write(`bench: ${(e as Error).message}\n`);
  process.exit(1);
});
