/**
 * `conformance [run] [flags]`: one run. It validates the configuration, starts the managed Prefect server when no
 * target is given, has the preflight survey the target, runs the suites (vitest, in this process), cleans up
 * exactly what the run created, writes the reports and returns the exit code.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { asGiven, configFrom, selectionLine, UsageError, type Config, type Env } from '../config/config.js';
import { CannotRunError } from '../config/errors.js';
import { narrowsChecks, selectsOperation } from '../config/selection.js';
import { handOver, workerStart, type TargetIdentity } from '../config/worker.js';
import { runFiles } from '../config/runFolder.js';
import { readExchangeLog } from '../config/exchangeLog.js';
import { joinedPacing } from '../http/pacing/rateLimits.js';
import { type Baseline, entryName, isExpired, loadBaseline, mergedBaseline } from '../baseline/entries.js';
import { type BaselineChoice, namedBaselineFile, shippedBaselines } from '../baseline/choice.js';
import { reasonsNothingCounts, summarize, type Results } from '../report/results.js';
import { verdictLine } from '../report/terminal.js';
import {
  clearReplaced,
  discard,
  freshStagingFolder,
  lockReportFolder,
  publish,
  publishedList,
  shownPath,
} from '../report/publish.js';
import { TOOL } from '../report/tool.js';
import { addReplays } from '../report/replayLine.js';
import { Ledger } from '../resources/ledger.js';
import { runCredentials, readPin, startPrefect, type ManagedServer } from '../managed/prefect.js';
import { installedRelease } from '../managed/releasePins.js';
import { openThread, sibling, type Thread } from '../supervisor/thread.js';
import type { Suites, SuitesEnd } from '../supervisor/suitesInProcess.js';
import { repoRoot, SHIPPED_BASELINES, baselineOf } from './repository.js';
import { logTo } from './log.js';
import { runSuites } from './suites.js';
import { readResults, writeReports } from './results.js';
import { formatsOf } from '../report/formats.js';

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

/** The ids of the objects the run made that cleanup deleted (or found gone): what a curl line may name in vain. */
function deletedObjects(ledger: string, cleanup: Results['cleanup']): Set<string> {
  const kept = new Set((cleanup?.failed ?? []).map((f) => f.id.toLowerCase()));
  return new Set(
    Ledger.read(ledger)
      .map((e) => e.id.toLowerCase())
      .filter((id) => !kept.has(id)),
  );
}

/** The managed Prefect of a run with no target; an unknown or uninstallable release, or a selection of none of its operations, is bad input. */
async function startManagedServer(config: Config): Promise<ManagedServer> {
  const log = logTo(config);
  const version = readPin(config.prefectVersion).prefect;
  // Where the suite ships the release's operations, a selection of none of them is known before anything
  // starts (their keys: a selection by document tag waits for the document).
  const shipped = config.documentSource || config.selection.tags ? undefined : shippedOperations(version);
  if (shipped && !shipped.some((key) => selectsOperation(config.selection, operationOfKey(key))))
    throw selectsNoOperation(config, shipped.length);
  log(`no target configured: starting a managed Prefect ${version} server on ${config.database}`);
  try {
    // With an auth string and no target, the managed server is started with that auth (HTTP Basic).
    const { bin } = await installedRelease(version, log);
    return await startPrefect({ database: config.database, authString: config.authString, version, bin, log });
  } catch (e) {
    if (e instanceof UsageError) throw e;
    throw new UsageError(`cannot start the managed Prefect server: ${(e as Error).message.split('\n')[0]}`);
  }
}

/** A target's label, from what was found of it: `prefect 3.8.8 on sqlite`; baseline entries' `onlyOn` match it. */
function labelOf(profile: string, identity: TargetIdentity): string {
  const release = identity.release ? ` ${identity.release.version}` : '';
  const database = identity.database ? ` on ${identity.database.name ?? 'an unknown database'}` : '';
  return `${profile}${release}${database}`;
}

