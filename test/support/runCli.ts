/** Run the conformance CLI as a user would, in a child process, and read what it wrote. */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readPin } from '../../src/managed/prefect.js';
import type { Results } from '../../src/report/results.js';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const prefectBaseline = path.join(repoRoot, 'fixtures', 'baselines', `prefect-${readPin().prefect}.json`);
export const sqliteLabel = `prefect ${readPin().prefect} on sqlite`;
/** The other release the tests run (.ci/run installs it beside the pinned one): managed, on PostgreSQL. */
export const OTHER_RELEASE = '3.4.25';

/**
 * The CLI as `npm run conformance` runs it: compiled by `npm run build` (tsconfig.build.json), started by its
 * launcher with the memory settings of the process the suites run in.
 */
export const cliEntry = path.join(repoRoot, 'bin', 'conformance');

/** Compile the CLI from the current source, as `npm run conformance` does before each run (incremental). */
export function buildCli(): void {
  execFileSync(
    process.execPath,
    [path.join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
    {
      cwd: repoRoot,
      stdio: 'inherit',
    },
  );
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  outDir: string;
  results?: Results;
}

/** The environment of a user who configured nothing: no CONFORMANCE_* and no PREFECT_API_* variables. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env))
    if (!k.startsWith('CONFORMANCE_') && !k.startsWith('PREFECT_') && !k.startsWith('VITEST')) env[k] = v;
  return { ...env, CONFORMANCE_QUIET: '1', ...extra };
}

/**
 * The time a whole run gets (every family, every operation) before it is killed, where runCli's default of 5
 * minutes is a scoped run's: on the slowest machines met, with the other lane busy beside it, a whole run
 * took longer.
 */
export const WHOLE_RUN_MS = 900_000;

export function runCli(
  args: string[],
  env: Record<string, string> = {},
  timeoutMs = 300_000,
  cwd = repoRoot,
  entry = cliEntry,
): Promise<CliRun> {
  const outDir = env.CONFORMANCE_OUT ?? mkdtempSync(path.join(os.tmpdir(), 'conformance-out-'));
  // No Prefect profile of the machine's user may give the target: a Prefect home of its own, empty unless given.
  const prefectHome: Record<string, string> =
    env.PREFECT_HOME || env.PREFECT_PROFILES_PATH
      ? {}
      : { PREFECT_HOME: mkdtempSync(path.join(os.tmpdir(), 'prefect-home-')) };
  const child = spawn(entry, args, {
    cwd,
    env: cleanEnv({ CONFORMANCE_OUT: outDir, ...prefectHome, ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve) =>
    child.on('exit', (code) => {
      clearTimeout(timer);
      const file = path.join(outDir, 'results.json');
      const results = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Results) : undefined;
      resolve({ code: code ?? -1, stdout, stderr, outDir, results });
    }),
  );
}

/**
 * The environment of a run against our own Prefect (or a proxy in front of it) given by URL: disposable, with
 * the shipped baseline (or another) and the managed server's SQLite label, so that its entries apply as they do
 * to the managed server.
 */
export const prefectTargetEnv = (baseUrl: string, baseline = prefectBaseline): Record<string, string> => ({
  CONFORMANCE_BASE_URL: baseUrl,
  CONFORMANCE_DISPOSABLE_TARGET: '1',
  CONFORMANCE_BASELINE: baseline,
  CONFORMANCE_TARGET_LABEL: sqliteLabel,
});

/** "check-id OPERATION" of every check that failed (not xfail). */
export function failedChecks(results: Results | undefined): string[] {
  return (results?.checks ?? [])
    .filter((c) => c.status === 'failed' || c.status === 'xpass')
    .map((c) => `${c.id} ${c.operation}`);
}

/** Every file under a folder (a run's output folder: what it wrote, its .run/ among it). */
export function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    return statSync(file).isDirectory() ? filesUnder(file) : [file];
  });
}
