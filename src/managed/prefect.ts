/**
 * The managed reference server: a real Prefect from PyPI, at the pinned version, in a venv cached per
 * user and keyed by version, started on a free port with a fresh home and database, and stopped on exit.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
  createWriteStream,
  mkdirSync,
  readdirSync,
} from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { UsageError, type Database } from '../config/config.js';
import { inheritedEnvironment, managedServerSettings } from '../config/managedSettings.js';
import { seedDatabase } from './sqliteTemplate.js';
import { repoRoot } from '../config/repoRoot.js';

/** What one Prefect release needs on today's package index to install and start (prefect-versions.json). */
export interface PrefectPin {
  prefect: string;
  /** Packages held at a version (pip -c). */
  constraints: string[];
  /** Packages the release imports without declaring them. */
  add: string[];
  /** Why, as found by installing and starting it; absent for a version the table does not list. */
  why?: string;
  /**
   * Install what the package index held at this instant (ISO 8601) and nothing newer: the dependencies of the
   * release's own time (uv's --exclude-newer), for a release today's versions no longer start.
   */
  excludeNewer?: string;
}

export interface VersionTable {
  pin: string;
  versions: Record<string, Omit<PrefectPin, 'prefect'>>;
  unavailable: Record<string, string>;
}

export function versionTable(): VersionTable {
  return JSON.parse(readFileSync(path.join(repoRoot, 'prefect-versions.json'), 'utf8')) as VersionTable;
}

/** The versions the table lists (the pin first), for help and --version. */
export function knownVersions(): string[] {
  const table = versionTable();
  return [table.pin, ...Object.keys(table.versions).filter((v) => v !== table.pin)];
}

/**
 * The first release whose server refuses requests without `PREFECT_SERVER_API_AUTH_STRING`'s credentials
 * (read in each release's prefect/server/api/server.py: 3.1.7 has no such check, 3.1.8 has it). Before it,
 * the setting is ignored.
 */
const ENFORCES_AUTH_STRING_SINCE = [3, 1, 8];

/** Whether a managed server of this release can be started with credentials it enforces. */
export function enforcesAuthString(version: string): boolean {
  const parts = version.split(/[.a-z]+/i).map(Number);
  for (let i = 0; i < ENFORCES_AUTH_STRING_SINCE.length; i++)
    if ((parts[i] ?? 0) !== ENFORCES_AUTH_STRING_SINCE[i]) return (parts[i] ?? 0) > ENFORCES_AUTH_STRING_SINCE[i];
  return true;
}

/**
 * HTTP Basic credentials made for one run of a managed server of this release, where the release enforces
 * them (else undefined): the suite's own server is started with them, so that the auth family judges it.
 */
export function runCredentials(version: string): string | undefined {
  return enforcesAuthString(version) ? `conformance:${randomBytes(18).toString('base64url')}` : undefined;
}

/** The pins of one release, the pinned one by default; a release the table does not list is installed as published. */
export function readPin(version?: string, table: VersionTable = versionTable()): PrefectPin {
  const prefect = version ?? table.pin;
  if (!/^\d+\.\d+\.\d+([a-z]+\d+)?$/.test(prefect))
    throw new UsageError(`--prefect-version must be a Prefect release such as ${table.pin}, got "${prefect}"`);
  if (table.unavailable[prefect])
    throw new UsageError(
      `Prefect ${prefect} cannot be installed here: ${table.unavailable[prefect]} (prefect-versions.json)`,
    );
  const entry = table.versions[prefect] ?? { constraints: [], add: [] };
  return { prefect, ...entry };
}

export function venvDir(pin: PrefectPin = readPin()): string {
  return path.join(managedServerSettings().cacheDir, `prefect-${pin.prefect}`);
}

function run(cmd: string, args: string[], what: string): void {
  const result = spawnSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  if (result.status !== 0) {
    const tail = `${result.stdout ?? ''}${result.stderr ?? ''}`
      .split('\n')
      .filter((l) => l && !l.startsWith('WARNING'))
      .slice(-5)
      .join(' | ');
    throw new Error(`${what} failed (exit ${result.status}): ${tail || result.error?.message}`);
  }
}

