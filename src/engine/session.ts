/**
 * One conformance run inside the vitest worker: the worker configuration → document → model → fixtures →
 * exchanges, built once and shared by every suite file (vitest runs them in one worker without isolation).
 * The session implements the CheckContext the checks see.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { buildRecipe, fillPath, paramsOfPath, type CaseContext } from '../cases/requests.js';
import { SafeValues } from '../cases/safeValues.js';
import { secretsOf } from '../config/config.js';
import { handedOver, type WorkerConfig, type WorkerStart } from '../config/worker.js';
import { runFiles } from '../config/runFolder.js';
import { selectionLine } from '../config/config.js';
import { selectsCheck, selectsOperation } from '../config/selection.js';
import { type CheckRegistry, loadCheckModules } from '../checks/core/registry.js';
import { CORE } from '../checks/core/queryContext.js';
import { problemWithValidExchange } from '../checks/contract/judges.js';
import type { Family } from '../checks/core/check.js';
import type { CheckContext, CheckSettings, OperationRun } from '../checks/core/context.js';
import { authHeaders } from '../http/auth.js';
import { currentSender, forNoOperation, HttpClient, NOT_RUN, SendingStopped, sendingFor } from '../http/client.js';
import { harRecorder } from '../http/recorders.js';
import { Redactor } from '../http/redact.js';
import { buildModel, isReadOperation, type ApiModel } from '../model/model.js';
import { profileFor } from '../model/profiles/index.js';
import { loadDocument, type LoadedDocument } from '../openapi/load.js';
import type { Operation } from '../openapi/operations.js';
import { is2xx } from '../openapi/request.js';
import { SchemaValidators } from '../openapi/validators.js';
import { forTarget, loadBaseline, replaysFor, type Baseline, withheldEdges } from '../baseline/entries.js';
import { latencyBySender, type OperationSummary, type RunInfo, senderFamily } from '../report/results.js';
import { TOOL } from '../report/tool.js';
import { buildCorpus } from '../resources/corpus.js';
import { Ledger } from '../resources/ledger.js';
import { FixturePool } from '../resources/pool.js';
import { exerciseOperation, type ExerciseContext } from './exercise.js';
import { Scheduler } from './scheduler.js';
import { freshJudgingState, type JudgingState } from './judgingState.js';
import { TimeBox } from './timeBox.js';

export interface Session {
  config: WorkerConfig;
  /** The run's checks: the suite's own and those its modules declare. */
  checks: CheckRegistry;
  document: LoadedDocument;
  model: ApiModel;
  client: HttpClient;
  redactor: Redactor;
  /** The operations this run covers (all of the document's, unless CONFORMANCE_OPERATIONS narrows them). */
  operations: Operation[];
  /** The expected failures that apply to this target (loaded once, for replays and verdicts). */
  baseline: Baseline;
  /** What the checks see. */
  checkContext: CheckContext;
  /** Judgements and exercises, a bounded number at a time, each with its isolation. */
  scheduler: Scheduler;
  /** The run's budget or deadline: when it is spent, nothing more is sent and what was not reached is not run. */
  timeBox: TimeBox;
  /** What judging keeps between the families' files (engine/judgingState.ts). */
  judging: JudgingState;
  /** Exercise one operation (once: later callers get the first one's promise), with the first caller's priority. */
  exercise(op: Operation, priority?: number): Promise<void>;
  /** Exercise every operation, a bounded number at a time (started once, by the first caller). */
  exerciseAll(): Promise<void>;
  /** A test has its verdict (the first one's time goes to results.json). */
  noteVerdict(): void;
  /**
   * Every (collection.field.operator) of the filter schemas the checks of a family noted: checked how often, or
   * why not. Each family's file carries its own, and the reporter adds them up (shards too).
   */
  filterCoverage(family: Family): Array<{ triple: string; checked: number; skipped?: string }>;
  /** Every operation of the document, exercised or not, for results.json. */
  operationSummaries(): OperationSummary[];
  runInfo(): RunInfo;
}

/** The query corpus is built ahead of every job queued, those pulled forward by a rate limit too (judging.ts). */
const CORPUS_FIRST = -2;

const settingsOf = (config: WorkerConfig): CheckSettings => ({
  seed: config.seed,
  runs: config.runs,
  runTag: config.runTag,
  readOnly: config.readOnly,
  credentials: config.apiKey ? 'bearer' : config.authString ? 'basic' : undefined,
});

