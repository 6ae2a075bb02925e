/**
 * The project's second implementation of the API (specServer/app.py: written from docs/spec/ alone, its document
 * FastAPI's own), installed into a venv of its own from its pinned requirements and started on a free port. It
 * stands in our tests for the compatible servers users build; Prefect stays the reference target.
 *
 * `npx tsx test/support/specServer.ts [--port N] [--api-key KEY]` runs one from the command line and prints its
 * base URL; it serves until terminated.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { managedServerSettings } from '../../src/config/managedSettings.js';
import { freePort } from '../../src/managed/prefect.js';

const here = path.join(path.dirname(fileURLToPath(import.meta.url)), 'specServer');
const requirements = path.join(here, 'requirements.txt');
/** Where its API sits under the server's root (spec §9: `/api/:version`). */
export const SPEC_SERVER_ROOT = '/api/v1';

export interface RunningSpecServer {
  baseUrl: string;
  /** Its log (uvicorn's warnings and every traceback): a 500 of ours shows its cause here. */
  log(): string;
  stop(): Promise<void>;
}

/** The venv of the pinned requirements, made once per machine (the managed Prefect's cache folder beside it). */
export function specServerPython(): string {
  const pins = readFileSync(requirements, 'utf8');
  const key = createHash('sha256').update(pins).digest('hex').slice(0, 12);
  const venv = path.join(managedServerSettings().cacheDir, `spec-server-${key}`);
  const python = path.join(venv, 'bin', 'python');
  const ready = path.join(venv, '.installed');
  if (existsSync(ready)) return python;
  execFileSync(managedServerSettings().python, ['-m', 'venv', '--clear', venv], { stdio: 'ignore' });
  execFileSync(python, ['-m', 'pip', 'install', '-q', '--disable-pip-version-check', '--no-deps', '-r', requirements], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  writeFileSync(ready, pins);
  return python;
}

/** Start one; it answers its document before this resolves. */
export async function startSpecServer(options: { port?: number; apiKey?: string } = {}): Promise<RunningSpecServer> {
  const python = specServerPython();
  const port = options.port ?? (await freePort());
  const args = [
    path.join(here, 'app.py'),
    '--port',
    String(port),
    ...(options.apiKey ? ['--api-key', options.apiKey] : []),
  ];
  const child = spawn(python, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout?.on('data', (d) => (log += d));
  child.stderr?.on('data', (d) => (log += d));
  const baseUrl = `http://127.0.0.1:${port}${SPEC_SERVER_ROOT}`;
  await answering(`${baseUrl}/openapi.json`, child, () => log);
  return {
    baseUrl,
    log: () => log,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

async function answering(url: string, child: ChildProcess, log: () => string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) throw new Error(`the spec server ended (${child.exitCode}): ${log()}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`the spec server did not answer ${url} within 10 s: ${log()}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const { values } = parseArgs({ options: { port: { type: 'string' }, 'api-key': { type: 'string' } } });
  const server = await startSpecServer({
    port: values.port ? Number(values.port) : undefined,
    apiKey: values['api-key'],
  });
  process.stdout.write(`${server.baseUrl}\n`);
  const stop = () => void server.stop().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