/** How a command that runs the suite shapes its run. */
export interface RunShape {
  /** The configuration narrowed (replay's cases). */
  narrow?: (c: Config) => Config;
  /** The run's last line is its verdict (replay prints its cases first, then the verdict itself). */
  verdictLast?: boolean;
  /** What the command adds to the results before the reports are written (upgrade's survival), given the baseline. */
  completed?: (results: Results, baseline: Baseline) => void;
}

/**
 * One run: everything is written to a fresh staging folder and moved into the report folder when the run
 * ends. A run that fails before its suites start (an unreachable target, a selection of nothing, a bad
 * baseline) leaves the previous reports as they were. Once the suites have judged, what earlier runs left
 * under the suite's names goes (clearReplaced), while cleanup ends.
 */
export async function runCommand(
  flags: Env,
  overrides: Env = {},
  { narrow = (c) => c, verdictLast = true, completed }: RunShape = {},
): Promise<number> {
  const requested = narrow(configFrom(flags, overrides));
  const log = logTo(requested);
  formatsOf(requested.reports); // a format of none is bad input before anything starts
  const release = lockReportFolder(requested.outDir);
  const stage = freshStagingFolder(requested.outDir);
  let ended = false;
  let clearing: Promise<void> | undefined;
  try {
    const code = await runInto(
      { ...requested, outDir: stage },
      () => {
        clearing = clearReplaced(stage, requested.outDir, Boolean(requested.shard));
      },
      path.join(shownPath(requested.outDir), 'results.json'),
      completed,
    );
    ended = true;
    return code;
  } finally {
    const where = shownPath(requested.outDir);
    // What it could not delete, publish replaces.
    await clearing?.catch(() => {});
    try {
      if (ended) {
        const written = publish(stage, requested.outDir);
        log(`reports in ${where}: ${publishedList(written, requested.outDir)}`);
        const published = verdictLast ? readResults(path.join(requested.outDir, 'results.json')) : undefined;
        if (published) process.stdout.write(`${verdictLine(published)}\n`);
      } else discard(stage); // the error says why, in its one line; the previous reports stay
    } finally {
      release();
    }
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
  const authString = runCredentials(readPin(config.prefectVersion).prefect);
  return authString ? { ...config, authString } : config;
}

type Preflight = Thread<typeof import('../supervisor/preflight.js')>;
type Survey = Awaited<ReturnType<typeof import('../supervisor/preflight.js').surveyTarget>>;
type TargetState = Awaited<ReturnType<typeof import('../supervisor/preflight.js').targetState>>;
type Cleaned = import('../supervisor/cleanupThread.js').CleanupDone;
type RunFiles = ReturnType<typeof runFiles>;

/**
 * The target's document, surveyed; for a base URL the user gave, at the API's root, which may lie under it
 * (Prefect's `/api`): found and said, or named as bad input (http/apiRoot.ts).
 */
async function surveyedTarget(
  preflight: Preflight,
  config: Config,
  writeTo: string,
  given: string,
  byUrl: boolean,
): Promise<{ survey: Survey; baseUrl: string }> {
  const log = logTo(config);
  const credentials = { apiKey: config.apiKey, authString: config.authString };
  const surveyAt = (at: string) =>
    preflight.call('surveyTarget', {
      ...credentials,
      baseUrl: at,
      source: config.documentSource ?? `${at}/openapi.json`,
      timeoutMs: config.requestTimeoutMs,
      writeTo,
    });
  let baseUrl = given;
  let survey = await surveyAt(baseUrl);
  if (byUrl) {
    const root = await preflight.call('findApiRoot', {
      ...credentials,
      baseUrl,
      timeoutMs: config.requestTimeoutMs,
      operations: survey.operations,
      serverUrls: survey.serverUrls,
    });
    if (root.moved) {
      log(root.moved);
      baseUrl = root.baseUrl;
      // The document its root serves, rather than the one found above it.
      if (!config.documentSource) survey = await surveyAt(baseUrl);
    }
  }
  for (const n of survey.normalisations)
    log(`the document needed a rewrite: ${n.description} (${n.count}×, first at ${n.first})`);
  return { survey, baseUrl };
}

/** How a managed server's database is known: it was started on it; on PostgreSQL, a database of its own, named. */
const managedDatabaseHow = (server: ManagedServer) =>
  server.dbName
    ? `the managed server, on a database of its own (${server.dbName}, dropped with it)`
    : 'the managed server';

/** The baseline the rule chooses (baseline/choice.ts), what was found of the target, and the file the suites read. */
function chosenBaseline(
  config: Config,
  files: RunFiles,
  survey: Survey,
  state: TargetState,
  server: ManagedServer | undefined,
) {
  const log = logTo(config);
  const chosen = baselineOf(config, survey.profile, {
    given: config.serverVersion,
    managed: server?.version,
    reported: state.reported.find((v) => v.kind === 'release'),
    operations: survey.operations.map((op) => op.key),
  });
  const identity: TargetIdentity = {
    release: chosen.release,
    database: server
      ? { name: server.database, how: managedDatabaseHow(server) }
      : state.database && { name: state.database.database, how: state.database.how },
    baselineFrom: chosen.borrowedFrom,
  };
  if (identity.database && !server) log(`database: ${identity.database.name ?? 'unknown'} (${identity.database.how})`);
  // Neighbours' entries are merged into one file of the run's, which the suites read as any baseline.
  const baselinePath = chosen.neighbours ? files.neighboursBaseline : chosen.path;
  if (chosen.neighbours)
    writeFileSync(baselinePath!, `${JSON.stringify(mergedBaseline(chosen.neighbours), null, 2)}\n`);
  return { chosen, identity, baselinePath, baseline: loadBaseline(baselinePath) };
}

interface RunEnd {
  config: Config;
  startedAt: string;
  baseUrl: string;
  survey: Survey;
  state: TargetState;
  chosen: BaselineChoice;
  baselinePath?: string;
  identity: TargetIdentity;
  baseline: Baseline;
  cleaned: Cleaned;
  suitesEnd: SuitesEnd;
  interrupted: boolean;
  files: RunFiles;
  shownResults: string;
}

/** The run's results: the suites', with what the CLI found and did around them, and every reason the run cannot pass. */
function resultsOfRun(end: RunEnd): Results {
  const { config, survey, chosen, baselinePath, identity, cleaned } = end;
  const results: Results = readResults(path.join(config.outDir, 'results.json')) ?? {
    tool: TOOL,
    target: { baseUrl: end.baseUrl, openapi: survey.openapi, apiVersion: survey.apiVersion, profile: survey.profile },
    seed: config.seed,
    runTag: config.runTag,
    runs: config.runs,
    readOnly: config.readOnly,
    startedAt: end.startedAt,
    durationMs: 0,
    operations: [],
    checks: [],
    summary: summarize([], 0),
    errors: ['the suites ended without writing results'],
  };
  const reported = end.state.reported;
  if (reported.length) results.target.serverVersions = reported;
  if (identity.release) results.target.serverVersion = identity.release.version;
  results.baseline = chosen.neighbours
    ? { files: chosen.neighbours.map((s) => path.relative(repoRoot, s.file)), why: chosen.why }
    : { file: baselinePath && path.relative(repoRoot, baselinePath), why: chosen.why };
  if (survey.normalisations.length) results.normalisations = survey.normalisations;
  results.cleanup = cleaned.report;
  // The rate limits cleanup met count with the suites'.
  if (results.timing)
    results.timing.pacing = results.timing.pacing
      ? joinedPacing(results.timing.pacing, cleaned.pacing)
      : cleaned.pacing;
  const errors = (results.errors ??= []);
  if (end.interrupted) errors.push('interrupted before the end of the run');
  // A failure of vitest's own may leave results that look complete: the run cannot pass on them.
  if (end.suitesEnd.failure) errors.push(end.suitesEnd.failure);
  // A gate must never pass on a run that judged nothing, or on a target that never answered.
  const statuses = readExchangeLog(end.files.exchanges).map((b) => b.status);
  errors.push(...reasonsNothingCounts(results, statuses));
  // An expired entry fails the run: the deviation it excused was due to be fixed, or the entry reviewed.
  for (const e of end.baseline.entries.filter((x) => isExpired(x)))
    errors.push(`baseline entry expired on ${e.expires}: ${entryName(e)} (${e.reason})`);
  if (results.cleanup.failed.length) errors.push(`cleanup could not delete ${results.cleanup.failed.length} object(s)`);
  if (errors.length === 0) delete results.errors;
  addReplays(results, end.shownResults, deletedObjects(end.files.ledger, results.cleanup));
  results.summary.requests += end.state.requests + cleaned.requests;
  results.durationMs = Date.now() - Date.parse(end.startedAt);
  return results;
}

/**
 * A selection of no check, or a check module that declares none, is known before any server is started or
 * asked. A selection that leaves no check out cannot be one, and without check modules the target is asked
 * at once, rather than after the registry has loaded.
 */
async function someCheckSelected(preflight: Preflight, config: Config): Promise<void> {
  if (!narrowsChecks(config.selection) && config.checkModules.length === 0) return;
  const checks = await preflight.call('checksSelected', {
    selection: config.selection,
    checkModules: config.checkModules,
  });
  if (checks.selected === 0)
    throw new UsageError(
      `the selection (${selectionLine(config)}) selects none of the ${checks.of} checks (see \`conformance checks\`)`,
    );
}

/**
 * Everything the suites are handed before they send anything: the target (the managed server started, or the
 * URL's API root), its document surveyed, what it reports and what it is, and the baseline chosen for it.
 * `started`: told of a managed server as soon as it runs, so that it is stopped whatever follows.
 */
async function preparedTarget(
  preflight: Preflight,
  config: Config,
  files: RunFiles,
  started: (server: ManagedServer) => void,
) {
  const log = logTo(config);
  // Said before anything is sent: the target a user's Prefect settings name is theirs, not the suite's.
  if (config.readOnlyBecause) log(`read-only: ${config.readOnlyBecause}`);
  // A baseline file named is read before a server is started or asked: a wrong one is bad input, at once.
  const named = namedBaselineFile(config.baselinePath);
  if (named) loadBaseline(named);
  const server = config.baseUrl ? undefined : await startManagedServer(config);
  if (server) started(server);
  const surveyed = await surveyedTarget(preflight, config, files.document, server?.baseUrl ?? config.baseUrl!, !server);
  const { survey, baseUrl } = surveyed;
  // A selection of nothing would judge nothing: bad input, not a pass.
  if (!survey.operations.some((op) => selectsOperation(config.selection, op)))
    throw selectsNoOperation(config, survey.operations.length);
  const state = await preflight.call('targetState', {
    apiKey: config.apiKey,
    authString: config.authString,
    baseUrl,
    timeoutMs: config.requestTimeoutMs,
    operations: survey.operations,
    profile: survey.profile,
    readOnly: config.readOnly,
    // A label the user gave decides which entries apply; the managed server's database is known.
    tellDatabase: !server && !config.targetLabel,
    harEntries: harEntriesOf(config, files),
  });
  const reported = state.reported;
  if (reported.length) log(`the server reports ${reported.map((v) => `${v.version} (${v.from})`).join(', ')}`);
  const chosen = chosenBaseline(config, files, survey, state, server);
  log(
    `target ${survey.title} ${survey.apiVersion} (OpenAPI ${survey.openapi}) at ${baseUrl} (target from ${config.targetSource}); seed ${config.seed}; run tag ${config.runTag}; baseline: ${chosen.chosen.why}`,
  );
  const managed = server ? `prefect ${server.version} on ${server.database}` : undefined;
  const targetLabel = managed ?? config.targetLabel ?? labelOf(survey.profile, chosen.identity);
  return { ...chosen, baseUrl, survey, state, managed, targetLabel };
}

/**
 * The run's thread beside the main one (supervisor/runThread.ts): what the run asks before the suites start
 * (supervisor/preflight.ts), then cleanup, which waits there for the suites' end: vitest's reporters hold the
 * main thread for seconds after the last request (allure's thousands of files), and the server would wait idle
 * meanwhile. One thread for both: a second would start node's thread and load the HTTP client again.
 */
function runThreads() {
  const thread = openThread<import('../supervisor/runThread.js').RunThread>(
    sibling(import.meta.url, '../supervisor/runThread.js'),
  );
  return { preflight: thread, cleaning: thread };
}

/**
 * What cleanup watches, and its time: bounded too, as a target too slow for the run is often too slow to delete
 * from. What is not reached is reported (with its path) as not deleted, and the run fails, rather than hanging.
 */
/** Where the CLI's own clients record their exchanges as HAR entries, where --report har asks. */
const harEntriesOf = (config: Config, files: RunFiles) =>
  config.reports.includes('har') ? files.harEntries : undefined;

function cleanupWatch(config: Config, baseUrl: string, files: RunFiles) {
  const seconds = Math.min(config.deadlineSeconds, CLEANUP_SECONDS_AT_MOST);
  return {
    apiKey: config.apiKey,
    authString: config.authString,
    baseUrl,
    timeoutMs: config.requestTimeoutMs,
    ledger: files.ledger,
    exchanges: files.exchanges,
    suitesEnded: files.suitesEnded,
    seconds,
    why: `cleanup's time of ${seconds} s ran out (the --deadline, at most ${CLEANUP_SECONDS_AT_MOST} s)`,
    maxRate: config.maxRate,
    harEntries: harEntriesOf(config, files),
  };
}

/** What cleanup's last pass is told once the suites have ended. */
const cleanupEnd = (config: Config, profile: string, state: { absentSideEffects: string[] }) => ({
  profile,
  runTag: config.runTag,
  readOnly: config.readOnly,
  absentSideEffects: state.absentSideEffects,
});

/**
 * `judged`: called when the suites have ended, before cleanup ends and the reports are written. `shownResults`:
 * where the user will find results.json, as replay lines name it.
 */
export async function runInto(
  asked: Config,
  judged: () => void = () => {},
  shownResults = path.join(asked.outDir, 'results.json'),
  completed: RunShape['completed'] = () => {},
): Promise<number> {
  const config = withRunCredentials(asked);
  const log = logTo(config);
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
  const { preflight, cleaning } = runThreads();
  let handedOver = false;
  try {
    await someCheckSelected(preflight, config);
    // vitest starts now, and its start (seconds) goes on while the target is started and surveyed: the
    // suites wait for what the preflight decides (handOver below) before they send anything.
    const start = workerStart(config, { runDir, startedAt });
    suites = runSuites(start);
    const target = await preparedTarget(preflight, config, files, (started) => {
      server = started;
    });
    const { baseUrl, survey, state } = target;
    await cleaning.call('watch', cleanupWatch(config, baseUrl, files));
    const { baselinePath, managed, identity, targetLabel } = target;
    handOver(runDir, { baseUrl, documentPath: files.document, baselinePath, managed, identity, targetLabel });
    handedOver = true;
    const suitesEnd = await suites.ended;
    // vitest has closed and its worker thread is gone: what a test that outlived its timeout created before
    // then is deleted too, and the rest of cleanup follows.
    const finishCleanup = () => cleaning.call('finish', cleanupEnd(config, survey.profile, state));
    if (suitesEnd.notStarted) {
      // Nothing was judged: no verdict, and the previous reports stay (runCommand).
      await finishCleanup();
      throw new CannotRunError(`the suites could not start, twice: ${suitesEnd.notStarted}`);
    }
    judged();
    const cleaned = await finishCleanup();

    const results = resultsOfRun({
      ...target,
      config,
      startedAt,
      cleaned,
      suitesEnd,
      interrupted,
      files,
      shownResults,
    });
    completed(results, target.baseline);
    return writeReports(results, config.outDir, config.reports);
  } finally {
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