/** What a session is made of, built once from the configuration and handed to the parts below. */
interface Parts {
  config: WorkerConfig;
  checks: CheckRegistry;
  files: ReturnType<typeof runFiles>;
  redactor: Redactor;
  client: HttpClient;
  document: LoadedDocument;
  model: ApiModel;
  cases: CaseContext;
  pool: FixturePool;
  scheduler: Scheduler;
  /** Each operation's exercise, once it is done. */
  done: Map<Operation, OperationRun>;
}

/** The run's fixture pool, and what generating cases knows (the pool among it). */
function casesFor(
  config: WorkerConfig,
  files: ReturnType<typeof runFiles>,
  client: HttpClient,
  document: LoadedDocument,
  model: ApiModel,
): { pool: FixturePool; cases: CaseContext } {
  const pool = new FixturePool(model, (request) => client.send(request), new Ledger(files.ledger), {
    readOnly: config.readOnly,
    sharedAcrossOperations: forNoOperation,
  });
  const cases: CaseContext = {
    model,
    fixtures: pool,
    safe: new SafeValues(config.runTag),
    profile: profileFor(document),
  };
  pool.attach(cases);
  return { pool, cases };
}

/** The run's session, from what the suites knew at their start (provided to vitest: adapters/vitest/provided.ts). */
export async function createSession(start: WorkerStart): Promise<Session> {
  // vitest started while the CLI asked the target: the rest of the configuration comes when it has decided.
  const config = await handedOver(start);
  // The run's own checks join the suite's before any family asks for its cases.
  const checks = await loadCheckModules(config.checkModules);
  const suitesStartedAt = new Date().toISOString();
  const files = runFiles(config.runDir);
  const redactor = new Redactor(secretsOf(config));
  const client = clientFor(config, files, redactor);
  // The CLI validated the document and wrote it to the run folder before starting the suites.
  const document = await loadDocument(config.documentPath, {
    headers: authHeaders(config),
    timeoutMs: config.requestTimeoutMs,
    validated: true,
  });
  const model = buildModel(document.doc);
  const baseline = targetBaseline(config);
  const validators = new SchemaValidators(document.doc);
  const { pool, cases } = casesFor(config, files, client, document, model);
  const { scheduler, timeBox } = schedulerFor(client, config);
  const made = { config, checks, files, redactor, client, document, model, cases, pool, scheduler };
  const parts: Parts = { ...made, done: new Map() };
  const validate: CheckContext['validate'] = (schema, value) => validators.validate(schema, value);
  const operations = model.operations.filter((op) => selectsOperation(config.selection, op));
  const exercise = exerciserFor(parts, {
    cases,
    client,
    pool,
    validators,
    seed: config.seed,
    runs: config.runs,
    readOnly: config.readOnly,
    disposable: config.disposable,
    problemWithValidExchange: (op, ex) => problemWithValidExchange(validate, op, ex),
    validRefused: { count: 0 },
    replays: (op) => replaysFor(baseline, op.key),
    // The run's own server may be broken for a moment; a shared one's other clients must not be.
    harmsOthers: (op) => withheldEdges(baseline, op.key),
  });
  const { checkContext, filterCoverage } = checkContextFor(parts, validate);
  let exercised: Promise<void> | undefined;
  let firstVerdictAt: string | undefined;
  return {
    config,
    checks,
    document,
    model,
    client,
    redactor,
    operations,
    baseline,
    checkContext,
    judging: freshJudgingState(),
    scheduler,
    timeBox,
    exercise,
    exerciseAll() {
      // A budgeted run exercises the spec's core collections (§2) first: what it reaches covers them.
      const core = (op: Operation) => (CORE.includes(model.collectionOf(op)?.name ?? '') ? 0 : 1);
      const order = timeBox.budgeted ? [...operations].sort((a, b) => core(a) - core(b)) : operations;
      exercised ??= Promise.all(order.map((op) => exercise(op))).then(() => undefined);
      return exercised;
    },
    noteVerdict() {
      firstVerdictAt ??= new Date().toISOString();
    },
    filterCoverage,
    operationSummaries: () => operationSummaries(parts),
    runInfo: () => runInfoOf(parts, operations, timeBox, { suitesStartedAt, firstVerdictAt }),
  };
}

/** The baseline the CLI chose, applied to this target: its label, whether its database is known, whose it was. */
function targetBaseline(config: WorkerConfig) {
  return forTarget(loadBaseline(config.baselinePath), {
    label: config.targetLabel,
    databaseUnknown: config.identity?.database !== undefined && config.identity.database.name === undefined,
    borrowedFrom: config.identity?.baselineFrom,
  });
}

