/**
 * `npm run conformance [-- run] [flags]`: the supervisor of a run. It validates the configuration, starts
 * the managed Prefect server when no target is given, checks that the target serves a valid document,
 * runs the suites (vitest, in this process), cleans up exactly what the run created, and sets the exit code.
 * Commands, flags and help come from commander, flags from the one option table (config/options.ts).
 * Bad input: one line on stderr and exit code 2.
 */
import {
  appendFileSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError, Option } from 'commander';
import {
  asGiven,
  configFrom,
  githubActions,
  quietRequested,
  selectionLine,
  UsageError,
  type Config,
  type Env,
} from './config/config.js';
import { flagsNpmTook } from './config/npmRun.js';
import { CONFIG_OPTION, OPTION_GROUPS, RUN_OPTIONS, type RunOption, SECRET_VARIABLES } from './config/options.js';
import { narrowsChecks, selectsOperation } from './config/selection.js';
import {
  handOver,
  runFiles,
  suitesStartWith,
  workerStart,
  type TargetIdentity,
  type WorkerStart,
} from './config/worker.js';
import { readExchangeLog } from './http/behaviour.js';
import { joinedPacing } from './http/pacing.js';
import { entryName, isExpired, loadBaseline, loadBaselineForUpdate } from './report/baseline.js';
import {
  chooseBaseline,
  namedBaselineFile,
  shippedBaselines,
  type BaselineChoice,
  type ReleaseClues,
} from './report/baselineChoice.js';
import { compareRuns, comparisonRegressed, targetName, type ComparedSide } from './report/compare.js';
import { compareHtml, compareMarkdown } from './report/compareReport.js';
import { htmlReport } from './report/html.js';
import { markdownSummary } from './report/markdown.js';
import { updatedBaseline } from './report/baselineUpdate.js';
import { staleEntries, verificationMarkdown, verifyBaseline } from './report/baselineVerify.js';
import { findingsMarkdown } from './report/findings.js';
import { junitReport } from './report/junit.js';
import {
  type CheckResult,
  exitCodeOf,
  gates,
  reasonsNothingCounts,
  summarize,
  type Results,
} from './report/results.js';
import { terminalSummary, verdictLine } from './report/terminal.js';
import { clearReplaced, discard, freshStagingFolder, publish, shownPath } from './report/publish.js';
import { TOOL } from './report/tool.js';
import { checkListing, checkListMarkdown } from './report/checkList.js';
import { specDrift } from './openapi/drift.js';
import {
  enforcesAuthString,
  knownVersions,
  managedSide,
  readPin,
  startPrefect,
  type ManagedServer,
} from './managed/prefect.js';
import { openThread, sibling } from './run/thread.js';
import { startSuites, type Suites } from './run/suitesInProcess.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function log(line: string): void {
  if (!quietRequested()) process.stderr.write(`conformance: ${line}\n`);
}

/** Every reporter of a run, by file: they replace the configured ones, as `--reporter` flags would. */
function reporters(): string[] {
  const file = (name: string) => path.join(repoRoot, 'src', 'report', name);
  return [
    file('vitestReporter.ts'),
    file('allureReporter.ts'),
    // Annotations in GitHub Actions.
    ...(githubActions().annotations ? [file('githubActionsReporter.ts')] : []),
  ];
}

/** The suites of a run, by vitest in this process, given what they know at their start. */
function runSuites(start: WorkerStart): Suites {
  const names = reporters();
  // Progress unless asked to be quiet: a line rewritten in place at a terminal, plain lines in CI or a pipe.
  if (!start.quiet) names.push(path.join(repoRoot, 'src', 'report', 'progress.ts'));
  // vitest's sharding splits the suite files; each shard also leaves a blob report for `merge` (i/n: blob-i-n.json).
  const blobFile = start.shard && path.join(start.outDir, 'blob', `blob-${start.shard.replace('/', '-')}.json`);
  if (blobFile) names.push('blob');
  const startedWith = suitesStartWith(start);
  const suites = startSuites({ root: repoRoot, reporters: names, shard: start.shard, blobFile, log });
  void suites.ended.finally(startedWith);
  return suites;
}

/** A results.json named by itself or by its folder. */
const resultsFileIn = (arg: string): string =>
  existsSync(arg) && statSync(arg).isDirectory() ? path.join(arg, 'results.json') : arg;

function readResults(file: string): Results | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Results;
  } catch {
    return undefined;
  }
}

/** The baselines the suite ships, one per release (`<profile>-<release>.json`). */
const SHIPPED_BASELINES = path.join(repoRoot, 'fixtures', 'baselines');

/** A selection of none of the document's operations, said as the user gave it. */
function selectsNoOperation(config: Config, of: number): UsageError {
  const selection = config.selection;
  return new UsageError(
    selection.operations && Object.keys(selection).length === 1
      ? asGiven(
          `CONFORMANCE_OPERATIONS "${selection.operations.replace(/\\\//g, '/')}" selects none of the document's ${of} operations ("METHOD /path")`,
          config.givenAs,
        )
      : `the selection (${selectionLine(config)}) selects none of the document's ${of} operations`,
  );
}

/** The operations of a managed release's document as its shipped baseline records them, if it ships one for that release. */
function shippedOperations(version: string): string[] | undefined {
  return shippedBaselines(SHIPPED_BASELINES, 'prefect').find((b) => b.release === version)?.operations;
}

const operationOfKey = (key: string) => ({ key, method: key.slice(0, key.indexOf(' ')) });

