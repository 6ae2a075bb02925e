/**
 * `npm run conformance [-- run] [flags]`: the supervisor of a run. It validates the configuration, starts
 * the managed Prefect server when no target is given, checks that the target serves a valid document,
 * runs the suites in a vitest child, cleans up exactly what the run created, and sets the exit code.
 * Bad input: one line on stderr and exit code 2.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { flagsToEnv, loadConfig, secretsOf, UsageError, type Config } from './config/config.js';
import { authHeaders } from './http/auth.js';
import { HttpClient } from './http/client.js';
import { Redactor } from './http/redact.js';
import { profileFor } from './model/profiles/index.js';
import { isExpired, loadBaseline } from './report/baseline.js';
import { htmlReport } from './report/html.js';
import { markdownSummary } from './report/markdown.js';
import { updatedBaseline } from './report/baselineUpdate.js';
import { exitCodeOf, summarize, type Results } from './report/results.js';
import { terminalSummary } from './report/terminal.js';
import { TOOL } from './report/tool.js';
import { cleanup } from './resources/cleanup.js';
import { runFiles } from './run/session.js';
import { loadSpec } from './spec/load.js';
import { readPin, startPrefect, type ManagedServer } from './target/prefect.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function log(line: string): void {
  if (!process.env.CONFORMANCE_QUIET) process.stderr.write(`conformance: ${line}\n`);
}

/** Any HTTP answer at all means the target is reachable; a refused or timed-out connection does not. */
async function assertReachable(baseUrl: string, config: Config): Promise<void> {
  try {
    await fetch(`${baseUrl}/health`, { headers: authHeaders(config), signal: AbortSignal.timeout(Math.min(config.requestTimeoutMs, 15000)) });
  } catch (e) {
    const cause = (e as Error & { cause?: { code?: string; message?: string } }).cause;
    throw new UsageError(`target unreachable: ${baseUrl} (${cause?.code ?? cause?.message ?? (e as Error).message})`);
  }
}

function runVitest(env: NodeJS.ProcessEnv, outDir: string, onChild: (kill: () => void) => void): Promise<number> {
  const vitest = path.join(repoRoot, 'node_modules', 'vitest', 'vitest.mjs');
  const args = [
    vitest,
    'run',
    '--project',
    'conformance',
    '--reporter',
    path.join(repoRoot, 'src', 'report', 'vitestReporter.ts'),
    '--reporter',
    'junit',
    '--outputFile.junit',
    path.join(outDir, 'junit.xml'),
  ];
  if (env.CONFORMANCE_SHARD) args.push('--shard', env.CONFORMANCE_SHARD);
  // A process group of its own: vitest's main process can exit on SIGINT before its worker has stopped,
  // and a worker that outlives it would create objects after cleanup has read the ledger.
  const child = spawn(process.execPath, args, { cwd: repoRoot, env, stdio: ['ignore', 'inherit', 'inherit'], detached: true });
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // the group is gone already
    }
  };
  onChild(() => signalGroup('SIGINT'));
  return new Promise((resolve) =>
    child.on('exit', (code, signal) => {
      signalGroup('SIGKILL');
      resolve(code ?? (signal ? 130 : 1));
    }),
  );
}

function readResults(file: string): Results | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Results;
  } catch {
    return undefined;
  }
}

