/**
 * The one configuration that crosses from the supervising CLI to the suites (the vitest worker and its
 * reporters): the run's Config, completed with what the CLI decided (the target it started or checked, the
 * document it validated, the baseline it chose, the run folder). vitest is started while the CLI still asks
 * the target, so that its start hides behind the survey of the document: what is known then is provided to
 * vitest as a value (adapters/vitest/provided.ts; the reporters have it as their options), and the whole
 * configuration, once the CLI has decided it, in the run folder's worker-config.json, which the suites wait
 * for before they send anything. Nothing travels through the environment.
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import type { Config, Database } from './config.js';
import { isAlive } from './alive.js';
import { appeared, runFiles } from './runFolder.js';

/** What the CLI found out about a target beyond its document, and how: for the baseline and the reports. */
export interface TargetIdentity {
  /** The release it runs, and where that was read (`--server-version`, the managed server, GET /admin/version). */
  release?: { version: string; from: string };
  /** The database behind it (undefined `name`: it could not be told), and how. */
  database?: { name?: Database; how: string };
  /** The release the baseline was written for, when it is not the target's own (baseline/choice.ts). */
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
