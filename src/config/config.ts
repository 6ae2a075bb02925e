/**
 * Flags, environment, configuration file and the active Prefect profile → one validated Config. Bad input
 * throws UsageError, which the CLI turns into one line on stderr and exit code 2.
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Env } from './env.js';
import { UsageError } from './errors.js';
import { configFileOf, readConfigFile } from './file.js';
import { CONFIG_OPTION, RUN_OPTIONS } from './options.js';
import { activeProfileTarget } from './prefectProfile.js';
import { describeSelection, isPartial, type Selection, selectionFrom } from './selection.js';

export { UsageError };

export type Database = 'sqlite' | 'postgres';

export interface Config {
  /** The target's API root, or undefined: start the managed local Prefect server. */
  baseUrl?: string;
  /** Where to read the OpenAPI document from; default `{baseUrl}/openapi.json`. */
  documentSource?: string;
  apiKey?: string;
  authString?: string;
  outDir: string;
  readOnly: boolean;
  /** SHOULD failures gate too (results.ts `gates`). */
  gateShould: boolean;
  /**
   * Why the run is read-only when the user did not ask for it: its target came from Prefect's own settings
   * (PREFECT_API_URL, the active profile), which name the server a user works with, not one they named for
   * the suite. `--allow-writes`, or naming the target (--base-url, CONFORMANCE_BASE_URL, baseUrl), lifts it.
   */
  readOnlyBecause?: string;
  /** The managed server and any target the user declares disposable may run destructive operations. */
  disposable: boolean;
  seed: number;
  baselinePath?: string;
  /** Database of the managed server. */
  database: Database;
  /** The managed server's Prefect release; undefined for the pin. */
  prefectVersion?: string;
  /** The operations and checks the run covers; empty for all of them. */
  selection: Selection;
  /** --check-modules: files of the user's own checks (absolute), each a family of its own (checks/core/registry.ts). */
  checkModules: string[];
  /** Generated runs per property. */
  runs: number;
  requestTimeoutMs: number;
  concurrency: number;
  /** --report: report formats asked for beyond those every run writes (report/formats.ts checks the names). */
  reports: string[];
  /** --suite-node-flags: Node flags for the suites' worker thread (vitest's `execArgv`). */
  suiteNodeFlags: string[];
  /** --max-rate: requests per second at most, to stay under a quota the user knows. */
  maxRate?: number;
  /** --budget: a time-boxed run of this many seconds, the checks that catch the most first. */
  budgetSeconds?: number;
  /** The most a run may send for, in seconds: a slow target ends the run here, never hangs it. */
  deadlineSeconds: number;
  /** A fixed prefix on every name the run creates, and the tag it puts on every object. */
  runTag: string;
  /** `i/n`: run the i-th of n parts of the suite files. */
  shard?: string;
  /** Text describing the target; baseline entries with `onlyOn` apply when it contains theirs. */
  targetLabel?: string;
  /** The release a target given by URL runs, where the user says it (it cannot be read from a hosted edition). */
  serverVersion?: string;
  /** No progress and no log lines on stderr. */
  quiet: boolean;
  /** Running in CI (`CI` set): no progress line. */
  ci: boolean;
  /** Where the target came from: a flag, a variable, the configuration file, a Prefect profile, or none (managed). */
  targetSource: string;
  /** The configuration file read, if any. */
  configFile?: string;
  /** Variable → how the user gave it (`--seed`, `generated in <file>`), where not by the variable: for messages. */
  givenAs?: Record<string, string>;
}

export type { Env };

export const DEFAULT_SEED = 20261121;

function truthy(v: string | undefined): boolean {
  return v !== undefined && /^(1|true|yes|on)$/i.test(v);
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max)
    throw new UsageError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  return Number(raw);
}

/** A number of requests per second, above 0 (fractions too: 0.5 is one every two seconds). */
function rate(env: Env, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  if (!/^\d+(\.\d+)?$/.test(raw) || Number(raw) <= 0 || Number(raw) > 100000)
    throw new UsageError(`${name} must be a number of requests per second above 0, such as 20 or 0.5, got "${raw}"`);
  return Number(raw);
}

export function validateBaseUrl(raw: string, source: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`${source} is not a valid URL: "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`${source} must be an http(s) URL, got "${raw}"`);
  if (url.username || url.password)
    throw new UsageError(`${source} must not carry credentials; use CONFORMANCE_AUTH_STRING`);
  return url.toString().replace(/\/+$/, '');
}

/** A list a variable gives, split at `by`, each item trimmed, the empty ones left out. */
const wordsOf = (value: string | undefined, by: string | RegExp): string[] =>
  (value ?? '')
    .split(by)
    .map((w) => w.trim())
    .filter(Boolean);

/** The check modules given (by default, in the environment), as absolute paths; one that is not a file is bad input. */
export function checkModulesFrom(env: Env = process.env): string[] {
  const files = (env.CONFORMANCE_CHECK_MODULES ?? '')
    .split(',')
    .map((f) => f.trim())
    .filter(Boolean)
    .map((f) => path.resolve(f));
  for (const file of files)
    if (!existsSync(file) || !statSync(file).isFile())
      throw new UsageError(
        `CONFORMANCE_CHECK_MODULES: ${file} is not a file (a module whose default export is your checks)`,
      );
  return files;
}

/** The configuration of a run: flags (already turned into their variables) over the environment over defaults. */
/** --server-version: a release, and only of a target given by URL. */
function serverVersionOf(env: Env, baseUrl: string | undefined): string | undefined {
  const serverVersion = env.CONFORMANCE_SERVER_VERSION || undefined;
  if (serverVersion && !/^\d+\.\d+\.\d+([a-z]+\d+)?$/.test(serverVersion))
    throw new UsageError(`--server-version must be a release such as 3.8.8, got "${serverVersion}"`);
  if (serverVersion && !baseUrl)
    throw new UsageError(
      `--server-version names the release of a target given by URL; the managed server's release is --prefect-version`,
    );
  return serverVersion;
}

