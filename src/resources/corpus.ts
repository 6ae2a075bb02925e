/**
 * The run's own corpus for the query checks: objects of the core collections made through the
 * document's create operations, with the hard cases in them, then read back as the server stores them.
 * Every object is recorded for cleanup like any other; names carry the run's prefix.
 */
import { documentedBody } from '../cases/documented.js';
import { fitString } from '../openapi/fitString.js';
import { filterModel, largestPage, nonNull } from '../model/filters.js';
import type { ApiModel } from '../model/model.js';
import type { Corpus } from '../model/oracle.js';
import type { Obj } from '../openapi/json.js';
import { jsonBodySchema, type Operation, type Schema } from '../openapi/operations.js';
import { is2xx, type Answer, type RequestToSend } from '../openapi/request.js';

/** What building the corpus needs: the model, the run's tag, and a send that records what a create made. */
export interface CorpusMaker {
  model: ApiModel;
  runTag: string;
  send(request: RequestToSend, op?: Operation): Promise<Answer>;
}

export const STATE_TYPES = [
  'SCHEDULED',
  'PENDING',
  'RUNNING',
  'COMPLETED',
  'FAILED',
  'CANCELLED',
  'CRASHED',
  'PAUSED',
  'CANCELLING',
];

/** Where the corpus's SCHEDULED run starts: inside the generator's date range, so that random dates fall on both sides. */
export const CORPUS_BOUND = '2090-01-01T00:00:00.000Z';

export interface BuiltCorpus {
  corpus: Corpus;
  /** A time some runs start at exactly (the boundary of before_/after_). */
  bound: string;
  /** Collections whose corpus could not be made, and why. */
  missing: Record<string, string>;
  tags: string[];
}

async function create(maker: CorpusMaker, path: string, body: Obj): Promise<Obj | string> {
  const c = maker.model.collections.get(path);
  if (!c?.create) return `no create operation for ${path}`;
  const ex = await maker.send(
    { method: c.create.method, template: c.create.path, path: c.create.path, json: body },
    c.create,
  );
  return is2xx(ex) && ex.json && typeof ex.json === 'object'
    ? (ex.json as Obj)
    : `${c.create.key} answered ${ex.status}: ${ex.body.slice(0, 200)}`;
}

async function readBack(maker: CorpusMaker, key: string, ids: unknown[]): Promise<Obj[]> {
  const c = maker.model.collections.get(`/${key}`)!;
  const ex = await maker.send({
    method: 'POST',
    template: c.filter!.path,
    path: c.filter!.path,
    json: { [key]: { id: { any_: ids } }, limit: largestPage(filterModel(maker.model, c)) },
  });
  const read = new Map((Array.isArray(ex.json) ? (ex.json as Obj[]) : []).map((o) => [o.id, o]));
  // In the order the run made them: the server's order (uuid7 ids, random within a millisecond) is not
  // the same twice, and generated operands are drawn from this order.
  return ids.map((id) => read.get(id)).filter((o): o is Obj => o !== undefined);
}

/**
 * The i-th parent in a round over the first `among` made ones. A busy target may refuse some creates (a 503
 * after the retries): the round then goes over those it made, so that no child names a parent that was not made.
 */
const parent = (made: Obj[], i: number, among: number): Obj => made[i % Math.min(among, made.length)];

/**
 * The corpus, made level by level: the creates of one collection are sent side by side, as none names
 * another of its level, and each level waits only for the parents it names: five round trips one after
 * another rather than 33 before the query families, which wait for it, can start (a far target's writes
 * may still take turns: the client's pace decides). What each level made is kept in the order of its
 * requests, whatever the order of the answers.
 */
export async function buildCorpus(maker: CorpusMaker): Promise<BuiltCorpus> {
  const T = maker.runTag;
  const tags = [`${T}-a`, `${T}-b`, `${T}-c`];
  const missing: Record<string, string> = {};
  const made: Record<string, Obj[]> = { flows: [], deployments: [], flow_runs: [], task_runs: [], artifacts: [] };
  /** Create every body of a level side by side, keeping what was made in the bodies' order. */
  const level = async (key: string, bodies: Obj[]) => {
    const documented = documentedBodies(maker.model, `/${key}`, bodies);
    const results = await Promise.all(documented.map((body) => create(maker, `/${key}`, body)));
    for (const r of results) typeof r === 'string' ? void (missing[key] ??= r) : void made[key].push(r);
  };
  const shape = corpusShape(T, tags, stateTypes(maker.model));
  await level('flows', shape.flows());
  await level('deployments', shape.deployments(made.flows));
  await level('flow_runs', shape.flowRuns(made.flows, made.deployments));
  // Task runs and artifacts name only flow runs: one level.
  await Promise.all([
    level('task_runs', shape.taskRuns(made.flow_runs)),
    level('artifacts', shape.artifacts(made.flow_runs)),
  ]);
  const kept = Object.entries(made).filter(([, objs]) => objs.length > 0);
  const read = await Promise.all(
    kept.map(([key, objs]) =>
      readBack(
        maker,
        key,
        objs.map((o) => o.id),
      ),
    ),
  );
  const corpus: Corpus = Object.fromEntries(kept.map(([key], i) => [key, read[i]]));
  return { corpus, bound: CORPUS_BOUND, missing, tags };
}

