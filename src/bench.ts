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
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadConfig } from './config/config.js';
import { inheritedEnvironment } from './config/worker.js';
import { readExchangeLog, type Behaviour } from './config/exchangeLog.js';
import type { Results } from './report/results.js';
import { record } from './benchHistory.js';
import { readPin, runCredentials, startPrefect } from './managed/prefect.js';
import { installedRelease } from './managed/releasePins.js';
import { cpuSeconds, listenerPid, pssKb, rssKb, tree } from './managed/processes.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Where the benched run writes its reports. */
const RUN_DIR = path.join(repoRoot, 'reports', 'bench-run');
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

/** The functions with the most self time over every .cpuprofile in a folder, by name and file. */
function hottestFunctions(dir: string, top: number): Array<{ fn: string; selfPercent: number }> {
  const self = new Map<string, number>();
  let total = 0;
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))) {
    const profile = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as { nodes: ProfileNode[] };
    for (const node of profile.nodes) {
      const hits = node.hitCount ?? 0;
      total += hits;
      const where = node.callFrame.url.replace(/^file:\/\//, '').replace(`${repoRoot}/`, '');
      const key = `${node.callFrame.functionName || '(anonymous)'} ${where || '(native)'}${where ? `:${node.callFrame.lineNumber + 1}` : ''}`;
      self.set(key, (self.get(key) ?? 0) + hits);
    }
  }
  return [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([fn, hits]) => ({ fn, selfPercent: Number(((100 * hits) / Math.max(1, total)).toFixed(1)) }));
}

/** The exchanges and their time grouped by `keyOf`, the most time first (the client's timing: a localhost round trip). */
function timeBy(
  exchanges: Behaviour[],
  keyOf: (x: Behaviour) => string,
): Array<[string, { n: number; seconds: number }]> {
  const grouped = new Map<string, { n: number; ms: number }>();
  for (const x of exchanges) {
    const entry = grouped.get(keyOf(x)) ?? { n: 0, ms: 0 };
    entry.n++;
    entry.ms += x.ms;
    grouped.set(keyOf(x), entry);
  }
  return [...grouped.entries()]
    .sort((a, b) => b[1].ms - a[1].ms)
    .map(([key, e]) => [key, { n: e.n, seconds: Number((e.ms / 1000).toFixed(2)) }]);
}

/** The server's time per operation. */
function serverTimeByOperation(
  exchanges: Behaviour[],
  top: number,
): Array<{ operation: string; requests: number; seconds: number }> {
  return timeBy(exchanges, (x) => `${x.m} ${x.t}`)
    .slice(0, top)
    .map(([operation, { n, seconds }]) => ({ operation, requests: n, seconds }));
}

/** The exchanges of each check (and of the exercise), from the exchange log's `by`: the cost a --budget order weighs. */
function exchangesByCheck(exchanges: Behaviour[]): Record<string, { exchanges: number; seconds: number }> {
  return Object.fromEntries(
    timeBy(exchanges, (x) => x.by ?? 'other').map(([by, { n, seconds }]) => [by, { exchanges: n, seconds }]),
  );
}