export function loadConfig(env: Env = process.env, origin: { target?: string; configFile?: string } = {}): Config {
  const rawBase = env.CONFORMANCE_BASE_URL || env.PREFECT_API_URL;
  const baseSource = env.CONFORMANCE_BASE_URL ? 'CONFORMANCE_BASE_URL' : 'PREFECT_API_URL';
  const baseUrl = rawBase ? validateBaseUrl(rawBase, origin.target ?? baseSource) : undefined;
  const database = (env.CONFORMANCE_DB || 'sqlite') as Database;
  if (database !== 'sqlite' && database !== 'postgres')
    throw new UsageError(`CONFORMANCE_DB must be sqlite or postgres, got "${database}"`);
  const prefectVersion = env.CONFORMANCE_PREFECT_VERSION || undefined;
  if (prefectVersion && baseUrl)
    throw new UsageError(
      `--prefect-version ${prefectVersion} picks the managed server's release, but the target is ${baseUrl}: give one or the other`,
    );
  const serverVersion = serverVersionOf(env, baseUrl);
  const selection = selectionFrom(env);
  const authString = env.CONFORMANCE_AUTH_STRING || env.PREFECT_API_AUTH_STRING || undefined;
  if (authString !== undefined && !authString.includes(':'))
    throw new UsageError('CONFORMANCE_AUTH_STRING must have the form user:pass');
  const shard = env.CONFORMANCE_SHARD || undefined;
  if (shard) {
    const parts = /^(\d+)\/(\d+)$/.exec(shard);
    if (!parts || Number(parts[1]) < 1 || Number(parts[1]) > Number(parts[2]))
      throw new UsageError(`--shard must be i/n with 1 ≤ i ≤ n, got "${env.CONFORMANCE_SHARD}"`);
  }
  // A gate must give the same verdict twice: the seed is fixed unless asked for at random.
  const seed =
    env.CONFORMANCE_SEED === 'random'
      ? Math.floor(Math.random() * 2 ** 31)
      : integer(env, 'CONFORMANCE_SEED', DEFAULT_SEED, 0, 2 ** 31 - 1);
  const fromPrefectSettings = baseUrl !== undefined && !env.CONFORMANCE_BASE_URL;
  const readOnlyBecause =
    fromPrefectSettings && !truthy(env.CONFORMANCE_ALLOW_WRITES) && !truthy(env.CONFORMANCE_READ_ONLY)
      ? `the target came from ${origin.target ?? baseSource}, Prefect's own settings, not from --base-url: nothing is written to it unless --allow-writes says so`
      : undefined;
  const runTag = env.CONFORMANCE_RUN_TAG || `conformance-${seed.toString(36)}-${Date.now().toString(36)}`;
  if (!/^[a-z0-9-]{4,40}$/.test(runTag))
    throw new UsageError(`CONFORMANCE_RUN_TAG must match [a-z0-9-]{4,40}, got "${runTag}"`);
  return {
    baseUrl,
    documentSource: env.CONFORMANCE_DOCUMENT || undefined,
    apiKey: env.CONFORMANCE_API_KEY || env.PREFECT_API_KEY || undefined,
    authString,
    outDir: path.resolve(env.CONFORMANCE_OUT || 'reports'),
    readOnly: truthy(env.CONFORMANCE_READ_ONLY) || readOnlyBecause !== undefined,
    readOnlyBecause,
    gateShould: truthy(env.CONFORMANCE_GATE_SHOULD),
    disposable: baseUrl === undefined || truthy(env.CONFORMANCE_DISPOSABLE_TARGET),
    seed,
    baselinePath: env.CONFORMANCE_BASELINE || undefined,
    database,
    prefectVersion,
    selection,
    checkModules: checkModulesFrom(env),
    runs: integer(env, 'CONFORMANCE_GENERATED', 10, 1, 10000),
    requestTimeoutMs: integer(env, 'CONFORMANCE_TIMEOUT_MS', 10000, 100, 600000),
    // 4: more writes at once on Prefect with SQLite lose its one lock to each other ("database is locked" 503s and
    // their retries) and the run gets slower, not faster (docs/performance.md).
    concurrency: integer(env, 'CONFORMANCE_CONCURRENCY', 4, 1, 256),
    reports: wordsOf(env.CONFORMANCE_REPORT, ',').map((r) => r.toLowerCase()),
    suiteNodeFlags: wordsOf(env.CONFORMANCE_SUITE_NODE_FLAGS, /\s+/),
    maxRate: rate(env, 'CONFORMANCE_MAX_RATE'),
    budgetSeconds: env.CONFORMANCE_BUDGET ? integer(env, 'CONFORMANCE_BUDGET', 0, 1, 86400) : undefined,
    deadlineSeconds: integer(env, 'CONFORMANCE_DEADLINE', 1800, 1, 86400),
    runTag,
    shard,
    targetLabel: env.CONFORMANCE_TARGET_LABEL || undefined,
    serverVersion,
    quiet: truthy(env.CONFORMANCE_QUIET),
    ci: Boolean(env.CI),
    targetSource: baseUrl ? (origin.target ?? baseSource) : 'none given: the managed server',
    configFile: origin.configFile,
  };
}

