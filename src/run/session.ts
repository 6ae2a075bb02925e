/**
 * One conformance run inside the vitest worker: config → spec → model → fixtures → exchanges, built
 * once and shared by every suite file (vitest runs them in one worker without isolation).
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig, secretsOf, type Config } from '../config/config.js';
import { SafeValues } from '../cases/safeValues.js';
import { isReadOperation, type CaseContext } from '../cases/requests.js';
import { problemWithValidExchange } from '../checks/contract.js';
import { authHeaders } from '../http/auth.js';
import { HttpClient } from '../http/client.js';
import { Redactor } from '../http/redact.js';
import { buildModel, type ApiModel } from '../model/model.js';
import { profileFor } from '../model/profiles/index.js';
import { Ledger } from '../resources/ledger.js';
import { FixturePool } from '../resources/pool.js';
import { loadSpec, type LoadedSpec } from '../spec/load.js';
import type { Operation } from '../spec/operations.js';
import { SchemaValidators } from '../spec/validators.js';
import { forTarget, loadBaseline, replaysFor, type Baseline } from '../report/baseline.js';
import type { OperationSummary, RunInfo } from '../report/results.js';
import { TOOL } from '../report/tool.js';
import { exerciseOperation, type ExerciseContext, type OperationRun } from './exercise.js';

export interface Session {
  config: Config;
  spec: LoadedSpec;
  model: ApiModel;
  validators: SchemaValidators;
  client: HttpClient;
  pool: FixturePool;
  cases: CaseContext;
  redactor: Redactor;
  /** The operations this run covers (all of the document's, unless CONFORMANCE_OPERATIONS narrows them). */
  operations: Operation[];
  /** The expected failures that apply to this target (loaded once, for replays and verdicts). */
  baseline: Baseline;
  exercise(op: Operation): Promise<OperationRun>;
  /** Exercise every operation, a bounded number at a time. */
  exerciseAll(): Promise<Map<Operation, OperationRun>>;
  runOf(op: Operation): OperationRun;
  /** Every operation of the document, exercised or not, for results.json. */
  operationSummaries(): OperationSummary[];
  runInfo(): RunInfo;
}

/** Files the supervising CLI reads after the worker is done. */
export function runFiles(runDir: string) {
  return { ledger: path.join(runDir, 'ledger.jsonl'), exchanges: path.join(runDir, 'exchanges.jsonl'), spec: path.join(runDir, 'openapi.json') };
}

async function createSession(): Promise<Session> {
  const config = loadConfig(process.env);
  if (!config.baseUrl) throw new Error('the conformance suites need CONFORMANCE_BASE_URL: run them through `npm run conformance`');
  const runDir = process.env.CONFORMANCE_RUN_DIR;
  const files = runDir ? runFiles(runDir) : undefined;
  const redactor = new Redactor(secretsOf(config));
  const client = new HttpClient({
    baseUrl: config.baseUrl,
    apiKey: config.apiKey,
    authString: config.authString,
    timeoutMs: config.requestTimeoutMs,
    concurrency: config.concurrency,
    redactor,
    exchangeLog: files?.exchanges,
    runTag: config.runTag,
    // GETs and the documented read POSTs only (design.md: filter, count, history, paginate).
    isRead: config.readOnly ? (spec) => isReadOperation({ method: spec.method, path: spec.template } as Operation) : undefined,
  });
  const specSource = config.specSource ?? `${config.baseUrl}/openapi.json`;
  // The CLI validated the document and wrote it to the run folder before starting the suites.
  const validatedByCli = files !== undefined && specSource === files.spec;
  const spec = await loadSpec(specSource, { headers: authHeaders(config), timeoutMs: config.requestTimeoutMs, validated: validatedByCli });
  const model = buildModel(spec.doc);
  const baseline = forTarget(loadBaseline(config.baselinePath), process.env.CONFORMANCE_TARGET_LABEL);
  const validators = new SchemaValidators(spec.doc);
  const pool = new FixturePool(model, client, new Ledger(files?.ledger), config.readOnly);
  const cases: CaseContext = { model, fixtures: pool, safe: new SafeValues(config.runTag), profile: profileFor(spec) };
  pool.attach(cases);
  const operations = model.operations.filter((op) => !config.operationFilter || config.operationFilter.test(op.key));
  const exerciseContext: ExerciseContext = {
    cases,
    client,
    pool,
    validators,
    seed: config.seed,
    runs: config.runs,
    readOnly: config.readOnly,
    disposable: config.disposable,
    problemWithValidExchange: (op, ex) => problemWithValidExchange(validators, op, ex),
    replays: (op) => replaysFor(baseline, op.key),
  };
  const runs = new Map<Operation, Promise<OperationRun>>();
  const done = new Map<Operation, OperationRun>();
  const exercise = (op: Operation) => {
    let p = runs.get(op);
    if (!p) {
      p = exerciseOperation(exerciseContext, op).then((r) => {
        done.set(op, r);
        return r;
      });
      runs.set(op, p);
    }
    return p;
  };
  return {
    config,
    spec,
    model,
    validators,
    client,
    pool,
    cases,
    redactor,
    operations,
    baseline,
    exercise,
    async exerciseAll() {
      const queue = [...operations];
      const workers = Array.from({ length: Math.max(1, Math.min(config.concurrency, queue.length)) }, async () => {
        for (let op = queue.shift(); op; op = queue.shift()) await exercise(op);
      });
      await Promise.all(workers);
      return done;
    },
    operationSummaries() {
      return model.operations.map((op) => {
        const r = done.get(op);
        const counts = client.perOperation.get(op.key) ?? { requests: 0, retried: 0 };
        const reached2xx = r?.sent.some((s) => s.exchange.status >= 200 && s.exchange.status < 300) ?? false;
        const note = !r ? 'not selected (CONFORMANCE_OPERATIONS)' : r.skipped ?? (reached2xx ? undefined : r.unreachable ?? 'no request reached 2xx: see contract.reaches-2xx');
        return { method: op.method, path: op.path, exercised: !!r && !r.skipped, reached2xx, requests: counts.requests, note, retried: counts.retried || undefined };
      });
    },
    runInfo() {
      const sorted = [...client.signatures].sort();
      // What the run asked for, normalised, for a diff of two runs of the same seed.
      if (files) writeFileSync(path.join(path.dirname(files.ledger), 'requests.txt'), sorted.join('\n') + '\n');
      return {
        tool: TOOL,
        target: { baseUrl: redactor.text(config.baseUrl!), openapi: spec.openapi, apiVersion: spec.raw.info?.version ?? '', title: spec.raw.info?.title, profile: cases.profile.name, managed: process.env.CONFORMANCE_MANAGED_SERVER || undefined, label: process.env.CONFORMANCE_TARGET_LABEL || undefined },
        seed: config.seed,
        requestSequence: { sha256: createHash('sha256').update(sorted.join('\n')).digest('hex'), requests: sorted.length },
        runTag: config.runTag,
        runs: config.runs,
        readOnly: config.readOnly,
      };
    },
    runOf(op) {
      const r = done.get(op);
      if (!r) throw new Error(`${op.key} was not exercised yet`);
      return r;
    },
  };
}

let current: Promise<Session> | undefined;

export function getSession(): Promise<Session> {
  current ??= createSession();
  return current;
}
