/**
 * The one configuration that crosses from the supervising CLI to the suites (the vitest worker and its
 * reporters): the run's Config, completed with what the CLI decided (the target it started or checked, the
 * document it validated, the baseline it chose, the run folder). It travels in one environment variable.
 */
import os from 'node:os';
import path from 'node:path';
import type { Config, Env } from './config.js';

const VARIABLE = 'CONFORMANCE_WORKER_CONFIG';

export interface WorkerConfig extends Omit<Config, 'baseUrl'> {
  baseUrl: string;
  /** The document the CLI validated, written to the run folder. */
  specPath: string;
  /** Where the worker writes its ledger, exchange log and request list. */
  runDir: string;
  startedAt: string;
  baselinePath?: string;
  /** `prefect <version> on <db>` when the CLI started the managed server. */
  managed?: string;
}

export function workerConfig(
  config: Config,
  decided: Pick<WorkerConfig, 'baseUrl' | 'specPath' | 'runDir' | 'startedAt' | 'baselinePath' | 'managed'>,
): WorkerConfig {
  return {
    ...config,
    ...decided,
    targetLabel: decided.managed ?? config.targetLabel,
  };
}

/** The environment of a child that runs the suites: this process's, plus the worker configuration. */
export function workerEnvironment(config: WorkerConfig | undefined): Env {
  const env: Env = { ...process.env };
  // The child's configuration is the one below, not what the user's variables would say.
  for (const key of Object.keys(env)) if (key.startsWith('CONFORMANCE_') || key === 'PREFECT_API_URL') delete env[key];
  if (config) env[VARIABLE] = JSON.stringify(config);
  return env;
}

/** The run folder's files, written by the suites and read by the supervising CLI. */
export function runFiles(runDir: string) {
  return {
    ledger: path.join(runDir, 'ledger.jsonl'),
    exchanges: path.join(runDir, 'exchanges.jsonl'),
    spec: path.join(runDir, 'openapi.json'),
    requests: path.join(runDir, 'requests.txt'),
    /**
     * Written by the results reporter, after results.json, when every suite file has ended: nothing more
     * is sent, and the CLI starts cleanup while the reporters after it still write (allure's ~4,000 files
     * take seconds).
     */
    suitesEnded: path.join(runDir, 'suites-ended'),
  };
}

/** The worker configuration this process was started with; undefined outside a run of the CLI. */
export function readWorkerConfig(): WorkerConfig | undefined {
  const raw = process.env[VARIABLE];
  return raw ? (JSON.parse(raw) as WorkerConfig) : undefined;
}

/** Where the managed server's venvs are cached, and the Python that makes them. */
export function managedServerSettings(): { cacheDir: string; python: string } {
  const env = process.env;
  return {
    cacheDir:
      env.CONFORMANCE_CACHE_DIR ||
      path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'orchestration-conformance'),
    python: env.PYTHON || 'python3',
  };
}

/** The environment of a child process that needs nothing of ours (the managed server), with additions. */
export function inheritedEnvironment(extra: Env = {}): Env {
  return { ...process.env, ...extra };
}