/** pip's "no such version" in a line, with the newest it has, rather than its whole list of versions. */
export function notOnIndex(version: string, pipMessage: string): string | undefined {
  const listed = /Could not find a version that satisfies the requirement[^(]*\(from versions: ([^)]*)\)/.exec(
    pipMessage,
  );
  if (!listed) return undefined;
  const versions = listed[1].split(',').map((v) => v.trim());
  return `the package index has no prefect ${version} (its newest: ${versions.at(-1) || 'none'})`;
}

/** The uv the suite installs from PyPI: it installs a release in a fraction of pip's time, and as of a date (`excludeNewer`). */
const UV = '0.13.9';

/** uv, installed once into the cache by pip; undefined where pip cannot install it (then pip does the work). */
function uvBinary(log: (line: string) => void): string | undefined {
  const dir = path.join(managedServerSettings().cacheDir, `uv-${UV}`);
  const bin = path.join(dir, 'bin', 'uv');
  if (existsSync(bin)) return bin;
  log(`installing uv ${UV} into ${dir}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(path.dirname(dir), { recursive: true });
  try {
    run(managedServerSettings().python, ['-m', 'venv', dir], 'creating the venv for uv');
    run(path.join(dir, 'bin', 'pip'), ['install', '--disable-pip-version-check', '-q', `uv==${UV}`], 'pip install uv');
    return bin;
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    log(`uv could not be installed (${(e as Error).message}): pip installs instead`);
    return undefined;
  }
}

/** One step of an install: a command, its arguments, and what it does (named when it fails). */
export interface InstallStep {
  cmd: string;
  args: string[];
  what: string;
}

/**
 * The commands that install a release into `dir`: uv's where uv is given, else pip's, with the same
 * requirements and the same constraints file. A release pinned to a date (`excludeNewer`) needs uv: pip has
 * no such option.
 */
export function installSteps(
  pin: PrefectPin,
  dir: string,
  constraints: string,
  tools: { python: string; packageIndex: string; uv?: string },
): InstallStep[] {
  const requirements = [`prefect==${pin.prefect}`, ...pin.add, '-c', constraints];
  if (tools.uv)
    return [
      { cmd: tools.uv, args: ['venv', '-q', '--python', tools.python, dir], what: 'creating the venv' },
      {
        cmd: tools.uv,
        args: [
          'pip',
          'install',
          '-q',
          '--python',
          path.join(dir, 'bin', 'python'),
          ...(pin.excludeNewer ? ['--exclude-newer', pin.excludeNewer] : []),
          // uv reads its own index setting, not pip's: the one pip reads is named.
          '--index-url',
          tools.packageIndex,
          ...requirements,
        ],
        what: `uv pip install prefect==${pin.prefect}${pin.excludeNewer ? ` --exclude-newer ${pin.excludeNewer}` : ''}`,
      },
    ];
  if (pin.excludeNewer)
    throw new Error(`Prefect ${pin.prefect} installs as of ${pin.excludeNewer}, which needs uv, and uv is not here`);
  return [
    { cmd: tools.python, args: ['-m', 'venv', dir], what: 'creating the venv' },
    {
      cmd: path.join(dir, 'bin', 'pip'),
      args: ['install', '--disable-pip-version-check', '-q', ...requirements],
      what: `pip install prefect==${pin.prefect}`,
    },
  ];
}

/** The venv's marker: what was installed in it, so that a cached venv is used only for the same pins. */
const installedMarker = (pin: PrefectPin) =>
  JSON.stringify({
    prefect: pin.prefect,
    constraints: pin.constraints,
    add: pin.add,
    ...(pin.excludeNewer ? { excludeNewer: pin.excludeNewer } : {}),
  });

/** The pins a cached venv of this release was installed with, if one is there. */
export function installedPin(version: string): PrefectPin | undefined {
  const dir = venvDir({ prefect: version, constraints: [], add: [] });
  const marker = path.join(dir, '.installed');
  if (!existsSync(marker) || !existsSync(path.join(dir, 'bin', 'prefect'))) return undefined;
  try {
    return JSON.parse(readFileSync(marker, 'utf8')) as PrefectPin;
  } catch {
    return undefined;
  }
}

/**
 * Install a Prefect release (the pin by default) into its cached venv unless it is there already; returns the
 * prefect binary. uv installs it (CONFORMANCE_INSTALLER=pip asks for pip, which also serves where uv cannot be had).
 */
export function ensurePrefect(log: (line: string) => void = () => {}, pin: PrefectPin = readPin()): string {
  const dir = venvDir(pin);
  const marker = path.join(dir, '.installed');
  const wanted = installedMarker(pin);
  const bin = path.join(dir, 'bin', 'prefect');
  if (existsSync(marker) && readFileSync(marker, 'utf8') === wanted && existsSync(bin)) return bin;
  const settings = managedServerSettings();
  const uv = settings.installer === 'uv' || pin.excludeNewer ? uvBinary(log) : undefined;
  log(`installing prefect ${pin.prefect} into ${dir} (${uv ? 'uv' : 'pip'})`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(path.dirname(dir), { recursive: true });
  const constraints = path.join(path.dirname(dir), `constraints-${pin.prefect}.txt`);
  writeFileSync(constraints, `${pin.constraints.join('\n')}\n`);
  const hint = pin.why ? '' : ` (Prefect ${pin.prefect} is not in prefect-versions.json: it may need pins there)`;
  try {
    for (const step of installSteps(pin, dir, constraints, { ...settings, uv })) run(step.cmd, step.args, step.what);
  } catch (e) {
    // A failed install leaves nothing behind: the next try starts clean, and no half venv fills the cache.
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`${notOnIndex(pin.prefect, (e as Error).message) ?? (e as Error).message}${hint}`);
  }
  writeFileSync(marker, wanted);
  return bin;
}

/**
 * Some releases (3.0.11 and 2.20.26 among those tried) have no `--no-services` flag: their background
 * services (scheduler, late runs, event persister, triggers, ...) are turned off one by one through their
 * settings, which 2.x and 3.x releases read under these names. Reading the installed CLI's source tells which kind a release is
 * without starting a process.
 */
const SERVICES = [
  'SCHEDULER',
  'LATE_RUNS',
  'FLOW_RUN_NOTIFICATIONS',
  'FOREMAN',
  'CANCELLATION_CLEANUP',
  'PAUSE_EXPIRATIONS',
  'TASK_RUN_RECORDER',
  'TRIGGERS',
  'EVENT_PERSISTER',
  'MARKETING',
];

function hasNoServicesFlag(bin: string): boolean {
  const lib = path.join(path.dirname(bin), '..', 'lib');
  for (const python of existsSync(lib) ? readdirSync(lib) : []) {
    const cli = path.join(lib, python, 'site-packages', 'prefect', 'cli', 'server.py');
    if (existsSync(cli)) return readFileSync(cli, 'utf8').includes('--no-services');
  }
  return false;
}

/**
 * `managed:sqlite`, `managed:postgres` (the release --prefect-version names, else the pin), or
 * `managed:prefect@X` and `managed:prefect@X/postgres` (release X); undefined for any other side.
 */
export function managedSide(arg: string): { version?: string; database: 'sqlite' | 'postgres' } | undefined {
  const db = /^managed:(sqlite|postgres)$/.exec(arg);
  if (db) return { database: db[1] as 'sqlite' | 'postgres' };
  const release = /^managed:prefect@([^/\s]+)(?:\/(sqlite|postgres))?$/.exec(arg);
  if (release) return { version: release[1], database: (release[2] ?? 'sqlite') as 'sqlite' | 'postgres' };
  return undefined;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface ManagedServer {
  baseUrl: string;
  /** The server's process (its services run in it or in its children). */
  pid: number;
  /** The Prefect release it runs. */
  version: string;
  database: Database;
  /** On PostgreSQL, the database of its own it was started on (dropped when it stops). */
  dbName?: string;
  home: string;
  logFile: string;
  /** Stop the server and drop its database; `keepLogAt` keeps a copy of its log (a run's reports hold it). */
  stop(options?: { keepLogAt?: string }): Promise<void>;
}

export interface StartOptions {
  database?: Database;
  /** Turns on the server's HTTP Basic auth. */
  authString?: string;
  /** The Prefect release; the pin by default. */
  version?: string;
  startupDeadlineMs?: number;
  log?: (line: string) => void;
  /**
   * Leave the background services on (scheduler, event persister, triggers, ...), as `prefect server start`
   * runs them for a user; off by default, so that a run's own writes are all the server does.
   */
  services?: boolean;
  /** The prefect binary of a venv already installed (managed/releasePins.ts); else the release's, installed now. */
  bin?: string;
  /**
   * An existing database (its SQLAlchemy URL) the server runs on as it is: neither seeded nor dropped when the
   * server stops (`conformance upgrade` starts two releases on one database).
   */
  databaseUrl?: string;
}

/** The machine's PostgreSQL, where a managed server on PostgreSQL gets a database of its own. */
export const PG = { host: '127.0.0.1', port: 5432, user: 'postgres' };

function psql(sql: string): void {
  run(
    'psql',
    ['-h', PG.host, '-p', String(PG.port), '-U', PG.user, '-d', 'postgres', '-v', 'ON_ERROR_STOP=1', '-qc', sql],
    `psql: ${sql}`,
  );
}

async function waitHealthy(baseUrl: string, child: ChildProcess, deadlineMs: number, logFile: string): Promise<void> {
  const until = Date.now() + deadlineMs;
  while (Date.now() < until) {
    if (child.exitCode !== null)
      throw new Error(`prefect server exited with code ${child.exitCode} during start-up; see ${logFile}`);
    try {
      // /health is exempt from the server's auth (facts §7), so this works with an auth string too.
      const res = await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(2000) });
      if (res.ok && (await res.text()).trim() === 'true') return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`prefect server did not become healthy within ${deadlineMs} ms; see ${logFile}`);
}

export async function startPrefect(options: StartOptions = {}): Promise<ManagedServer> {
  const log = options.log ?? (() => {});
  const database = options.database ?? 'sqlite';
  const pin = readPin(options.version);
  const bin = options.bin ?? ensurePrefect(log, pin);
  const port = await freePort();
  const home = mkdtempSync(path.join(os.tmpdir(), 'conformance-prefect-'));
  const logFile = path.join(home, 'server.log');
  const { env, args } = serverCommand(bin, port, home, options);
  if (options.databaseUrl) useDatabase(env, options.databaseUrl);
  const dbName = database === 'postgres' && !options.databaseUrl ? ownDatabase(home, env) : undefined;
  if (database === 'sqlite') seedDatabase(bin, home, env, log);
  const out = createWriteStream(logFile);
  const child = spawn(bin, args, {
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.pipe(out);
  child.stderr!.pipe(out);
  const baseUrl = `http://127.0.0.1:${port}/api`;
  const server = serverHandle(child, { baseUrl, version: pin.prefect, database, home, logFile, dbName, log });
  // Killed if this process exits first (a crash, SIGINT through the CLI's handler): none is left behind.
  process.on('exit', server.killNow);
  try {
    await waitHealthy(baseUrl, child, options.startupDeadlineMs ?? 120_000, logFile);
  } catch (e) {
    const tail = existsSync(logFile) ? readFileSync(logFile, 'utf8').split('\n').slice(-5).join(' | ') : '';
    await server.stop();
    throw new Error(`${(e as Error).message} ${tail}`);
  }
  log(`prefect ${pin.prefect} on ${database} at ${baseUrl}`);
  return server;
}

/** `prefect server start`'s arguments and environment: this port and home, no UI, services as asked. */
function serverCommand(bin: string, port: number, home: string, options: StartOptions) {
  const env = inheritedEnvironment({
    PREFECT_HOME: home,
    PREFECT_SERVER_UI_ENABLED: 'false',
    PREFECT_UI_ENABLED: 'false',
    PREFECT_SERVER_ANALYTICS_ENABLED: 'false',
    PREFECT_SERVER_API_HOST: '127.0.0.1',
    PREFECT_SERVER_API_PORT: String(port),
    PREFECT_LOGGING_LEVEL: 'WARNING',
    // A 503 is logged with its exception too: server.log then holds the cause of every 503 a run reports.
    PREFECT_SERVER_LOG_RETRYABLE_ERRORS: 'true',
  });
  for (const key of Object.keys(env))
    if (key.startsWith('PREFECT_API_') || key === 'PREFECT_SERVER_API_AUTH_STRING') delete env[key];
  const args = ['server', 'start', '--host', '127.0.0.1', '--port', String(port)];
  if (!options.services) {
    if (hasNoServicesFlag(bin)) args.push('--no-services');
    else for (const service of SERVICES) env[`PREFECT_API_SERVICES_${service}_ENABLED`] = 'false';
  }
  if (options.authString) env.PREFECT_SERVER_API_AUTH_STRING = options.authString;
  return { env, args };
}

/** A PostgreSQL database of the server's own, named after its home, set in its environment. */
function ownDatabase(home: string, env: Record<string, string | undefined>): string {
  const dbName = `conformance_${path
    .basename(home)
    .replace(/[^a-z0-9]/gi, '')
    .toLowerCase()}`;
  createPostgresDatabase(dbName);
  useDatabase(env, postgresUrl(dbName));
  return dbName;
}

/** The SQLAlchemy URL of a database of the machine's PostgreSQL. */
export const postgresUrl = (dbName: string): string =>
  `postgresql+asyncpg://${PG.user}@${PG.host}:${PG.port}/${dbName}`;

/** A new, empty database on the machine's PostgreSQL. */
export const createPostgresDatabase = (dbName: string): void => psql(`CREATE DATABASE ${dbName}`);

/** Drops a database of the machine's PostgreSQL, sessions still on it included. */
export const dropPostgresDatabase = (dbName: string): void => psql(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);

/** The database a server (or its `database upgrade`) runs on, in its environment: 3.x reads the SERVER name, 2.x the API one. */
export function useDatabase(env: Record<string, string | undefined>, url: string): void {
  env.PREFECT_SERVER_DATABASE_CONNECTION_URL = url;
  env.PREFECT_API_DATABASE_CONNECTION_URL = url;
}

/** The running server's handle: stopped once (its process group, its database, its home), or killed at exit. */
function serverHandle(
  child: ChildProcess,
  facts: Pick<ManagedServer, 'baseUrl' | 'version' | 'database' | 'dbName' | 'home' | 'logFile'> & {
    log: (line: string) => void;
  },
): ManagedServer & { killNow(): void } {
  const { log, ...shown } = facts;
  const { dbName } = facts;
  let stopped = false;
  const killGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // already gone
    }
  };
  const dropDatabase = () => {
    if (!dbName) return;
    try {
      dropPostgresDatabase(dbName);
    } catch (e) {
      log(`could not drop ${dbName}: ${(e as Error).message}`);
    }
  };
  const server: ManagedServer & { killNow(): void } = {
    ...shown,
    pid: child.pid!,
    killNow() {
      if (stopped) return;
      stopped = true;
      killGroup('SIGKILL');
      dropDatabase();
      rmSync(shown.home, { recursive: true, force: true });
    },
    async stop({ keepLogAt } = {}) {
      if (stopped) return;
      stopped = true;
      process.off('exit', server.killNow);
      if (child.exitCode === null) {
        const exited = new Promise<void>((r) => child.once('exit', () => r()));
        killGroup('SIGTERM');
        const timer = setTimeout(() => killGroup('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }
      if (keepLogAt && existsSync(shown.logFile)) copyFileSync(shown.logFile, keepLogAt);
      dropDatabase();
      rmSync(shown.home, { recursive: true, force: true });
    },
  };
  return server;
}