/**
 * The bodies as the collection's create names them (cases/documented.ts), each name still distinct where
 * fitting it to the document's pattern made two alike (`Alpha` and `alpha` under a lower-case pattern).
 */
function documentedBodies(model: ApiModel, path: string, bodies: Obj[]): Obj[] {
  const create = model.collections.get(path)?.create;
  const schema = create ? jsonBodySchema(create) : undefined;
  if (!schema) return bodies;
  const nameSchema = nonNull(model.doc, nonNull(model.doc, schema).properties?.name ?? {}) as Schema;
  const seen = new Set<unknown>();
  return bodies.map((body, i) => {
    const fitted = documentedBody(model.doc, schema, body) as Obj;
    if (typeof fitted.name === 'string' && seen.has(fitted.name))
      fitted.name = fitString(`${fitted.name}-${i}`, nameSchema) ?? fitted.name;
    seen.add(fitted.name);
    return fitted;
  });
}

/** The state types a flow run's create takes, as its document lists them (Prefect's nine where it lists none). */
function stateTypes(model: ApiModel): string[] {
  const create = model.collections.get('/flow_runs')?.create;
  const schema = create ? jsonBodySchema(create) : undefined;
  if (!schema) return STATE_TYPES;
  const state = nonNull(model.doc, schema).properties?.state;
  const type = state ? nonNull(model.doc, state).properties?.type : undefined;
  const listed = type ? (nonNull(model.doc, type) as { enum?: unknown[] }).enum : undefined;
  return listed?.every((v) => typeof v === 'string') ? (listed as string[]) : STATE_TYPES;
}

/** The bodies of each level of the corpus, from the run's tag and what the levels before it made. */
function corpusShape(T: string, tags: string[], states: string[]) {
  // A fixed instant, not the clock: the same seed sends the same requests, and a SCHEDULED run this far ahead
  // is never marked Late by a server whose background services run (a target given by URL).
  const at = (ms: number) => new Date(Date.parse(CORPUS_BOUND) + ms).toISOString();
  const count = (n: number) => Array.from({ length: n }, (_, i) => i);
  // Names that differ only in case; `_` and `%` that ILIKE reads as wildcards; flows with and without runs.
  const flowNames = ['Alpha', 'alpha', 'd_1', 'd-1-1', '50%off', 'Zeta'];
  // The first flow is tagged and gets the FAILED run: the seed's example (§4.3 rule 4) has an answer.
  const flowTags = [[tags[0]], [], [tags[0], tags[1]], [tags[1]], tags, []];
  return {
    flows: (): Obj[] => flowNames.map((name, i) => ({ name: `${T}-${name}`, tags: flowTags[i] })),
    deployments: (flows: Obj[]): Obj[] =>
      count(Math.min(3, flows.length)).map((i) => ({
        name: `${T}-dep-${['A', 'b', 'c_1'][i]}`,
        flow_id: flows[i].id,
        tags: flowTags[i + 1],
        paused: i === 1,
      })),
    // One run per state type, on the first four flows; expected start times around (and exactly at) the bound.
    flowRuns: (flows: Obj[], deployments: Obj[]): Obj[] =>
      count(flows.length > 0 ? states.length : 0).map((i) => {
        const deployment = i % 3 === 0 ? deployments[0] : undefined;
        const state: Obj = { type: states[i] };
        if (states[i] === 'SCHEDULED') state.state_details = { scheduled_time: at(0) };
        return {
          flow_id: deployment ? deployment.flow_id : parent(flows, i, 4).id,
          deployment_id: deployment?.id,
          name: `${T}-run-${i % 2 ? 'X' : 'x'}${i}`,
          tags: flowTags[i % flowTags.length],
          state,
        };
      }),
    taskRuns: (runs: Obj[]): Obj[] =>
      count(Math.min(6, runs.length * 2)).map((i) => ({
        flow_run_id: parent(runs, i, 3).id,
        task_key: `${T}-task-${i % 2}`,
        dynamic_key: `${i}`,
        name: `${T}-task-${i}`,
        tags: flowTags[i % flowTags.length],
        state: { type: states[i % states.length] },
      })),
    // Artifacts with a key and without one (exists_).
    artifacts: (runs: Obj[]): Obj[] =>
      count(runs.length > 0 ? 4 : 0).map((i) => ({
        key: i < 2 ? `${T}-key-${i}` : undefined,
        type: i % 2 ? 'table' : 'markdown',
        flow_run_id: parent(runs, i, 2).id,
        data: i,
      })),
  };
}
