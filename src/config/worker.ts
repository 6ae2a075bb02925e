/**
 * The one configuration that crosses from the supervising CLI to the suites (the vitest worker and its
 * reporters): the run's Config, completed with what the CLI decided (the target it started or checked, the
 * document it validated, the baseline it chose, the run folder). vitest is started while the CLI still asks
 * the target, so that its start hides behind the survey of the document: what is known then is provided to
 * vitest as a value (adapters/vitest/provided.ts; the reporters have it as their options), and the whole
 * configuration, once the CLI has decided it, in the run folder's worker-config.json, which the suites wait
 * for before they send anything. Nothing travels through the environment.
 */
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Config, Database, Env } from './config.js';
import { UsageError } from './errors.js';

/** What the CLI found out about a target beyond its document, and how: for the baseline and the reports. */
export interface TargetIdentity {
  /** The release it runs, and where that was read (`--server-version`, the managed server, GET /admin/version). */
  release?: { version: string; from: string };
  /** The database behind it (undefined `name`: it could not be told), and how. */
  database?: { name?: Database; how: string };
  /** The release the baseline was written for, when it is not the target's own (report/baselineChoice.ts). */
  baselineFrom?: string;
}

export interface WorkerConfig extends Omit<Config, 'baseUrl'> {
  baseUrl: string;
  /** The document the CLI validated, written to the run folder. */
  documentPath: string;
  /** Where the worker writes its ledger, exchange log and request list. */
  runDir: string;
  startedAt: string;
  baselinePath?: string;
  /** `prefect <version> on <db>` when the CLI started the managed server. */
  managed?: string;
  identity?: TargetIdentity;
  /** The CLI's process: while it lives, the suites wait for its hand-over. */
  cliPid: number;
}

/** What the CLI decides while vitest starts: the target, its document, what it is, its label and the baseline. */
type Decided = 'baseUrl' | 'documentPath' | 'baselinePath' | 'managed' | 'identity' | 'targetLabel';

/** The worker configuration as the suites' process has it from its start: the run's, without what is decided later. */
export type WorkerStart = Omit<WorkerConfig, Decided> & Partial<Pick<WorkerConfig, Decided>>;

/**
 * What the supervising CLI hands each of the run's reporters, as their constructor's options (vitest's
 * `[file, options]`): they read no configuration of their own. Absent where vitest runs them without a run.
 */
export interface ReporterOptions {
  start?: WorkerStart;
}

/** The target and the baseline asked for are left out: the CLI decides them (an `auto` baseline, a managed server). */
export function workerStart(config: Config, run: Pick<WorkerConfig, 'runDir' | 'startedAt'>): WorkerStart {
  const { baseUrl: _target, baselinePath: _baseline, ...known } = config;
  return { ...known, ...run, cliPid: process.pid };
}

function workerConfig(start: WorkerStart, decided: Pick<WorkerConfig, Decided>): WorkerConfig {
  return {
    ...start,
    // Each named: a decision of none (no baseline, no managed server) arrives without its key.
    baseUrl: decided.baseUrl,
    documentPath: decided.documentPath,
    baselinePath: decided.baselinePath,
    managed: decided.managed,
    identity: decided.identity,
    targetLabel: decided.targetLabel,
  };
}

/** What the CLI decided, handed to the suites (written, then renamed: never read half written). */
export function handOver(runDir: string, decided: Pick<WorkerConfig, Decided>): void {
  const file = runFiles(runDir).workerConfig;
  writeFileSync(`${file}.part`, JSON.stringify(decided));
  renameSync(`${file}.part`, file);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: the process is there, another user's.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The whole worker configuration, once the CLI has handed over what it decided: the suites wait for it
 * before they send anything. The file goes once read (the run folder stays with the reports, and a target's
 * URL may hold credentials). If the CLI has gone meanwhile, nobody will hand it over: the wait ends in an
 * error.
 */
export async function handedOver(start: WorkerStart, pollMs = 10): Promise<WorkerConfig> {
  const file = runFiles(start.runDir).workerConfig;
  if (!(await appeared(file, () => !isAlive(start.cliPid), pollMs)))
    throw new Error('the CLI that started the suites ended before handing them their configuration');
  const decided = JSON.parse(readFileSync(file, 'utf8')) as Pick<WorkerConfig, Decided>;
  rmSync(file);
  return workerConfig(start, decided);
}

/**
 * Whether a file of the run folder appeared, written by the other side of the run: looked for every `pollMs`
 * until it is there, or until `over` says that it will not come.
 */
export async function appeared(file: string, over: () => boolean, pollMs: number): Promise<boolean> {
  while (!existsSync(file)) {
    if (over()) return false;
    await new Promise((r) => setTimeout(r, pollMs));
  }
  return true;
}

/** The run folder's files, written by the suites and read by the supervising CLI. */
export function runFiles(runDir: string) {
  return {
    ledger: path.join(runDir, 'ledger.jsonl'),
    exchanges: path.join(runDir, 'exchanges.jsonl'),
    /** Every exchange of the run as a HAR entry, one per line, where --report har asks (http/recorders.ts). */
    harEntries: path.join(runDir, 'exchanges.har.jsonl'),
    document: path.join(runDir, 'openapi.json'),
    requests: path.join(runDir, 'requests.txt'),
    /** What holds the run back (config/pacingStatus.ts), written by the suites' client for progress. */
    pacingStatus: path.join(runDir, 'pacing-status.json'),
    /** The exchanges the suites expect to send (register.ts), for progress's estimate of what is left. */
    expectedExchanges: path.join(runDir, 'expected-exchanges'),
    /**
     * Written by the results reporter, after results.json, when every suite file has ended: nothing more
     * is sent, and the CLI starts cleanup while the reporters after it still write (allure's ~4,000 files
     * take seconds).
     */
    suitesEnded: path.join(runDir, 'suites-ended'),
    /** The entries of the releases around the target's, as one baseline, where those apply (report/baselineChoice.ts). */
    neighboursBaseline: path.join(runDir, 'baseline-neighbours.json'),
    /** What the CLI's preflight decided (the target, its document, the baseline), until the suites have read it. */
    workerConfig: path.join(runDir, 'worker-config.json'),
  };
}

/** What installs a managed release: uv (the default), or pip (`CONFORMANCE_INSTALLER=pip`). */
export type Installer = 'uv' | 'pip';

/**
 * Where the managed server's venvs are cached, the Python that makes them, what installs them, and the
 * package index (pip's own PIP_INDEX_URL, else PyPI's), which also says when a release was published.
 */
export function managedServerSettings(): {
  cacheDir: string;
  python: string;
  packageIndex: string;
  installer: Installer;
} {
  const env = process.env;
  const installer = env.CONFORMANCE_INSTALLER || 'uv';
  if (installer !== 'uv' && installer !== 'pip')
    throw new UsageError(`CONFORMANCE_INSTALLER must be uv or pip, got "${installer}"`);
  return {
    installer,
    cacheDir:
      env.CONFORMANCE_CACHE_DIR ||
      path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'orchestration-conformance'),
    python: env.PYTHON || 'python3',
    packageIndex: env.PIP_INDEX_URL || 'https://pypi.org/simple',
  };
}

/** The environment of a child process that needs nothing of ours (the managed server), with additions. */
export function inheritedEnvironment(extra: Env = {}): Env {
  return { ...process.env, ...extra };
}
