/**
 * `conformance explore` beside Schemathesis, the tool a user would pick instead (a measuring stick, never a
 * dependency of the suite). Each on a fresh Prefect of one release (SQLite, services off, by URL), for the same
 * minutes: the suite's explore, then Schemathesis's `st run --checks all` in a loop of seeds, each seed starting
 * only where the longest so far ends in time, as explore's do. Each tool's server errors are counted from its own
 * log of exchanges (the suite's `.run/exchanges.jsonl` of every seed, Schemathesis's HAR of every seed): the
 * operations that answered a 5xx other than a retryable 503, and those only one tool met; and the distinct
 * causes in each server's log (the exceptions behind them), and those only one tool's server logged. Writes
 * reports/side-by-side-<release>.json and prints the table.
 *
 * `--default` measures the default run instead (the acceptance of issue 64): the suite's run with nothing
 * configured but the URL, beside one Schemathesis run at seed 1 (`--st-seed N`: at seed N; the suite's run is
 * the default one whatever N is), each on a fresh server of its own.
 *
 * usage: npx tsx test/support/fuzzSideBySide.ts --st PATH_TO_st [--prefect-version X] [--minutes N | --default [--st-seed N]]
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { readExchangeLog } from '../../src/config/exchangeLog.js';
import { readPin, startPrefect } from '../../src/managed/prefect.js';
import { installedRelease } from '../../src/managed/releasePins.js';
import { cleanEnv, repoRoot } from './runCli.js';

const { values } = parseArgs({
  options: {
    st: { type: 'string' },
    'prefect-version': { type: 'string' },
    minutes: { type: 'string', default: '10' },
    default: { type: 'boolean', default: false },
    'st-seed': { type: 'string', default: '1' },
  },
});
if (!values.st) {
  process.stderr.write(
    'usage: npx tsx test/support/fuzzSideBySide.ts --st PATH_TO_st [--prefect-version X] [--minutes N | --default [--st-seed N]]\n',
  );
  process.exit(2);
}
const minutes = Number(values.minutes);
/** The default run against one Schemathesis run, rather than explore against a loop of seeds for the minutes. */
const once = values.default;
const version = readPin(values['prefect-version']).prefect;
const work = path.join(os.tmpdir(), `side-by-side-${version}-${Date.now()}`);

/** A command to its end in the folder of the log file (Schemathesis leaves its cache there), its output in that file. */
function run(command: string, args: string[], env: NodeJS.ProcessEnv, logFile: string): Promise<number> {
  const child = spawn(command, args, { env, cwd: path.dirname(logFile), stdio: ['ignore', 'pipe', 'pipe'] });
  const out: Buffer[] = [];
  child.stdout.on('data', (b: Buffer) => out.push(b));
  child.stderr.on('data', (b: Buffer) => out.push(b));
  return new Promise((resolve) =>
    child.on('exit', (code) => {
      writeFileSync(logFile, Buffer.concat(out));
      resolve(code ?? 1);
    }),
  );
}

/** A fresh Prefect of the release for one tool. */
async function freshServer() {
  const { bin } = await installedRelease(version, () => {});
  return startPrefect({ database: 'sqlite', version, bin });
}