function clientFor(config: WorkerConfig, files: Parts['files'], redactor: Redactor): HttpClient {
  return new HttpClient({
    baseUrl: config.baseUrl,
    apiKey: config.apiKey,
    authString: config.authString,
    timeoutMs: config.requestTimeoutMs,
    concurrency: config.concurrency,
    redactor,
    exchangeLog: files.exchanges,
    recorders: config.reports.includes('har') ? [harRecorder(files.harEntries)] : [],
    statusFile: files.pacingStatus,
    runTag: config.runTag,
    // GETs and the documented read POSTs (design.md: filter, count, history, paginate).
    isRead: (request) => isReadOperation({ method: request.method, path: request.template }),
    readOnly: config.readOnly,
    maxRate: config.maxRate,
  });
}

/** The scheduler the client keeps full, and the time box that stops both when the budget is spent. */
function schedulerFor(client: HttpClient, config: WorkerConfig): { scheduler: Scheduler; timeBox: TimeBox } {
  // Judgements mostly send one request after another: twice the client's limit keeps it full, and the
  // client bounds what is in flight. A judgement whose request waits for its turn (a rate limit) holds no
  // place: others go on meanwhile.
  const scheduler = new Scheduler(() => client.inFlightLimit * 2 + client.waitingForTurn);
  client.onRoom = () => queueMicrotask(() => scheduler.pump());
  const timeBox = new TimeBox(config, (reason) => {
    client.stopSending(reason);
    scheduler.refuse(() => new SendingStopped(`${NOT_RUN} ${reason}`));
  });
  return { scheduler, timeBox };
}

/** Exercise one operation once (later callers get the first one's promise), with the first caller's priority. */
function exerciserFor({ scheduler, done }: Parts, context: ExerciseContext): Session['exercise'] {
  const exercising = new Map<Operation, Promise<void>>();
  return (op, priority) => {
    let run = exercising.get(op);
    if (!run) {
      run = scheduler
        .run(
          'shared',
          () => sendingFor('exercise', () => exerciseOperation(context, op), { operation: op.key }),
          priority,
        )
        .catch((e: unknown) => {
          // Not reached before the budget or deadline: its checks are not run, never judged on nothing.
          if (e instanceof SendingStopped) return { op, sent: [], skipped: e.message, notRun: true };
          throw e;
        })
        .then((r) => void done.set(op, r));
      exercising.set(op, run);
    }
    return run;
  };
}

/** What the checks see, and the filter coverage they note through it (by family, then by triple). */
function checkContextFor(
  parts: Parts,
  validate: CheckContext['validate'],
): { checkContext: CheckContext; filterCoverage: Session['filterCoverage'] } {
  const { config, model, cases, pool, done } = parts;
  const send = checkSender(parts);
  const coverage = new Map<Family, Map<string, { checked: number; skipped?: string }>>();
  const checkContext: CheckContext = {
    model,
    profile: cases.profile,
    settings: settingsOf(config),
    validRequest: (op) => buildRecipe(cases, op),
    send,
    object: (collectionPath, mode) => pool.object(collectionPath, mode),
    async itemPath(collection, obj) {
      const params: Record<string, unknown> = { [collection.item!.param]: obj[collection.idField] };
      for (const parent of collection.parentParams) {
        const ref = model.referenceFor(collection.create ?? collection.read!, parent, 'path');
        params[parent] = ref ? await pool.value(ref, 'shared') : undefined;
      }
      return fillPath(collection.item!.path, params);
    },
    exchangesOf(op) {
      const r = done.get(op);
      if (!r) throw new Error(`${op.key} was not exercised yet`);
      return r;
    },
    validate,
    corpus: corpusOnce(parts, send),
    noteFilterCoverage(triple, outcome) {
      const family = senderFamily(currentSender() ?? 'other');
      const noted = coverage.get(family) ?? coverage.set(family, new Map()).get(family)!;
      const seen = noted.get(triple);
      if ('checked' in outcome) noted.set(triple, { checked: (seen?.checked ?? 0) + outcome.checked });
      else if (!seen) noted.set(triple, { checked: 0, skipped: outcome.skipped });
    },
  };
  const filterCoverage: Session['filterCoverage'] = (family) =>
    [...(coverage.get(family) ?? [])].map(([triple, c]) => ({
      triple,
      checked: c.checked,
      skipped: c.checked ? undefined : c.skipped,
    }));
  return { checkContext, filterCoverage };
}

/**
 * A request of a check's: sent, and what it created recorded for cleanup, on behalf of `op` or of the
 * document's operation it was sent to (whatever the check expected of it, a 2xx may have made something),
 * and what it deleted of the run's.
 */