interface BenchTarget {
  baseUrl: string;
  /** What was benched, as bench.json names it. */
  label: string;
  /** The server's process when it runs on this machine: its CPU is the run's floor. */
  serverPid?: number;
  /** What the run is told beside the user's own variables. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

const USAGE =
  'usage: npm run bench -- [--profile] [--budget SECONDS] [--services] [--prefect-version VERSION] [--url URL]';

/** The target to bench: a managed Prefect (services off, or on with --services), or one already running at --url. */
async function benchTarget(options: {
  url?: string;
  services: boolean;
  'prefect-version'?: string;
}): Promise<BenchTarget> {
  if (options.url) {
    const url = new URL(options.url);
    return {
      baseUrl: options.url,
      label: `${url.origin} (by URL)`,
      serverPid: listenerPid(url),
      env: {},
      stop: async () => {},
    };
  }
  const { pin, bin } = await installedRelease(options['prefect-version'], (l) => process.stderr.write(`${l}\n`));
  // With credentials, as the default run starts its managed server: the auth family is judged, as there.
  const authString = runCredentials(pin.prefect);
  const server = await startPrefect({
    database: 'sqlite',
    version: pin.prefect,
    bin,
    services: options.services,
    authString,
  });
  const label = `prefect ${pin.prefect} on sqlite`;
  const baseline = path.join(repoRoot, 'fixtures', 'baselines', `prefect-${pin.prefect}.json`);
  return {
    baseUrl: server.baseUrl,
    label: options.services ? `${label} (prefect server start, services on)` : `${label} (managed)`,
    serverPid: server.pid,
    env: {
      // A server of our own, dropped after the run: the run sends what the default run sends.
      CONFORMANCE_DISPOSABLE_TARGET: '1',
      CONFORMANCE_TARGET_LABEL: label,
      ...(authString ? { CONFORMANCE_AUTH_STRING: authString } : {}),
      ...(existsSync(baseline) ? { CONFORMANCE_BASELINE: baseline } : {}),
    },
    // Its log beside the run's reports: the cause of each 5xx the run met.
    stop: () => server.stop({ keepLogAt: path.join(RUN_DIR, 'server.log') }),
  };
}

function benchOptions() {
  try {
    const { values } = parseArgs({
      options: {
        profile: { type: 'boolean', default: false },
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
    options.profile ? 'profiled' : undefined,
  ].filter(Boolean);
  return parts.length ? parts.join(', ') : 'default';
}

/** The CPU seconds of a process and its descendants so far; undefined without a process. */
const treeCpu = (pid: number | undefined) =>
  pid === undefined ? undefined : tree(pid).reduce((s, p) => s + cpuSeconds(p, true), 0);

async function main(): Promise<void> {
  // --profile: a V8 CPU profile of every suite process and thread, and the server's time per operation.
  const options = benchOptions();
  const { profile, budget } = options;
  const profileDir = path.join(repoRoot, 'reports', 'profile');
  if (profile) {
    rmSync(profileDir, { recursive: true, force: true });
    mkdirSync(profileDir, { recursive: true });
  }
  const target = await benchTarget(options);
  // The previous bench's reports stay for the CLI to replace, as it replaces a user's previous run's: deleting
  // allure's thousands of files inside the bench's clock would time the bench, not the run.
  const serverCpuBefore = treeCpu(target.serverPid);
  const selfBefore = cpuSeconds('self', true);
  const started = performance.now();
  const startedAt = Date.now();
  // --cpu-prof is refused in NODE_OPTIONS: the launcher passes it on to node (vitest's worker thread and the
  // CLI's own threads write a profile each).
  const profileFlags = profile ? `--cpu-prof --cpu-prof-dir=${profileDir}` : '';
  // The CLI as `npm run conformance` runs it: compiled (the bench script builds it first), by its launcher.
  const child = spawn(path.join(repoRoot, 'bin', 'conformance'), [], {
    cwd: repoRoot,
    env: inheritedEnvironment({
      CONFORMANCE_BASE_URL: target.baseUrl,
      CONFORMANCE_OUT: RUN_DIR,
      CONFORMANCE_QUIET: '1',
      CONFORMANCE_NODE_FLAGS: profileFlags,
      ...target.env,
      ...(budget ? { CONFORMANCE_BUDGET: budget } : {}),
    }),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  let peakRssKb = 0;
  let peakPssKb = 0;
  const sampler = setInterval(() => {
    const processes = tree(child.pid!);
    peakRssKb = Math.max(
      peakRssKb,
      processes.reduce((s, p) => s + rssKb(p), 0),
    );
    peakPssKb = Math.max(
      peakPssKb,
      processes.reduce((s, p) => s + pssKb(p), 0),
    );
  }, 100);
  const code = await new Promise<number>((r) => child.on('exit', (c) => r(c ?? 1)));
  clearInterval(sampler);
  const wallSeconds = (performance.now() - started) / 1000;
  // The suite's children were waited for, so their CPU is in our cutime/cstime; the server's is not.
  const suiteCpuSeconds = cpuSeconds('self', true) - selfBefore;
  const serverCpuAfter = treeCpu(target.serverPid);
  const serverCpuSeconds =
    serverCpuBefore === undefined || serverCpuAfter === undefined ? undefined : serverCpuAfter - serverCpuBefore;
  await target.stop();
  const results = JSON.parse(readFileSync(path.join(RUN_DIR, 'results.json'), 'utf8')) as Results;
  const cores = os.cpus().length;
  // Requests in flight on average: the time the exchanges took, over the time from the first to the last.
  const exchanges = readExchangeLog(path.join(RUN_DIR, '.run', 'exchanges.jsonl'));
  const sendingMs =
    Math.max(...exchanges.map((x) => x.at ?? 0)) - Math.min(...exchanges.map((x) => (x.at ?? 0) - x.ms));
  const timeBox = results.timing?.timeBox;
  const firstVerdict = results.timing?.firstVerdictAt ? Date.parse(results.timing.firstVerdictAt) : undefined;
  const bench = {
    date: new Date().toISOString(),
    machine: { cores, memoryGiB: Math.round(os.totalmem() / 2 ** 30), node: process.version },
    target: target.label,
    exitCode: code,
    wallSeconds: Number(wallSeconds.toFixed(2)),
    requests: results.summary.requests,
    requestsPerSecond: Number((results.summary.requests / wallSeconds).toFixed(1)),
    checks: results.checks.length,
    suiteCpuSeconds: Number(suiteCpuSeconds.toFixed(2)),
    suiteCpuShareOfMachine: Number((suiteCpuSeconds / (wallSeconds * cores)).toFixed(3)),
    // Absent for a target on another machine, whose CPU cannot be read here.
    serverCpuSeconds: serverCpuSeconds === undefined ? undefined : Number(serverCpuSeconds.toFixed(2)),
    // The server is one process: its CPU over the wall time is how much of the run it was working.
    serverBusyShare: serverCpuSeconds === undefined ? undefined : Number((serverCpuSeconds / wallSeconds).toFixed(3)),
    averageInFlight: Number((exchanges.reduce((n, x) => n + x.ms, 0) / Math.max(1, sendingMs)).toFixed(2)),
    secondsToFirstVerdict: firstVerdict ? Number(((firstVerdict - startedAt) / 1000).toFixed(2)) : undefined,
    peakRssMB: Math.round(peakRssKb / 1024),
    // The same processes' memory with shared pages (node's binary, in the CLI and in vitest) counted once.
    peakPssMB: Math.round(peakPssKb / 1024),
    concurrency: loadConfig().concurrency,
    runs: results.runs,
    budgetSeconds: budget ? Number(budget) : undefined,
    notRun: results.summary.notRun ?? 0,
    // A slow target: when the deadline (or budget) ended the sending, and what the target answered meanwhile.
    timeBox: `${timeBox?.kind} ${timeBox?.seconds} s`,
    timeBoxSpentAtSeconds: timeBox?.spent
      ? Number(((Date.parse(timeBox.spent.at) - startedAt) / 1000).toFixed(2))
      : undefined,
    retriedAfter503: results.operations.reduce((n, o) => n + (o.retried ?? 0), 0),
    answered5xx: exchanges.filter((x) => x.s >= 500).length,
    noAnswer: exchanges.filter((x) => x.s === 0).length,
    cleanupDeleted: results.cleanup?.deleted,
    // Objects cleanup's time did not reach (or could not delete): a slow target's leftovers.
    cleanupLeft: results.cleanup?.failed.length,
    requestsByFamily: results.timing?.latency,
    exchangesByCheck: exchangesByCheck(exchanges),
  };
  const profiled = profile
    ? {
        hottestSuiteFunctions: hottestFunctions(profileDir, 25),
        serverTimeByOperation: serverTimeByOperation(exchanges, 25),
      }
    : undefined;
  mkdirSync(path.join(repoRoot, 'reports'), { recursive: true });
  writeFileSync(path.join(repoRoot, 'reports', 'bench.json'), JSON.stringify({ ...bench, profile: profiled }, null, 2));
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
  const rows = Object.entries(bench).filter(([, v]) => typeof v !== 'object');
  process.stdout.write(`${rows.map(([k, v]) => `${k.padEnd(24)} ${v}`).join('\n')}\n`);
  if (profiled) {
    process.stdout.write(
      '\nsuite: self time (all processes and threads)\n' +
        profiled.hottestSuiteFunctions.map((f) => `${String(f.selfPercent).padStart(5)} %  ${f.fn}`).join('\n') +
        '\n',
    );
    process.stdout.write(
      '\nserver: time per operation (client-timed round trips)\n' +
        profiled.serverTimeByOperation
          .map((o) => `${String(o.seconds).padStart(7)} s ${String(o.requests).padStart(5)}  ${o.operation}`)
          .join('\n') +
        '\n',
    );
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`bench: ${(e as Error).message}\n`);
  process.exit(1);
});
