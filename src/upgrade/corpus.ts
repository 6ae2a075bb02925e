/**
 * The corpus `conformance upgrade` writes through the first release's API before its database is migrated: an
 * object or more of every collection the release has (those its document lists a create for), as a team's
 * server holds them. Flow runs in every state type, each with its state history; task runs; logs; artifacts
 * with and without a key; variables; a block type, schema and document; a work pool with a queue; work queues;
 * concurrency limits (both versions); deployments with a schedule; saved searches.
 *
 * Each object is named for where it is read back: by id (its path in the document) and by filter (the
 * collection's filter narrowed to the corpus's ids, or to its flow runs).
 */
import { STATE_TYPES } from '../resources/corpus.js';
import type { UpgradeApi } from './api.js';

/** How an object is read back: the document's path template, and the path of this object. */
export interface ReadPath {
  template: string;
  path: string;
}

/** A read of a collection that must hold the object: a POST of a filter, or a GET of a list. */
export interface CollectionRead {
  method: 'POST' | 'GET';
  path: string;
  body?: unknown;
}

export interface WrittenObject {
  collection: string;
  id: string;
  /** Its read by id; none where the document has no such path (a log). */
  byId?: ReadPath;
  /** Its collection's read that must list it. */
  byFilter?: CollectionRead;
}

const titled = (type: string) => type.charAt(0) + type.slice(1).toLowerCase();

/** The states a run passes through on its way to `type`: SCHEDULED, PENDING, RUNNING, then the end. */
function pathTo(type: string): string[] {
  const way = ['SCHEDULED', 'PENDING', 'RUNNING'];
  const at = way.indexOf(type);
  return at >= 0 ? way.slice(0, at + 1) : [...way, type];
}

/** The corpus, written: what it wrote, in order, and the collections the release had no create for. */
export interface Corpus {
  objects: WrittenObject[];
  /** Collections of the corpus this release's document has no create for, or that it refused (with why). */
  absent: string[];
}

const idFilter = (collection: string, ids: string[]): CollectionRead => ({
  method: 'POST',
  path: `/${collection}/filter`,
  body: { [collection]: { id: { any_: ids } } },
});

/** Writes the corpus through `api`, its names made from `tag` (lowercase letters, digits and dashes). */
export async function writeCorpus(api: UpgradeApi, tag: string): Promise<Corpus> {
  const objects: WrittenObject[] = [];
  const absent: string[] = [];
  const add: Add = (collection, id, byId, byFilter) =>
    objects.push({
      collection,
      id,
      ...(byId ? { byId } : {}),
      ...(byFilter ? { byFilter } : {}),
    });
  const flow = await api.write('POST', '/flows/', { name: `${tag}-flow`, tags: [tag] });
  const flowId = String(flow.id);
  add('flows', flowId, at('/flows/{id}', flowId), idFilter('flows', [flowId]));

  const runs = await flowRuns(api, tag, flowId);
  for (const run of runs) add('flow_runs', run, at('/flow_runs/{id}', run), idFilter('flow_runs', [run]));
  await stateHistory(api, runs, add);
  const [, , running, completed] = runs;
  await taskRuns(api, tag, running, completed, add);
  await logs(api, runs.slice(0, 3), add);
  // A collection the release refuses to write as the corpus asks is left out, and says why; the rest go on.
  for (const write of [artifacts, variables, blocks, workPools, concurrencyLimits, deployments, savedSearches])
    try {
      absent.push(...(await write(api, tag, { flowId, runId: completed }, add)));
    } catch (e) {
      absent.push(`${write.name} (${(e as Error).message})`);
    }
  return { objects, absent };
}

/** Records an object the corpus wrote: its `id` field, its read by id, and the read of its collection. */
type Add = (collection: string, id: string, byId?: ReadPath, byFilter?: CollectionRead) => void;

/** The path of an object: the template with each of its parameters in turn (an id, or a pool's and a queue's names). */
function at(template: string, ...values: string[]): ReadPath {
  let i = 0;
  return { template, path: template.replace(/\{[^}]+\}/g, () => encodeURIComponent(values[i++] ?? '')) };
}
type Context = { flowId: string; runId: string };

/** A flow run ending in each state type of the spec, through the states before it (forced: the history is the point). */
async function flowRuns(api: UpgradeApi, tag: string, flowId: string): Promise<string[]> {
  const ids: string[] = [];
  for (const type of STATE_TYPES) {
    const [first, ...rest] = pathTo(type);
    const run = await api.write('POST', '/flow_runs/', {
      flow_id: flowId,
      name: `${tag}-${type.toLowerCase()}`,
      tags: [tag, type.toLowerCase()],
      parameters: { corpus: type },
      state: { type: first, name: titled(first) },
    });
    const id = String(run.id);
    for (const next of rest)
      await api.write('POST', `/flow_runs/${id}/set_state`, { state: { type: next, name: titled(next) }, force: true });
    ids.push(id);
  }
  return ids;
}