/** The baseline of a run (report/baselineChoice.ts: a file named, none, or the shipped one the rule finds). */
function baselineOf(config: Pick<Config, 'baselinePath'>, profile: string, clues: ReleaseClues): BaselineChoice {
  return chooseBaseline(config.baselinePath, profile, clues, shippedBaselines(SHIPPED_BASELINES, profile), (file) =>
    path.relative(repoRoot, file),
  );
}

/** A target's label, from what was found of it: `prefect 3.8.8 on sqlite`; baseline entries' `onlyOn` match it. */
function labelOf(profile: string, identity: TargetIdentity): string {
  const release = identity.release ? ` ${identity.release.version}` : '';
  const database = identity.database ? ` on ${identity.database.name ?? 'an unknown database'}` : '';
  return `${profile}${release}${database}`;
}

/** The reports every run ends with, sharded or not; returns the exit code. */
function writeReports(results: Results, outDir: string): number {
  results.exitCode = exitCodeOf(results);
  writeFileSync(path.join(outDir, 'results.json'), JSON.stringify(results, null, 2));
  writeFileSync(path.join(outDir, 'junit.xml'), junitReport(results));
  writeFileSync(path.join(outDir, 'summary.md'), markdownSummary(results));
  // GitHub Actions shows this file on the run's page: the summary goes there without a workflow step to copy it.
  const { stepSummary } = githubActions();
  if (stepSummary) appendFileSync(stepSummary, `${markdownSummary(results)}\n`);
  writeFileSync(path.join(outDir, 'index.html'), htmlReport(results));
  process.stdout.write(`${terminalSummary(results)}\n`);
  return results.exitCode;
}

/**
 * One run: everything is written to a fresh staging folder and moved into the report folder when the run
 * ends. A run that fails before its suites start (an unreachable target, a selection of nothing, a bad
 * baseline) leaves the previous reports as they were. Once the suites have judged, the previous run's
 * entries of the names this run has written go (clearReplaced), while cleanup ends.
 */
/** `verdictLast`: the run's last line is its verdict (replay prints its cases first, then the verdict itself). */
async function runCommand(
  flags: Env,
  overrides: Env = {},
  narrow: (c: Config) => Config = (c) => c,
  verdictLast = true,
): Promise<number> {
  const requested = narrow(configFrom(flags, overrides));
  const stage = freshStagingFolder(requested.outDir);
  let ended = false;
  let clearing: Promise<void> | undefined;
  try {
    const code = await runInto({ ...requested, outDir: stage }, () => {
      clearing = clearReplaced(stage, requested.outDir);
    });
    ended = true;
    return code;
  } finally {
    const where = shownPath(requested.outDir);
    // What it could not delete, publish replaces.
    await clearing?.catch(() => {});
    if (ended) {
      publish(stage, requested.outDir);
      log(`reports in ${where}: index.html, results.json, junit.xml, summary.md`);
      const published = verdictLast ? readResults(path.join(requested.outDir, 'results.json')) : undefined;
      if (published) process.stdout.write(`${verdictLine(published)}\n`);
    } else discard(stage); // the error says why, in its one line; the previous reports stay
  }
}

/** The most time cleanup takes after the suites, whatever the deadline. */
const CLEANUP_SECONDS_AT_MOST = 600;

/**
 * The managed server is the suite's own: unless the user gave credentials, it is started with HTTP Basic
 * credentials the run makes, where its release enforces them, so that the auth family judges it rather than
 * skipping. They are a secret of the run like any other: redacted wherever they would show.
 */
function withRunCredentials(config: Config): Config {
  if (config.baseUrl || config.apiKey || config.authString) return config;
  if (!enforcesAuthString(readPin(config.prefectVersion).prefect)) return config;
  return { ...config, authString: `conformance:${randomBytes(18).toString('base64url')}` };
}