/** The document's paths as patterns, the most literal first: a URL's path names its operation's template. */
function templateOf(doc: { paths: Record<string, unknown> }): (method: string, urlPath: string) => string {
  const patterns = Object.keys(doc.paths)
    .sort((a, b) => (a.match(/\{/g)?.length ?? 0) - (b.match(/\{/g)?.length ?? 0))
    .map((p) => ({ p, re: new RegExp(`^${p.replace(/\{[^}]+\}/g, '[^/]+')}$`) }));
  return (method, urlPath) => `${method} ${patterns.find(({ re }) => re.test(urlPath))?.p ?? urlPath}`;
}

const serverError = (status: number) => status >= 500 && status !== 503;

async function suiteSide(): Promise<Set<string>> {
  const server = await freshServer();
  const out = path.join(work, 'suite');
  const baseline = path.join(repoRoot, 'fixtures', 'baselines', `prefect-${version}.json`);
  const code = await run(
    path.join(repoRoot, 'bin', 'conformance'),
    once ? [] : ['explore', '--minutes', String(minutes)],
    cleanEnv({
      CONFORMANCE_BASE_URL: server.baseUrl,
      CONFORMANCE_DISPOSABLE_TARGET: '1',
      CONFORMANCE_OUT: out,
      CONFORMANCE_TARGET_LABEL: `prefect ${version} on sqlite`,
      ...(existsSync(baseline) ? { CONFORMANCE_BASELINE: baseline } : {}),
    }),
    path.join(work, 'suite.log'),
  );
  await server.stop({ keepLogAt: path.join(work, 'suite-server.log') });
  process.stderr.write(`suite: ${once ? 'the default run' : 'explore'} exited ${code}\n`);
  const logs = once
    ? [path.join(out, '.run', 'exchanges.jsonl')]
    : readdirSync(path.join(out, 'seeds')).map((seed) => path.join(out, 'seeds', seed, '.run', 'exchanges.jsonl'));
  const met = new Set<string>();
  for (const log of logs)
    for (const x of readExchangeLog(log)) if (serverError(x.status)) met.add(`${x.method} ${x.template}`);
  return met;
}

async function schemathesisSide(): Promise<{ met: Set<string>; seeds: number }> {
  const server = await freshServer();
  const doc = (await (await fetch(`${server.baseUrl}/openapi.json`)).json()) as { paths: Record<string, unknown> };
  const template = templateOf(doc);
  const dir = path.join(work, 'schemathesis');
  mkdirSync(dir, { recursive: true });
  const deadline = Date.now() + minutes * 60_000;
  let longest = 0;
  let seeds = 0;
  for (let seed = Number(values['st-seed']); seeds === 0 || (!once && Date.now() + longest <= deadline); seed++) {
    const started = Date.now();
    const har = path.join(dir, `seed-${seed}.har`);
    await run(
      values.st!,
      [
        'run',
        `${server.baseUrl}/openapi.json`,
        '--url',
        server.baseUrl,
        '--checks',
        'all',
        '--max-examples',
        '25',
        '--workers',
        '2',
        '--seed',
        String(seed),
        '--report',
        'har',
        '--report-har-path',
        har,
      ],
      process.env,
      path.join(dir, `seed-${seed}.log`),
    );
    longest = Math.max(longest, Date.now() - started);
    seeds++;
  }
  await server.stop({ keepLogAt: path.join(work, 'schemathesis-server.log') });
  const met = new Set<string>();
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.har'))) {
    const har = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as {
      log: { entries: Array<{ request: { method: string; url: string }; response: { status: number } }> };
    };
    for (const e of har.log.entries)
      if (serverError(e.response.status))
        met.add(template(e.request.method, new URL(e.request.url).pathname.replace(/^\/api/, '')));
  }
  return { met, seeds };
}

/**
 * The distinct causes of the server errors a server logged (the last line of each traceback: the exception and
 * its message), with ids, numbers, quoted values and SQL masked so that one cause is one line. An IntegrityError
 * is left out: Prefect logs it as it logs a crash, and answers it 409 (api/server.py, integrity_exception_handler).
 */
function causesIn(serverLog: string): Set<string> {
  const causes = new Set<string>();
  for (const line of readFileSync(serverLog, 'utf8').split('\n')) {
    const m = /^([A-Za-z_.]+(?:Error|Exception)): (.*)/.exec(line);
    if (!m || m[1].endsWith('.IntegrityError')) continue;
    const message = m[2]
      .replace(/\[SQL:.*/, '')
      .replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, '<id>')
      .replace(/\d{3,}/g, '<n>')
      .replace(/'[^']*'/g, "'…'")
      .slice(0, 110);
    causes.add(`${m[1].split('.').at(-1)}: ${message}`);
  }
  return causes;
}

async function main() {
  mkdirSync(work, { recursive: true });
  const suite = await suiteSide();
  const st = await schemathesisSide();
  const only = (a: Set<string>, b: Set<string>) => [...a].filter((x) => !b.has(x)).sort();
  const result = {
    release: version,
    ...(once ? { run: 'default', schemathesisSeed: Number(values['st-seed']) } : { minutes }),
    work,
    suite: { operations: suite.size, only: only(suite, st.met) },
    schemathesis: { seeds: st.seeds, operations: st.met.size, only: only(st.met, suite) },
    both: [...suite].filter((x) => st.met.has(x)).sort(),
    // The same by cause, from each server's log: the exceptions behind its server errors (and its 503s).
    causes: (() => {
      const [a, b] = ['suite', 'schemathesis'].map((side) => causesIn(path.join(work, `${side}-server.log`)));
      return { suite: a.size, schemathesis: b.size, onlySuite: only(a, b), onlySchemathesis: only(b, a) };
    })(),
  };
  mkdirSync(path.join(repoRoot, 'reports'), { recursive: true });
  const name = `side-by-side-${version}${once ? `-default-st${values['st-seed']}` : ''}.json`;
  writeFileSync(path.join(repoRoot, 'reports', name), JSON.stringify(result, null, 2));
  process.stdout.write(
    `prefect ${version}, ${once ? 'one run' : `${minutes} min`} each: operations answering a 5xx other than 503\n` +
      `  suite (${once ? 'default run' : 'explore'})  ${suite.size}, only it: ${result.suite.only.join(', ') || 'none'}\n` +
      `  schemathesis (${st.seeds} seeds) ${st.met.size}, only it: ${result.schemathesis.only.join(', ') || 'none'}\n` +
      `  both                   ${result.both.length}\n` +
      `causes in the servers' logs: suite ${result.causes.suite}, schemathesis ${result.causes.schemathesis}; only schemathesis's:\n` +
      result.causes.onlySchemathesis.map((c) => `  ${c}\n`).join(''),
  );
  if (!once) rmSync(path.join(work, 'suite', 'seeds'), { recursive: true, force: true });
}

main().catch((e: unknown) => {
  process.stderr.write(`side-by-side: ${(e as Error).message}\n`);
  process.exit(1);
});
