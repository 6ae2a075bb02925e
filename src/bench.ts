/**
 * `npm run bench`: the default conformance run against a managed Prefect on SQLite (installed first, so
 * installation is not measured), with wall time, requests, the suite's own CPU and peak memory, and the
 * server's CPU beside it: how busy the suite kept the server, how many requests were in flight on average,
 * how soon the first verdict came, and the requests and answer times of each family. `--budget S` benches a
 * time-boxed run. Writes reports/bench.json and prints a table. It states numbers; it fails nothing.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from './config/config.js';
import { inheritedEnvironment } from './config/worker.js';
import { readExchangeLog, type Behaviour } from './http/behaviour.js';
import type { Results } from './report/results.js';
import { ensurePrefect, readPin, startPrefect } from './managed/prefect.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TICKS = 100; // USER_HZ on Linux

/** utime+stime (and, with children, the CPU of children that were waited for), in seconds. */
function cpuSeconds(pid: number | 'self', withChildren: boolean): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .map(Number);
  // fields[11..14] are utime, stime, cutime, cstime (stat fields 14..17)
  return (fields[11] + fields[12] + (withChildren ? fields[13] + fields[14] : 0)) / TICKS;
}

function rssKb(pid: number): number {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('VmRSS:'));
    return line ? Number(line.split(/\s+/)[1]) : 0;
  } catch {
    return 0;
  }
}

/** The process and every descendant, by walking /proc. */
function tree(root: number): number[] {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parentOf.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const out = [root];
  for (let i = 0; i < out.length; i++) for (const [pid, ppid] of parentOf) if (ppid === out[i]) out.push(pid);
  return out;
}

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

async function main(): Promise<void> {
  // --profile: a V8 CPU profile of every suite process and thread, and the server's time per operation.
  const profile = process.argv.includes('--profile');
  const budgetAt = process.argv.indexOf('--budget');
  const budget = budgetAt > 0 ? process.argv[budgetAt + 1] : undefined;
  const profileDir = path.join(repoRoot, 'reports', 'profile');
  if (profile) {
    rmSync(profileDir, { recursive: true, force: true });
    mkdirSync(profileDir, { recursive: true });
  }
  ensurePrefect((l) => process.stderr.write(`${l}\n`));
  const server = await startPrefect({ database: 'sqlite' });
  const serverPid = Number(readFileSync(`/proc/self/task/${process.pid}/children`, 'utf8').trim().split(/\s+/)[0]);
  const outDir = path.join(repoRoot, 'reports', 'bench-run');
  const serverCpuBefore = tree(serverPid).reduce((s, p) => s + cpuSeconds(p, true), 0);
  const selfBefore = cpuSeconds('self', true);
  const started = performance.now();
  const startedAt = Date.now();
  rmSync(outDir, { recursive: true, force: true });
  // --cpu-prof is refused in NODE_OPTIONS; the CLI passes it on to vitest (and vitest's worker thread inherits it).
  const profileArgs = profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const child = spawn(process.execPath, [...profileArgs, '--import', 'tsx', path.join(repoRoot, 'src', 'cli.ts')], {
    cwd: repoRoot,
    env: inheritedEnvironment({
      CONFORMANCE_BASE_URL: server.baseUrl,
      CONFORMANCE_DISPOSABLE_TARGET: '1',
      CONFORMANCE_OUT: outDir,
      CONFORMANCE_QUIET: '1',
      CONFORMANCE_TARGET_LABEL: `prefect ${readPin().prefect} on sqlite`,
      CONFORMANCE_BASELINE: path.join(repoRoot, 'fixtures', 'baselines', `prefect-${readPin().prefect}.json`),
      ...(budget ? { CONFORMANCE_BUDGET: budget } : {}),
    }),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  let peakRssKb = 0;
  const sampler = setInterval(() => {
    peakRssKb = Math.max(
      peakRssKb,
      tree(child.pid!).reduce((s, p) => s + rssKb(p), 0),
    );
  }, 100);
  const code = await new Promise<number>((r) => child.on('exit', (c) => r(c ?? 1)));
  clearInterval(sampler);
  const wallSeconds = (performance.now() - started) / 1000;
  // The suite's children were waited for, so their CPU is in our cutime/cstime; the server's is not.
  const suiteCpuSeconds = cpuSeconds('self', true) - selfBefore;
  const serverCpuSeconds = tree(serverPid).reduce((s, p) => s + cpuSeconds(p, true), 0) - serverCpuBefore;
  await server.stop();
  const results = JSON.parse(readFileSync(path.join(outDir, 'results.json'), 'utf8')) as Results;
  const cores = os.cpus().length;
  // Requests in flight on average: the time the exchanges took, over the time from the first to the last.
  const exchanges = readExchangeLog(path.join(outDir, '.run', 'exchanges.jsonl'));
  const sendingMs =
    Math.max(...exchanges.map((x) => x.at ?? 0)) - Math.min(...exchanges.map((x) => (x.at ?? 0) - x.ms));
  const firstVerdict = results.timing?.firstVerdictAt ? Date.parse(results.timing.firstVerdictAt) : undefined;
  const bench = {
    date: new Date().toISOString(),
    machine: { cores, memoryGiB: Math.round(os.totalmem() / 2 ** 30), node: process.version },
    target: `prefect ${readPin().prefect} on sqlite (managed)`,
    exitCode: code,
    wallSeconds: Number(wallSeconds.toFixed(2)),
    requests: results.summary.requests,
    requestsPerSecond: Number((results.summary.requests / wallSeconds).toFixed(1)),
    checks: results.checks.length,
    suiteCpuSeconds: Number(suiteCpuSeconds.toFixed(2)),
    suiteCpuShareOfMachine: Number((suiteCpuSeconds / (wallSeconds * cores)).toFixed(3)),
    serverCpuSeconds: Number(serverCpuSeconds.toFixed(2)),
    // The server is one process: its CPU over the wall time is how much of the run it was working.
    serverBusyShare: Number((serverCpuSeconds / wallSeconds).toFixed(3)),
    averageInFlight: Number((exchanges.reduce((n, x) => n + x.ms, 0) / Math.max(1, sendingMs)).toFixed(2)),
    secondsToFirstVerdict: firstVerdict ? Number(((firstVerdict - startedAt) / 1000).toFixed(2)) : undefined,
    peakRssMB: Math.round(peakRssKb / 1024),
    concurrency: loadConfig().concurrency,
    runs: results.runs,
    budgetSeconds: budget ? Number(budget) : undefined,
    notRun: results.summary.notRun ?? 0,
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