async function runCommand(args: string[]): Promise<number> {
  const env = { ...process.env, ...flagsToEnv(args) };
  const config = loadConfig(env);
  const startedAt = new Date().toISOString();
  mkdirSync(config.outDir, { recursive: true });
  const runDir = path.join(config.outDir, '.run');
  rmSync(runDir, { recursive: true, force: true });
  mkdirSync(runDir, { recursive: true });
  const files = runFiles(runDir);
  rmSync(path.join(config.outDir, 'results.json'), { force: true });

  let server: ManagedServer | undefined;
  let interrupted = false;
  let killChild: (() => void) | undefined;
  const onSignal = () => {
    interrupted = true;
    log('interrupted: stopping the suites, then cleaning up');
    killChild?.();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    let baseUrl = config.baseUrl;
    if (!baseUrl) {
      log(`no target configured: starting a managed Prefect ${readPin().prefect} server on ${config.database}`);
      try {
        // With an auth string and no target, the managed server is started with that auth (HTTP Basic).
        server = await startPrefect({ database: config.database, authString: config.authString, log });
      } catch (e) {
        throw new UsageError(`cannot start the managed Prefect server: ${(e as Error).message.split('\n')[0]}`);
      }
      baseUrl = server.baseUrl;
    }
    if (!config.specSource || /^https?:/.test(config.specSource)) await assertReachable(baseUrl, config);
    const spec = await loadSpec(config.specSource ?? `${baseUrl}/openapi.json`, { headers: authHeaders(config), timeoutMs: config.requestTimeoutMs });
    writeFileSync(files.spec, JSON.stringify(spec.raw));
    const profile = profileFor(spec);
    const managedBaseline = path.join(repoRoot, 'fixtures', 'baselines', `prefect-${readPin().prefect}.json`);
    const baselinePath = config.baselinePath ?? (server && profile.name === 'prefect' && existsSync(managedBaseline) ? managedBaseline : undefined);
    const baseline = loadBaseline(baselinePath);
    log(`target ${spec.raw.info?.title ?? ''} ${spec.raw.info?.version ?? ''} (OpenAPI ${spec.openapi}) at ${baseUrl}; seed ${config.seed}; run tag ${config.runTag}${baselinePath ? `; baseline ${path.relative(repoRoot, baselinePath)}` : ''}`);

    const managed = server ? `prefect ${readPin().prefect} on ${server.database}` : undefined;
    const childEnv: NodeJS.ProcessEnv = {
      ...env,
      CONFORMANCE_BASE_URL: baseUrl,
      CONFORMANCE_SPEC: files.spec,
      CONFORMANCE_RUN_DIR: runDir,
      CONFORMANCE_SEED: String(config.seed),
      CONFORMANCE_RUN_TAG: config.runTag,
      CONFORMANCE_OUT: config.outDir,
      CONFORMANCE_STARTED_AT: startedAt,
      CONFORMANCE_BASELINE: baselinePath ?? '',
      CONFORMANCE_DISPOSABLE_TARGET: config.disposable ? '1' : '',
      CONFORMANCE_TARGET_LABEL: managed ?? env.CONFORMANCE_TARGET_LABEL ?? '',
      CONFORMANCE_MANAGED_SERVER: managed ?? '',
    };
    delete childEnv.PREFECT_API_URL;
    await runVitest(childEnv, config.outDir, (kill) => (killChild = kill));

    const resultsFile = path.join(config.outDir, 'results.json');
    const expired = baseline.entries.filter((e) => isExpired(e));
    const results: Results = readResults(resultsFile) ?? {
      tool: TOOL,
      target: { baseUrl, openapi: spec.openapi, apiVersion: spec.raw.info?.version ?? '', profile: profile.name },
      seed: config.seed,
      runTag: config.runTag,
      runs: config.runs,
      readOnly: config.readOnly,
      startedAt,
      durationMs: 0,
      operations: [],
      checks: [],
      summary: summarize([], 0),
      errors: ['the suites ended without writing results'],
    };
    const redactor = new Redactor(secretsOf(config));
    const client = new HttpClient({ baseUrl, apiKey: config.apiKey, authString: config.authString, timeoutMs: config.requestTimeoutMs, concurrency: 4, redactor });
    results.cleanup = await cleanup(client, files.ledger);
    await client.close();
    if (interrupted) (results.errors ??= []).push('interrupted before the end of the run');
    // An expired entry fails the run: the deviation it excused was due to be fixed, or the entry reviewed.
    for (const e of expired) (results.errors ??= []).push(`baseline entry expired on ${e.expires}: ${e.check} ${e.operation} (${e.reason})`);
    if (results.cleanup.failed.length) (results.errors ??= []).push(`cleanup could not delete ${results.cleanup.failed.length} object(s)`);
    results.summary.requests += client.requestCount;
    results.durationMs = Date.now() - Date.parse(startedAt);
    results.exitCode = exitCodeOf(results);
    writeFileSync(resultsFile, JSON.stringify(results, null, 2));
    writeFileSync(path.join(config.outDir, 'summary.md'), markdownSummary(results));
    writeFileSync(path.join(config.outDir, 'index.html'), htmlReport(results));
    process.stdout.write(terminalSummary(results) + '\n');
    log(`reports in ${path.relative(process.cwd(), config.outDir) || '.'}: index.html, results.json, junit.xml, summary.md`);
    return results.exitCode;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    if (server) await server.stop();
  }
}

/** `baseline update [--from results.json] [--baseline old.json] [--out new.json]` */
function baselineCommand(args: string[]): number {
  const [sub, ...rest] = args;
  if (sub !== 'update') throw new UsageError(`unknown baseline command "${sub ?? ''}" (baseline commands: update)`);
  const opts: Record<string, string> = {};
  for (let i = 0; i < rest.length; i += 2) {
    if (!['--from', '--baseline', '--out'].includes(rest[i]) || rest[i + 1] === undefined) throw new UsageError(`baseline update takes --from FILE, --baseline FILE and --out FILE, got "${rest[i]}"`);
    opts[rest[i]] = rest[i + 1];
  }
  const from = opts['--from'] ?? path.join(process.env.CONFORMANCE_OUT || 'reports', 'results.json');
  const results = readResults(from);
  if (!results) throw new UsageError(`cannot read a results.json at ${from}`);
  const previousFile = opts['--baseline'] ?? process.env.CONFORMANCE_BASELINE;
  const updated = updatedBaseline(loadBaseline(previousFile), results);
  const out = opts['--out'] ?? path.join(path.dirname(from), 'baseline.json');
  writeFileSync(out, JSON.stringify(updated, null, 2) + '\n');
  process.stdout.write(`${updated.entries.length} entries written to ${out}${previousFile ? ` (from ${previousFile})` : ''}; review the diff before using it\n`);
  return 0;
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv.length > 0 && !argv[0].startsWith('-') ? argv : ['run', ...argv];
  switch (command) {
    case 'run':
      return runCommand(rest);
    case 'baseline':
      return baselineCommand(rest);
    default:
      throw new UsageError(`unknown command "${command}" (commands: run, baseline update)`);
  }
}

const invokedDirectly = process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1]);
if (invokedDirectly) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e: unknown) => {
      if (e instanceof UsageError) {
        process.stderr.write(`conformance: ${e.message}\n`);
        process.exit(2);
      }
      process.stderr.write(`conformance: internal error: ${(e as Error).stack ?? e}\n`);
      process.exit(1);
    },
  );
}