/** Each run's states, read by the release itself: the history the upgrade must keep. */
async function stateHistory(api: UpgradeApi, runs: string[], add: Add): Promise<void> {
  for (const run of runs) {
    const list = await api.send('GET', `/flow_run_states/?flow_run_id=${run}`);
    const history: CollectionRead = { method: 'GET', path: `/flow_run_states/?flow_run_id=${run}` };
    for (const state of (list.body as Array<{ id: string }>) ?? [])
      add('flow_run_states', state.id, at('/flow_run_states/{id}', state.id), history);
  }
}

async function taskRuns(api: UpgradeApi, tag: string, running: string, completed: string, add: Add): Promise<void> {
  const ids: string[] = [];
  for (const [i, [flowRun, type]] of [
    [running, 'RUNNING'],
    [completed, 'COMPLETED'],
    [completed, 'FAILED'],
  ].entries()) {
    const task = await api.write('POST', '/task_runs/', {
      flow_run_id: flowRun,
      task_key: `${tag}-task`,
      dynamic_key: String(i),
      name: `${tag}-task-${i}`,
      tags: [tag],
      state: { type, name: titled(type) },
    });
    ids.push(String(task.id));
  }
  for (const id of ids) add('task_runs', id, at('/task_runs/{id}', id), idFilter('task_runs', ids));
  for (const id of ids) {
    const list = await api.send('GET', `/task_run_states/?task_run_id=${id}`);
    for (const state of (list.body as Array<{ id: string }>) ?? [])
      add('task_run_states', state.id, at('/task_run_states/{id}', state.id), {
        method: 'GET',
        path: `/task_run_states/?task_run_id=${id}`,
      });
  }
}

/** Logs have no read by id: each is found again through the filter of its flow run. */
async function logs(api: UpgradeApi, runs: string[], add: Add): Promise<void> {
  const at = Date.parse('2026-06-01T12:00:00Z');
  const sent = runs.flatMap((run, r) =>
    [10, 20, 30, 40, 50].map((level, i) => ({
      name: 'corpus',
      level,
      message: `log ${r}.${i} of the corpus: ünïcode ✓`,
      timestamp: new Date(at + (r * 5 + i) * 1000).toISOString(),
      flow_run_id: run,
    })),
  );
  await api.write('POST', '/logs/', sent);
  const filter: CollectionRead = {
    method: 'POST',
    path: '/logs/filter',
    body: { logs: { flow_run_id: { any_: runs } }, limit: 200 },
  };
  const found = await api.send(filter.method, filter.path, filter.body);
  for (const log of (found.body as Array<{ id: string }>) ?? []) add('logs', log.id, undefined, filter);
}

async function artifacts(api: UpgradeApi, tag: string, { runId }: Context, add: Add): Promise<string[]> {
  if (!api.has('POST', '/artifacts/')) return ['artifacts'];
  const ids: string[] = [];
  for (const key of [`${tag}-artifact`, undefined]) {
    const made = await api.write('POST', '/artifacts/', {
      ...(key ? { key } : {}),
      type: 'markdown',
      data: `# corpus ${key ?? 'without a key'}`,
      description: 'written before the upgrade',
      flow_run_id: runId,
    });
    ids.push(String(made.id));
  }
  for (const id of ids) add('artifacts', id, at('/artifacts/{id}', id), idFilter('artifacts', ids));
  return [];
}

async function variables(api: UpgradeApi, tag: string, _c: Context, add: Add): Promise<string[]> {
  if (!api.has('POST', '/variables/')) return ['variables'];
  const name = tag.replace(/-/g, '_');
  const made = await api.write('POST', '/variables/', { name: `${name}_var`, value: 'corpus value', tags: [tag] });
  add('variables', String(made.id), at('/variables/{id}', String(made.id)), idFilter('variables', [String(made.id)]));
  return [];
}