/**
 * The configuration of a command: its flags (as variables) over the environment, over the overrides a command
 * sets (a side of compare), over the configuration file; the active Prefect profile gives the target only
 * when none of those names one.
 */
export function configFrom(flags: Env, overrides: Env = {}, cwd = process.cwd()): Config {
  const file = configFileOf(flags[CONFIG_OPTION.env] ?? process.env[CONFIG_OPTION.env], cwd);
  const fromFile = file ? readConfigFile(file) : {};
  const env: Env = { ...fromFile, ...process.env, ...overrides, ...flags };
  let target: string | undefined;
  if (flags.CONFORMANCE_BASE_URL) target = 'the --base-url flag';
  else if (overrides.CONFORMANCE_BASE_URL || overrides.PREFECT_API_URL) target = 'the command';
  else if (process.env.CONFORMANCE_BASE_URL) target = 'CONFORMANCE_BASE_URL';
  // The file's baseUrl is CONFORMANCE_BASE_URL's, which wins over PREFECT_API_URL (loadConfig).
  else if (fromFile.CONFORMANCE_BASE_URL) target = `baseUrl in ${file}`;
  else if (process.env.PREFECT_API_URL) target = 'PREFECT_API_URL';
  // A managed release asked for names the target too: the profile's server is not it.
  // (An empty value, as a managed side of compare sets, names no target and forbids the profile's.)
  const named =
    ['CONFORMANCE_BASE_URL', 'PREFECT_API_URL'].some((k) => k in env) || Boolean(env.CONFORMANCE_PREFECT_VERSION);
  if (!named) {
    const profile = activeProfileTarget(env);
    if (profile) {
      target = profile.source;
      // The profile's credentials go with its own URL only, and never over ones the user set.
      for (const [k, v] of Object.entries(profile.env)) if (!(k in env)) env[k] = v;
    }
  }
  // The settings named as the user gave them: the flag typed, or the file's key, not the variable behind it.
  const givenAs: Record<string, string> = {};
  for (const option of RUN_OPTIONS) {
    const variable = option.env;
    if (variable in flags) givenAs[variable] = option.flag;
    else if (variable in fromFile && !(variable in process.env) && !(variable in overrides) && option.key)
      givenAs[variable] = `${option.key} in ${file}`;
  }
  try {
    return { ...loadConfig(env, { target, configFile: file }), givenAs };
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    throw new UsageError(asGiven(e.message, givenAs));
  }
}

/** A message with each variable it names replaced by how the user gave the setting (Config.givenAs). */
export const asGiven = (message: string, givenAs: Record<string, string> = {}): string =>
  message.replace(/\bCONFORMANCE_[A-Z_]+\b/g, (variable) => givenAs[variable] ?? variable);

/** The selection of a run in one line, or undefined when it covers everything. */
export const selectionLine = (config: Pick<Config, 'selection'>): string | undefined =>
  isPartial(config.selection) ? describeSelection(config.selection) : undefined;

/** Whether the report folder was named (a flag, the file's key, the variable), not the default's. */
export const outFolderGiven = (config: Pick<Config, 'givenAs'>): boolean =>
  Boolean(config.givenAs?.CONFORMANCE_OUT || process.env.CONFORMANCE_OUT);

/** The secrets of a config, so that every writer can redact them. */
export function secretsOf(config: Pick<Config, 'apiKey' | 'authString'>): string[] {
  const out: string[] = [];
  if (config.apiKey) out.push(config.apiKey);
  if (config.authString) {
    out.push(config.authString, Buffer.from(config.authString).toString('base64'));
    const password = config.authString.slice(config.authString.indexOf(':') + 1);
    if (password.length >= 4) out.push(password);
  }
  return out;
}

/** GitHub Actions, when the run is inside it: annotations for failed checks, and the file of the step summary. */
export function githubActions(env: Env = process.env): { annotations: boolean; stepSummary?: string } {
  return { annotations: Boolean(env.GITHUB_ACTIONS), stepSummary: env.GITHUB_STEP_SUMMARY || undefined };
}