/** `judged`: called when the suites have ended, before cleanup ends and the reports are written. */
async function runInto(asked: Config, judged: () => void = () => {}): Promise<number> {
  const config = withRunCredentials(asked);
  const startedAt = new Date().toISOString();
  const runDir = path.join(config.outDir, '.run');
  mkdirSync(runDir, { recursive: true });
  const files = runFiles(runDir);

  let server: ManagedServer | undefined;
  let interrupted = false;
  let suites: Suites | undefined;
  const onSignal = () => {
    interrupted = true;
    log('interrupted: stopping the suites, then cleaning up');
    suites?.stop();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // What the run asks before the suites start is asked in a thread that ends before they do (run/preflight.ts).
  const preflight = openThread<typeof import('./run/preflight.js')>(sibling(import.meta.url, './run/preflight.js'));
  // Cleanup waits for the suites' end in a thread of its own: vitest's reporters hold the main thread for
  // seconds after the last request (allure's ~4,000 files), and the server would wait idle meanwhile. It
  // loads its modules now, while the target is surveyed, rather than when the suites start sending.
  const cleaning = openThread<typeof import('./run/cleanupThread.js')>(
    sibling(import.meta.url, './run/cleanupThread.js'),
  );
  let handedOver = false;
  try {
    // A selection of no check is known before any server is started or asked. A selection that leaves no
    // check out cannot be one: the target is asked at once, rather than after the registry has loaded.
    if (narrowsChecks(config.selection)) {
      const checks = await preflight.call('checksSelected', config.selection);
      if (checks.selected === 0)
        throw new UsageError(
          `the selection (${selectionLine(config)}) selects none of the ${checks.of} checks (see \`conformance checks\`)`,
        );
    }
    // vitest starts now, and its start (1.3–1.9 s here) goes on while the target is started and surveyed: the
    // suites wait for what the preflight decides (handOver below) before they send anything.
    const start = workerStart(config, { runDir, startedAt });
    suites = runSuites(start);
    let baseUrl = config.baseUrl;
    // Said before anything is sent: the target a user's Prefect settings name is theirs, not the suite's.
    if (config.readOnlyBecause) log(`read-only: ${config.readOnlyBecause}`);
    // A baseline file named is read before a server is started or asked: a wrong one is bad input, at once.
    const named = namedBaselineFile(config.baselinePath);
    if (named) loadBaseline(named);
    if (!baseUrl) {
      // An unknown or uninstallable release is bad input, found before anything starts.
      const version = readPin(config.prefectVersion).prefect;
      // So is a selection of none of its operations, where the suite ships the release's operations (their
      // keys: a selection by document tag waits for the document).
      const shipped = config.specSource || config.selection.tags ? undefined : shippedOperations(version);
      if (shipped && !shipped.some((key) => selectsOperation(config.selection, operationOfKey(key))))
        throw selectsNoOperation(config, shipped.length);
      log(`no target configured: starting a managed Prefect ${version} server on ${config.database}`);
      try {
        // With an auth string and no target, the managed server is started with that auth (HTTP Basic).
        server = await startPrefect({ database: config.database, authString: config.authString, version, log });
      } catch (e) {
        throw new UsageError(`cannot start the managed Prefect server: ${(e as Error).message.split('\n')[0]}`);
      }
      baseUrl = server.baseUrl;
    }
    const credentials = { apiKey: config.apiKey, authString: config.authString };
    const spec = await preflight.call('surveyTarget', {
      ...credentials,
      baseUrl,
      source: config.specSource ?? `${baseUrl}/openapi.json`,
      timeoutMs: config.requestTimeoutMs,
      writeTo: files.spec,
    });
    for (const n of spec.normalisations)
      log(`the document needed a rewrite: ${n.description} (${n.count}×, first at ${n.first})`);
    const operations = spec.operations;
    // A selection of nothing would judge nothing: bad input, not a pass.
    if (!operations.some((op) => selectsOperation(config.selection, op)))
      throw selectsNoOperation(config, operations.length);
    const state = await preflight.call('targetState', {
      ...credentials,
      baseUrl,
      timeoutMs: config.requestTimeoutMs,
      operations,
      profile: spec.profile,
      readOnly: config.readOnly,
      // A label the user gave decides which entries apply; the managed server's database is known.
      tellDatabase: !server && !config.targetLabel,
    });
    await preflight.end();
    const reported = state.reported;
    if (reported.length) log(`the server reports ${reported.map((v) => `${v.version} (${v.from})`).join(', ')}`);
    const chosen = baselineOf(config, spec.profile, {
      given: config.serverVersion,
      managed: server?.version,
      reported: reported.find((v) => v.kind === 'release'),
      operations: operations.map((op) => op.key),
    });
    const identity: TargetIdentity = {
      release: chosen.release,
      database: server
        ? { name: server.database, how: 'the managed server' }
        : state.database && { name: state.database.database, how: state.database.how },
      baselineFrom: chosen.borrowedFrom,
    };
    if (identity.database && !server)
      log(`database: ${identity.database.name ?? 'unknown'} (${identity.database.how})`);
    const baselinePath = chosen.path;
    const baseline = loadBaseline(baselinePath);
    log(
      `target ${spec.title} ${spec.apiVersion} (OpenAPI ${spec.openapi}) at ${baseUrl} (target from ${config.targetSource}); seed ${config.seed}; run tag ${config.runTag}; baseline: ${chosen.why}`,
    );

    const managed = server ? `prefect ${server.version} on ${server.database}` : undefined;
    const targetLabel = managed ?? config.targetLabel ?? labelOf(spec.profile, identity);
    // Cleanup's time is bounded too: a target too slow for the run is often too slow to delete from. What is
    // not reached is reported (with its path) as not deleted, and the run fails, rather than the run hanging.
    const cleanupSeconds = Math.min(config.deadlineSeconds, CLEANUP_SECONDS_AT_MOST);
    await cleaning.call('watch', {
      ...credentials,
      baseUrl,
      timeoutMs: config.requestTimeoutMs,
      ledger: files.ledger,
      exchanges: files.exchanges,
      suitesEnded: files.suitesEnded,
      seconds: cleanupSeconds,
      why: `cleanup's time of ${cleanupSeconds} s ran out (the --deadline, at most ${CLEANUP_SECONDS_AT_MOST} s)`,
      maxRate: config.maxRate,
    });
    handOver(runDir, { baseUrl, specPath: files.spec, baselinePath, managed, identity, targetLabel });
    handedOver = true;
    const suitesEnd = await suites.ended;
    judged();
    // vitest has closed and its worker thread is gone: what a test that outlived its timeout created before
    // then is deleted too, and the rest of cleanup follows.
    const cleaned = await cleaning.call('finish', {
      profile: spec.profile,
      runTag: config.runTag,
      readOnly: config.readOnly,
      absentSideEffects: state.absentSideEffects,
    });

    const resultsFile = path.join(config.outDir, 'results.json');
    const expired = baseline.entries.filter((e) => isExpired(e));
    const results: Results = readResults(resultsFile) ?? {
      tool: TOOL,
      target: { baseUrl, openapi: spec.openapi, apiVersion: spec.apiVersion, profile: spec.profile },
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
    if (reported.length) results.target.serverVersions = reported;
    if (identity.release) results.target.serverVersion = identity.release.version;
    results.baseline = { file: baselinePath && path.relative(repoRoot, baselinePath), why: chosen.why };
    if (spec.normalisations.length) results.normalisations = spec.normalisations;
    results.cleanup = cleaned.report;
    // The rate limits cleanup met count with the suites'.
    if (results.timing)
      results.timing.pacing = results.timing.pacing
        ? joinedPacing(results.timing.pacing, cleaned.pacing)
        : cleaned.pacing;
    if (interrupted) (results.errors ??= []).push('interrupted before the end of the run');
    // A failure of vitest's own may leave results that look complete: the run cannot pass on them.
    if (suitesEnd.failure) (results.errors ??= []).push(suitesEnd.failure);
    // A gate must never pass on a run that judged nothing, or on a target that never answered.
    const statuses = existsSync(files.exchanges) ? readExchangeLog(files.exchanges).map((b) => b.s) : [];
    for (const reason of reasonsNothingCounts(results, statuses)) (results.errors ??= []).push(reason);
    // An expired entry fails the run: the deviation it excused was due to be fixed, or the entry reviewed.
    for (const e of expired)
      (results.errors ??= []).push(`baseline entry expired on ${e.expires}: ${entryName(e)} (${e.reason})`);
    if (results.cleanup.failed.length)
      (results.errors ??= []).push(`cleanup could not delete ${results.cleanup.failed.length} object(s)`);
    results.summary.requests += state.requests + cleaned.requests;
    results.durationMs = Date.now() - Date.parse(startedAt);
    return writeReports(results, config.outDir);
  } finally {
    await preflight.end();
    await cleaning.end();
    // A run that failed before the hand-over (bad input, an unreachable target): the waiting suites have sent
    // nothing, and go without a word.
    if (suites && !handedOver) {
      suites.stop();
      await suites.ended;
    }
    // Left when the suites never read it (interrupted first): the run folder goes with the reports.
    rmSync(files.workerConfig, { force: true });
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    // The server's own log beside the reports: a 5xx in results.json has its traceback there.
    if (server) await server.stop({ keepLogAt: path.join(config.outDir, 'server.log') });
  }
}

/** `baseline update [--from results.json] [--baseline old.json] [--out new.json]` */
function baselineUpdate(fromFile?: string, baselineFile?: string, outFile?: string): number {
  const config = configFrom({});
  const from = fromFile ?? path.join(config.outDir, 'results.json');
  const results = readResults(from);
  if (!results) throw new UsageError(`cannot read a results.json at ${from}`);
  // The baseline the run itself would have chosen, unless one is named.
  const previousFile =
    baselineFile ??
    baselineOf(config, results.target.profile, {
      given: results.target.identity?.release?.version ?? results.target.serverVersion,
      operations: results.operations.map((op) => `${op.method} ${op.path}`),
    }).path;
  const updated = updatedBaseline(loadBaselineForUpdate(previousFile), results);
  const out = outFile ?? path.join(path.dirname(from), 'baseline.json');
  writeFileSync(out, `${JSON.stringify(updated, null, 2)}\n`);
  process.stdout.write(
    `${updated.entries.length} entries written to ${out}${previousFile ? ` (from ${previousFile})` : ''}; review the diff before using it\n`,
  );
  return 0;
}

/**
 * `baseline verify [--from results.json] [--baseline file]`: whether each entry still says what the target
 * does, read from a run against it; baseline-verify.md and .json beside the results. Exit 1 when an entry is
 * stale (not reproduced, unless intermittent, or shown with another key).
 */
function baselineVerify(fromFile?: string, baselineFile?: string): number {
  const config = configFrom({});
  const from = fromFile ?? path.join(config.outDir, 'results.json');
  const results = readResults(from);
  if (!results) throw new UsageError(`cannot read a results.json at ${from}`);
  const file = baselineFile ?? (results.baseline?.file && path.resolve(repoRoot, results.baseline.file));
  if (!file) throw new UsageError('baseline verify: the run applied no baseline; name one with --baseline');
  const verified = verifyBaseline(loadBaseline(file), results);
  const shown = path.relative(process.cwd(), file);
  writeFileSync(path.join(path.dirname(from), 'baseline-verify.json'), `${JSON.stringify(verified, null, 2)}\n`);
  writeFileSync(path.join(path.dirname(from), 'baseline-verify.md'), verificationMarkdown(verified, shown));
  const stale = staleEntries(verified);
  const count = (o: string) => verified.filter((v) => v.outcome === o).length;
  process.stdout.write(
    `${shown}: ${verified.length} entries, ${count('reproduced')} reproduced, ${count('different')} different, ${count('not reproduced')} not reproduced, ${count('not judged')} not judged by this run\n`,
  );
  for (const v of stale) process.stdout.write(`  stale: ${v.entry} (${v.outcome})\n`);
  return stale.length ? 1 : 0;
}

/** `baseline findings [--out docs/findings.md]`: the real deviations of the shipped baselines, for the server's maintainers. */
async function baselineFindings(outFile = path.join(repoRoot, 'docs', 'findings.md')): Promise<number> {
  const { CHECKS } = await import('./checks/registry.js');
  const releases = shippedBaselines(SHIPPED_BASELINES, 'prefect').map((b) => ({
    release: b.release,
    baseline: loadBaseline(b.file),
  }));
  writeFileSync(outFile, findingsMarkdown(releases, CHECKS));
  process.stdout.write(`${outFile}: the deviations of ${releases.length} releases' baselines\n`);
  return 0;
}

/**
 * `merge [DIR...]`: the blob reports of the shards of a run (`--shard i/n` leaves them in <out>/blob),
 * merged by vitest's mergeReports into one results.json and the reports, as if the run had not been split.
 */
async function mergeCommand(args: string[], flags: Env): Promise<number> {
  const config = configFrom(flags);
  const dirs = args.length ? args : [path.join(config.outDir, 'blob')];
  const blobs = dirs.flatMap((dir) =>
    existsSync(dir) && statSync(dir).isDirectory()
      ? readdirSync(dir)
          .filter((f) => f.startsWith('blob-'))
          .map((f) => path.join(dir, f))
      : [],
  );
  if (blobs.length === 0) throw new UsageError(`merge: no blob reports (blob-*.json) in ${dirs.join(', ')}`);
  mkdirSync(config.outDir, { recursive: true });
  const gathered = path.join(config.outDir, '.merge');
  rmSync(gathered, { recursive: true, force: true });
  mkdirSync(gathered, { recursive: true });
  for (const blob of blobs) copyFileSync(blob, path.join(gathered, path.basename(blob)));
  rmSync(path.join(config.outDir, 'allure-results'), { recursive: true, force: true });
  // The reporters read the output folder from the worker configuration, as in a run.
  const worker = workerStart(config, { runDir: '', startedAt: new Date().toISOString() });
  const startedWith = suitesStartWith(worker);
  const { code } = await startSuites({
    root: repoRoot,
    reporters: reporters(),
    mergeReports: gathered,
    log,
  }).ended.finally(startedWith);
  const results = readResults(path.join(config.outDir, 'results.json'));
  if (!results) throw new UsageError(`merge: vitest could not merge ${blobs.length} blob report(s) (exit ${code})`);
  log(`merged ${blobs.length} shard(s): ${blobs.map((b) => path.basename(b)).join(', ')}`);
  return writeReports(results, config.outDir);
}

/** A side of `compare`: a managed server or a live URL (run the suite on it), or a results.json, its folder, or an OpenAPI document. */
async function loadSide(
  arg: string,
  name: 'A' | 'B',
  outDir: string,
  flags: Env,
): Promise<{ side: ComparedSide; document?: string }> {
  const managed = managedSide(arg);
  if (managed || /^https?:\/\//.test(arg)) {
    const dir = path.join(outDir, `compare-${name.toLowerCase()}`);
    log(`compare: running the suite on ${name} = ${arg}, reports in ${dir}`);
    // Each side names its own target: a managed side's release and database, or a URL (and no release).
    const overrides: Env = managed
      ? {
          CONFORMANCE_DB: managed.database,
          CONFORMANCE_PREFECT_VERSION: managed.version ?? flags.CONFORMANCE_PREFECT_VERSION ?? '',
          CONFORMANCE_BASE_URL: '',
          PREFECT_API_URL: '',
        }
      : { CONFORMANCE_BASE_URL: arg, CONFORMANCE_PREFECT_VERSION: '' };
    // What the side names (its target, its reports' folder) wins over the flags of the command, which apply
    // to both sides: `--out` names the comparison's folder, and each side's reports go in a folder within it.
    const side: Env = { ...overrides, CONFORMANCE_OUT: dir };
    const sideFlags = Object.fromEntries(Object.entries(flags).filter(([k]) => !(k in side)));
    await runCommand(sideFlags, side);
    arg = dir;
  }
  const file = resultsFileIn(arg);
  if (!existsSync(file))
    throw new UsageError(
      `compare: ${arg} is neither a URL, managed:sqlite, managed:postgres, managed:prefect@X[/postgres], nor a results.json or OpenAPI document`,
    );
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch (e) {
    throw new UsageError(`compare: ${file} is not JSON (${(e as Error).message})`);
  }
  if (typeof parsed.openapi === 'string') return { side: { label: path.basename(file) }, document: file };
  if (!Array.isArray(parsed.checks))
    throw new UsageError(`compare: ${file} is neither a results.json nor an OpenAPI document`);
  const results = parsed as unknown as Results;
  const runDir = path.join(path.dirname(file), '.run');
  const files = runFiles(runDir);
  const behaviours = existsSync(files.exchanges) ? readExchangeLog(files.exchanges).filter((b) => b.k) : undefined;
  return {
    side: { label: targetName(results.target), results, behaviours },
    document: existsSync(files.spec) ? files.spec : undefined,
  };
}

/** What changed from one document to the other. The loader is imported here only: a run does not need it. */
async function documentDrift(a: string, b: string) {
  const { loadDocument } = await import('./openapi/load.js');
  return specDrift((await loadDocument(a)).doc, (await loadDocument(b)).doc);
}

/** `compare A B [run flags]`: writes compare.md, compare.html and compare.json; exit 1 when B regressed against A. */
async function compareCommand(a: string, b: string, flags: Env): Promise<number> {
  const config = configFrom(flags);
  mkdirSync(config.outDir, { recursive: true });
  const sideA = await loadSide(a, 'A', config.outDir, flags);
  const sideB = await loadSide(b, 'B', config.outDir, flags);
  const drift = sideA.document && sideB.document ? await documentDrift(sideA.document, sideB.document) : undefined;
  const comparison = compareRuns(sideA.side, sideB.side, drift);
  writeFileSync(path.join(config.outDir, 'compare.json'), JSON.stringify(comparison, null, 2));
  const markdown = compareMarkdown(comparison);
  writeFileSync(path.join(config.outDir, 'compare.md'), markdown);
  writeFileSync(path.join(config.outDir, 'compare.html'), compareHtml(comparison));
  process.stdout.write(compareMarkdown(comparison, 20));
  log(`comparison in ${shownPath(config.outDir)}: compare.html, compare.md, compare.json`);
  return comparisonRegressed(comparison) ? 1 : 0;
}

/** A case of an earlier run and what a rerun made of it. */
interface ReplayedCase {
  id: string;
  operation: string;
  before: { status: string; kind?: string; key?: string };
  after?: { status: string; kind?: string; key?: string; message?: string };
  outcome: 'still fails' | 'still fails, known' | 'fails differently' | 'passes now' | 'not judged';
}

function replayOutcome(before: CheckResult, after: CheckResult | undefined): ReplayedCase['outcome'] {
  if (!after || !['passed', 'failed', 'xfail', 'xpass'].includes(after.status)) return 'not judged';
  if (after.status === 'passed' || after.status === 'xpass') return 'passes now';
  const same = (after.failures ?? []).some((f) => f.kind === before.kind && f.key === before.key);
  // Failing as the baseline says it does: the gate does not count it, and the line says so.
  if (same) return after.status === 'xfail' ? 'still fails, known' : 'still fails';
  // The failure is gone and only what the baseline names is left: the case passes as the gate sees it.
  return after.status === 'xfail' ? 'passes now' : 'fails differently';
}

/**
 * `replay [results.json | DIR] [--check ID] [--operation "METHOD /path"] [--known] [run flags]`: the failing
 * cases of an earlier run, rerun exactly (those checks on those operations, with the recorded seed) against
 * the target the flags give, each said to still fail, to fail differently, to pass now, or not to be judged.
 * The rerun applies the recorded run's baseline and gate rule unless the flags name others, and its exit
 * code is the rerun's gate verdict: the per-case lines, summary.md and the exit code say the same thing.
 */
async function replayCommand(
  source: string | undefined,
  opts: { check?: string; operation?: string; known?: boolean },
  flags: Env,
): Promise<number> {
  const config = configFrom(flags);
  const from = resultsFileIn(source ?? config.outDir);
  const previous = readResults(from);
  if (!previous) throw new UsageError(`replay: cannot read a results.json at ${from}`);
  const wanted = previous.checks.filter(
    (c) =>
      (c.status === 'failed' || (opts.known && c.status === 'xfail')) &&
      (!opts.check || c.id === opts.check || c.check === opts.check) &&
      (!opts.operation || c.operation === opts.operation),
  );
  if (wanted.length === 0) {
    const known = opts.known ? 0 : previous.checks.filter((c) => c.status === 'xfail').length;
    throw new UsageError(
      `replay: no ${opts.known ? 'failing or known-failing' : 'failing'} case in ${from}${opts.check ? ` for ${opts.check}` : ''}${opts.operation ? ` on ${opts.operation}` : ''}${known ? `; it has ${known} known deviation(s) (xfail), which --known replays` : ''}`,
    );
  }
  const cases = [...new Set(wanted.map((c) => `${c.check} ${c.operation}`))];
  const out = flags.CONFORMANCE_OUT ?? path.join(path.dirname(path.resolve(from)), 'replay');
  log(`replay: ${wanted.length} case(s) of ${from} with seed ${previous.seed}, reports in ${out}`);
  // What the recorded run judged by, unless the flags say otherwise: its seed, its baseline (a file, or none),
  // its gate rule. A rerun with another baseline would call the same answer by another name.
  const recorded: Env = {
    CONFORMANCE_OUT: out,
    CONFORMANCE_SEED: String(previous.seed),
    CONFORMANCE_BASELINE: previous.baseline?.file ? path.resolve(repoRoot, previous.baseline.file) : 'none',
    ...(previous.gateShould ? { CONFORMANCE_GATE_SHOULD: '1' } : {}),
  };
  const code = await runCommand(
    flags,
    recorded, // the flags win over it (configFrom)
    (c) => ({ ...c, selection: { ...c.selection, cases } }),
    false,
  );
  const rerun = readResults(path.join(out, 'results.json'));
  const replayed: ReplayedCase[] = wanted.map((before) => {
    const after = rerun?.checks.find((c) => c.id === before.id && c.operation === before.operation);
    return {
      id: before.id,
      operation: before.operation,
      before: { status: before.status, kind: before.kind, key: before.key },
      after: after && { status: after.status, kind: after.kind, key: after.key, message: after.message },
      outcome: replayOutcome(before, after),
    };
  });
  writeFileSync(path.join(out, 'replay.json'), `${JSON.stringify({ from, seed: previous.seed, replayed }, null, 2)}\n`);
  const gateShould = rerun?.gateShould ?? false;
  for (const [i, r] of replayed.entries()) {
    const failing = r.outcome === 'still fails' || r.outcome === 'fails differently';
    const level = wanted[i].level;
    const gated = failing && !gates(level, gateShould) ? `; ${level}: reported, not gated` : '';
    process.stdout.write(
      `${r.outcome.toUpperCase()}: ${r.id} ${r.operation}${r.after && r.outcome !== 'passes now' ? ` (${r.after.status}: ${(r.after.message ?? '').split('\n')[0].slice(0, 200)}${gated})` : ''}\n`,
    );
  }
  if (rerun) process.stdout.write(`${verdictLine(rerun)}\n`);
  return code;
}

/** `checks [--json | --markdown]`: every check of the registry. */
async function checksCommand(format: 'text' | 'json' | 'markdown'): Promise<number> {
  // The title starts with the level: one column of it is enough.
  // The registry loads every check's code (and the HTTP client): only this command needs it in the CLI.
  const { CHECKS } = await import('./checks/registry.js');
  if (format === 'json') process.stdout.write(`${JSON.stringify(checkListing(CHECKS), null, 2)}\n`);
  else if (format === 'markdown') process.stdout.write(checkListMarkdown(CHECKS));
  else
    for (const c of checkListing(CHECKS))
      process.stdout.write(`${c.id.padEnd(44)} ${c.family.padEnd(13)} ${c.title} (clause: ${c.clause})\n`);
  return 0;
}

/** `--version`: the suite's version and the API versions it knows (the pinned server, its baselines, its reference). */
function versionText(): string {
  const baselines = readdirSync(SHIPPED_BASELINES)
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.replace(/\.json$/, ''));
  const reference = JSON.parse(
    readFileSync(path.join(repoRoot, 'fixtures', 'reference', 'prefect-openapi.json'), 'utf8'),
  ) as { openapi: string; info: { title: string; version: string } };
  return [
    `${TOOL.name} ${TOOL.version}`,
    `managed server: Prefect ${readPin().prefect} (also: ${knownVersions().slice(1).join(', ')}; --prefect-version)`,
    `baselines: ${baselines.join(', ')}`,
    `reference document: ${reference.info.title} ${reference.info.version} (OpenAPI ${reference.openapi})`,
  ].join('\n');
}

/** The flags a command was given, as the variables they set (values from the environment or defaults are not flags). */
function givenFlags(command: Command): Env {
  const env: Env = {};
  for (const option of [...RUN_OPTIONS, CONFIG_OPTION]) {
    const key = new Option(option.flag).attributeName();
    if (command.getOptionValueSource(key) !== 'cli') continue;
    const value = command.getOptionValue(key) as string | boolean;
    env[option.env] = value === true ? '1' : String(value);
  }
  return env;
}

/**
 * The run flags on a command that runs the suite. `listed`: in its help (run's); compare and replay take
 * them too, for the runs they make, and their help points at run's rather than repeating 33 flags.
 */
function addRunOptions(command: Command, listed = true): Command {
  const all = [...RUN_OPTIONS, CONFIG_OPTION];
  if (!listed) command.addHelpText('after', '\nThe run flags (`conformance run --help`) apply to the runs it makes.');
  for (const group of OPTION_GROUPS)
    for (const flag of group.flags) {
      const option = all.find((o) => o.flag === flag)!;
      // The default and the variable are part of the description: commander's own .env() and .default() would
      // read them itself, and the file's values must sit between the environment and the defaults.
      const extra = `(${option.default ? `default: ${option.default}; ` : ''}env: ${option.env})`;
      const added = new Option(flagWithValue(option), `${option.description} ${extra}`).helpGroup(group.heading);
      command.addOption(listed ? added : added.hideHelp());
    }
  return command;
}

/** An option as help shows it: its flag, and the placeholder of its value. */
const flagWithValue = (option: RunOption) => (option.value ? `${option.flag} <${option.value}>` : option.flag);

/**
 * The run flags most runs need, in the root's help, in run's groups (what to test, what to run, how to judge,
 * how fast, where the results go) and described as RUN_OPTIONS describes them (one source for help).
 */
const COMMON_RUN_FLAGS = new Set([
  '--base-url',
  '--read-only',
  '--operations',
  '--families',
  '--baseline',
  '--gate-should',
  '--budget',
  '--out',
]);

function commonRunFlags(): string {
  return OPTION_GROUPS.map((group) => {
    const flags = group.flags.filter((flag) => COMMON_RUN_FLAGS.has(flag));
    if (flags.length === 0) return '';
    const lines = flags.map((flag) => {
      const option = RUN_OPTIONS.find((o) => o.flag === flag)!;
      return `  ${flagWithValue(option).padEnd(29)} ${option.description}${option.default ? ` (default: ${option.default})` : ''}`;
    });
    return `${group.heading}\n${lines.join('\n')}\n`;
  })
    .filter(Boolean)
    .join('\n');
}

/** What `run --help` ends with: the commands people start from. */
const EXAMPLES = [
  'conformance                                        a managed local Prefect, every check; reports in reports/',
  'conformance --base-url https://prefect.example/api your server (CONFORMANCE_API_KEY for its key)',
  'conformance --base-url URL --read-only             against production: reads only',
  'conformance --families filters,sorting --budget 60 two families, at most a minute of sending',
  'conformance replay reports --check contract.no-5xx rerun a failing check of the last run',
];
const RUN_EXAMPLES = `\nExamples:\n${EXAMPLES.map((e) => `  ${e}`).join('\n')}`;

/** The command line: commands, flags and help, by commander; every error one line and exit 2. */
function program(result: { code: number }): Command {
  const secrets = SECRET_VARIABLES.map((v) => `  ${v.env.padEnd(26)} ${v.description}`).join('\n');
  const root = new Command('conformance')
    .description('Conformance suite for the Orchestration REST API (Prefect server and compatible implementations)')
    .option('-V, --version', "the suite's version and the API versions it knows")
    .helpOption('-h, --help', 'this help')
    // Commander's "(Did you mean --base-url?)" goes on the error's own line: every error is one line.
    .configureOutput({
      outputError: (text, write) =>
        write(
          `conformance: ${text
            .replace(/^error: /, '')
            .trim()
            .replace(/\s*\n\s*/g, ' ')}\n`,
        ),
    })
    .exitOverride()
    .addHelpText(
      'after',
      `\nThe common run flags (run is the default command; \`conformance run --help\` lists all ${RUN_OPTIONS.length + 1}):\n\n${commonRunFlags()}\nSecrets, from the environment only:\n${secrets}\n\nExamples:\n${EXAMPLES.slice(
        0,
        3,
      )
        .map((e) => `  ${e}`)
        .join('\n')}\n\nExit codes: 0 every MUST check passed (baseline applied), 1 a gate failure, 2 bad input.`,
    );
  // Read only when asked (commander's .version() wants the text up front): the reference document it names is
  // 1.3 MB of JSON, not worth parsing on every start.
  root.on('option:version', () => {
    process.stdout.write(`${versionText()}\n`);
    throw new CommanderError(0, 'commander.version', 'version');
  });
  addRunOptions(
    root
      .command('run', { isDefault: true })
      .description('run the suite against a target (the default command) and write the reports')
      .addHelpText('after', RUN_EXAMPLES),
  ).action(async (_opts, command: Command) => {
    result.code = await runCommand(givenFlags(command));
  });
  addRunOptions(
    root
      .command('compare')
      .argument(
        '<a>',
        'side A: results.json (or its folder), an OpenAPI document, a URL, managed:sqlite, managed:postgres or managed:prefect@X[/postgres]',
      )
      .argument('<b>', 'side B, the same kinds')
      .description(
        'compare two runs, documents or targets (URL and managed sides are run with the same seed); exit 1 when B regressed',
      ),
    false,
  ).action(async (a: string, b: string, _opts, command: Command) => {
    result.code = await compareCommand(a, b, givenFlags(command));
  });
  addRunOptions(
    root
      .command('replay')
      .argument('[results]', "an earlier run's results.json or its folder (default: <out>/results.json)")
      .option('--check <id>', 'only the failures of this check (its id, with or without the variant)')
      .option('--operation <key>', 'only the failures on this operation ("METHOD /path")')
      .option('--known', 'the known deviations (xfail) too')
      .description(
        "rerun exactly the failing cases of an earlier run (same checks, same operations, the recorded seed and baseline) against the target, say whether each still fails, and exit with the rerun's verdict",
      ),
    false,
  ).action(
    async (
      results: string | undefined,
      opts: { check?: string; operation?: string; known?: boolean },
      command: Command,
    ) => {
      result.code = await replayCommand(results, opts, givenFlags(command));
    },
  );
  root
    .command('merge')
    .argument('[dirs...]', 'folders of blob reports (default: <out>/blob)')
    .option('--out <dir>', 'where the merged reports go', 'reports')
    .description('merge the blob reports of a sharded run (--shard i/n) into one set of reports')
    .action(async (dirs: string[], _opts, command: Command) => {
      result.code = await mergeCommand(dirs, givenFlags(command));
    });
  const baseline = root.command('baseline').description('maintain a baseline of known deviations');
  baseline
    .command('update')
    .description("write a baseline from a run's results: keyed entries for its failures, others kept")
    .option('--from <file>', "the run's results.json", '<out>/results.json')
    .option('--baseline <file>', 'the baseline to start from (CONFORMANCE_BASELINE)')
    .option('--out <file>', 'where to write the new baseline', 'baseline.json beside --from')
    .action((opts: { from?: string; baseline?: string; out?: string }, command: Command) => {
      const given = (name: string) =>
        command.getOptionValueSource(name) === 'cli' ? (opts as Record<string, string>)[name] : undefined;
      result.code = baselineUpdate(given('from'), given('baseline'), given('out'));
    });
  baseline
    .command('verify')
    .description('whether each entry still shows on the target, from a run against it (exit 1 when one is stale)')
    .option('--from <file>', "the run's results.json", '<out>/results.json')
    .option('--baseline <file>', 'the baseline to verify', 'the one the run applied')
    .action((opts: { from?: string; baseline?: string }, command: Command) => {
      const given = (name: string) =>
        command.getOptionValueSource(name) === 'cli' ? (opts as Record<string, string>)[name] : undefined;
      result.code = baselineVerify(given('from'), given('baseline'));
    });
  baseline
    .command('findings')
    .description("write the real deviations the shipped baselines name, for the server's maintainers")
    .option('--out <file>', 'where to write them', 'docs/findings.md')
    .action(async (opts: { out?: string }, command: Command) => {
      result.code = await baselineFindings(command.getOptionValueSource('out') === 'cli' ? opts.out : undefined);
    });
  root
    .command('checks')
    .description('list every check: id, family, level, clause and title')
    .option('--json', 'as JSON')
    .option('--markdown', 'as a Markdown table')
    .action(async (opts: { json?: boolean; markdown?: boolean }) => {
      if (opts.json && opts.markdown) throw new UsageError('checks: --json or --markdown, not both');
      result.code = await checksCommand(opts.json ? 'json' : opts.markdown ? 'markdown' : 'text');
    });
  return root;
}

/** The command of `names` nearest a mistyped word, as commander suggests it, if one is near. */
function nearestCommand(word: string, names: string[]): string | undefined {
  let said = '';
  const probe = new Command().exitOverride().configureOutput({
    writeErr: (text) => {
      said += text;
    },
    writeOut: () => {},
  });
  for (const name of names) probe.command(name);
  try {
    probe.parse([word], { from: 'user' });
  } catch {
    // The unknown command is the point: its message holds the suggestion.
  }
  return /Did you mean (\S+)\?/.exec(said)?.[1];
}

/** Why a word where a command goes is none, and what was meant. */
function unknownCommand(word: string, known: string[]): UsageError {
  const took = flagsNpmTook();
  if (took.length)
    return new UsageError(
      `unknown command "${word}": npm took ${took.join(', ')} for itself; after \`npm run conformance\` the suite's flags go after --: npm run conformance -- ${took[0]} ${word}`,
    );
  const near = nearestCommand(word, known);
  return new UsageError(
    `unknown command "${word}"${near ? ` (did you mean ${near}?)` : ''} (commands: ${known.join(', ')}; see --help)`,
  );
}

export async function main(argv: string[]): Promise<number> {
  const result = { code: 0 };
  const root = program(result);
  // A word where a command goes that is no command would otherwise reach `run` as a stray argument.
  const known = [...root.commands.map((c) => c.name()), 'help'];
  if (argv[0] && !argv[0].startsWith('-') && !known.includes(argv[0])) throw unknownCommand(argv[0], known);
  try {
    await root.parseAsync(argv, { from: 'user' });
  } catch (e) {
    if (!(e instanceof CommanderError)) throw e;
    // Help and version are answers, not errors; commander has already written its one line for the rest.
    if (['commander.helpDisplayed', 'commander.version', 'commander.help'].includes(e.code)) return 0;
    return 2;
  }
  return result.code;
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