function checkSender({ model, client, pool }: Parts): CheckContext['send'] {
  const byRoute = new Map(model.operations.map((op) => [op.key, op]));
  return async (request, op) => {
    const exchange = await client.send(request);
    const sentTo = op ?? byRoute.get(`${request.method} ${request.template}`);
    // The path's parameters: an object made under a parent (a pool's queue) is deleted under it.
    if (sentTo) pool.noteCreated(sentTo, exchange, paramsOfPath(request.template, request.path), request.json);
    pool.noteDeleted(request, exchange);
    return exchange;
  };
}

/**
 * The corpus, built for the first check that asks, in a job of its own that may write (its checks send only
 * reads, and run beside quiet and alone ones), ahead of every job queued; they all wait for it without
 * holding a place in the scheduler (behind a rate limit the building takes seconds, and jobs that do not
 * need it go meanwhile).
 */
function corpusOnce({ config, model, scheduler }: Parts, send: CheckContext['send']): CheckContext['corpus'] {
  let corpus: ReturnType<CheckContext['corpus']> | undefined;
  let corpusBuilt = false;
  return () => {
    if (corpusBuilt) return corpus!;
    if (!corpus) {
      corpus = scheduler.run(
        'shared',
        () => sendingFor('corpus', () => buildCorpus({ model, runTag: config.runTag, send })),
        CORPUS_FIRST,
      );
      corpus.then(
        () => (corpusBuilt = true),
        () => (corpusBuilt = true),
      );
    }
    return scheduler.meanwhile(corpus);
  };
}

/** Every operation of the document, exercised or not, for results.json. */
function operationSummaries({ config, model, client, done }: Parts): OperationSummary[] {
  return model.operations.map((op) => {
    const r = done.get(op);
    const counts = client.perOperation.get(op.key) ?? { requests: 0, retried: 0 };
    const reached2xx = r?.sent.some((s) => is2xx(s.exchange)) ?? false;
    const note = !r
      ? selectsOperation(config.selection, op)
        ? 'not exercised: no check the run selected reads the exercise'
        : `not selected (${selectionLine(config)})`
      : (r.skipped ?? (reached2xx ? undefined : (r.unreachable ?? 'no request reached 2xx: see contract.reaches-2xx')));
    return {
      method: op.method,
      path: op.path,
      exercised: !!r && !r.skipped,
      reached2xx,
      requests: counts.requests,
      note,
      retried: counts.retried || undefined,
    };
  });
}

/** The run's facts for results.json; it writes the normalised requests (a diff of two runs of one seed). */
function runInfoOf(
  { config, checks, files, redactor, client, document, model, cases }: Parts,
  operations: Operation[],
  timeBox: TimeBox,
  times: { suitesStartedAt: string; firstVerdictAt?: string },
): RunInfo {
  const sorted = [...client.signatures].sort();
  writeFileSync(files.requests, `${sorted.join('\n')}\n`);
  return {
    tool: TOOL,
    target: {
      baseUrl: redactor.text(config.baseUrl),
      openapi: document.openapi,
      apiVersion: document.raw.info?.version ?? '',
      title: document.raw.info?.title,
      profile: cases.profile.name,
      managed: config.managed,
      label: config.targetLabel,
      identity: config.identity,
    },
    targetSource: config.targetSource,
    seed: config.seed,
    requestSequence: {
      sha256: createHash('sha256').update(sorted.join('\n')).digest('hex'),
      requests: sorted.length,
    },
    runTag: config.runTag,
    runs: config.runs,
    readOnly: config.readOnly,
    readOnlyBecause: config.readOnlyBecause,
    disposable: config.disposable || undefined,
    gateShould: config.gateShould || undefined,
    timing: {
      ...times,
      timeBox: timeBox.info,
      latency: latencyBySender(client.bySender),
      pacing: client.pacing.summary(),
      writesTookTurns: client.pacing.writesTakeTurns || undefined,
    },
    ...notSelected(config, checks, model, operations),
  };
}

/** What a narrowed run left out, by name (nothing when the run is not narrowed). */
function notSelected(
  config: WorkerConfig,
  registry: CheckRegistry,
  model: ApiModel,
  operations: Operation[],
): Partial<RunInfo> {
  const selection = selectionLine(config);
  if (!selection) return {};
  return {
    selection,
    notSelected: {
      operations: model.operations.filter((op) => !operations.includes(op)).map((op) => op.key),
      checks: registry.all.filter((c) => !selectsCheck(config.selection, c)).map((c) => c.id),
    },
  };
}