async function blocks(api: UpgradeApi, tag: string, _c: Context, add: Add): Promise<string[]> {
  if (!api.has('POST', '/block_documents/')) return ['block_documents'];
  const type = await api.write('POST', '/block_types/', { name: `${tag}-block`, slug: `${tag}-block` });
  const typeId = String(type.id);
  add('block_types', typeId, at('/block_types/{id}', typeId));
  const schema = await api.write('POST', '/block_schemas/', {
    block_type_id: typeId,
    fields: { title: 'Corpus', type: 'object', properties: { value: { title: 'Value', type: 'string' } } },
    capabilities: [],
  });
  add('block_schemas', String(schema.id), at('/block_schemas/{id}', String(schema.id)));
  const doc = await api.write('POST', '/block_documents/', {
    name: `${tag}-document`,
    block_type_id: typeId,
    block_schema_id: String(schema.id),
    data: { value: 'kept across the upgrade' },
  });
  add('block_documents', String(doc.id), at('/block_documents/{id}', String(doc.id)), {
    method: 'POST',
    path: '/block_documents/filter',
    body: { block_documents: { id: { any_: [String(doc.id)] } } },
  });
  return [];
}

async function workPools(api: UpgradeApi, tag: string, _c: Context, add: Add): Promise<string[]> {
  const missing: string[] = [];
  if (api.has('POST', '/work_pools/')) {
    const pool = await api.write('POST', '/work_pools/', {
      name: `${tag}-pool`,
      type: 'process',
      concurrency_limit: 5,
    });
    add(
      'work_pools',
      String(pool.id),
      at('/work_pools/{name}', String(pool.name)),
      idFilter('work_pools', [String(pool.id)]),
    );
    const queue = await api.write('POST', `/work_pools/${pool.name}/queues/`, {
      name: `${tag}-pool-queue`,
      priority: 2,
    });
    // Read by both names: the queue's path sits under its pool's.
    add(
      'work_pool_queues',
      String(queue.id),
      at('/work_pools/{work_pool_name}/queues/{name}', String(pool.name), String(queue.name)),
      {
        method: 'POST',
        path: `/work_pools/${pool.name}/queues/filter`,
      },
    );
  } else missing.push('work_pools');
  if (api.has('POST', '/work_queues/')) {
    const queue = await api.write('POST', '/work_queues/', { name: `${tag}-queue`, concurrency_limit: 3 });
    add(
      'work_queues',
      String(queue.id),
      at('/work_queues/{id}', String(queue.id)),
      idFilter('work_queues', [String(queue.id)]),
    );
  } else missing.push('work_queues');
  return missing;
}

async function concurrencyLimits(api: UpgradeApi, tag: string, _c: Context, add: Add): Promise<string[]> {
  const missing: string[] = [];
  if (api.has('POST', '/concurrency_limits/')) {
    const limit = await api.write('POST', '/concurrency_limits/', { tag: `${tag}-limit`, concurrency_limit: 3 });
    add('concurrency_limits', String(limit.id), at('/concurrency_limits/{id}', String(limit.id)));
  } else missing.push('concurrency_limits');
  if (api.has('POST', '/v2/concurrency_limits/')) {
    const limit = await api.write('POST', '/v2/concurrency_limits/', { name: `${tag}-limit-v2`, limit: 2 });
    add('v2/concurrency_limits', String(limit.id), at('/v2/concurrency_limits/{id_or_name}', String(limit.id)));
  } else missing.push('v2/concurrency_limits');
  return missing;
}

async function deployments(api: UpgradeApi, tag: string, { flowId }: Context, add: Add): Promise<string[]> {
  if (!api.has('POST', '/deployments/')) return ['deployments'];
  const schedule = { interval: 3600, anchor_date: '2026-01-01T00:00:00+00:00', timezone: 'UTC' };
  const made = await api.write('POST', '/deployments/', {
    name: `${tag}-deployment`,
    flow_id: flowId,
    tags: [tag],
    parameters: { corpus: true },
    schedules: [{ schedule, active: true }],
  });
  const id = String(made.id);
  add('deployments', id, at('/deployments/{id}', id), idFilter('deployments', [id]));
  if (api.has('GET', '/deployments/{id}/schedules'))
    for (const s of (await api.send('GET', `/deployments/${id}/schedules`)).body as Array<{ id: string }>)
      add('deployment_schedules', s.id, undefined, { method: 'GET', path: `/deployments/${id}/schedules` });
  return [];
}

async function savedSearches(api: UpgradeApi, tag: string, _c: Context, add: Add): Promise<string[]> {
  if (!api.has('PUT', '/saved_searches/')) return ['saved_searches'];
  const made = await api.write('PUT', '/saved_searches/', {
    name: `${tag}-search`,
    filters: [{ object: 'flow', property: 'name', type: 'string', operation: 'equals', value: tag }],
  });
  add('saved_searches', String(made.id), at('/saved_searches/{id}', String(made.id)));
  return [];
}
