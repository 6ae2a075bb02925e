/**
 * Prefect's server: what its document cannot say. Facts come from
 * docs/prefect-server-facts.md and from reading the server's source.
 */
import { randomUUID } from 'node:crypto';
import type { Operation } from '../../openapi/operations.js';
import { is2xx } from '../../openapi/request.js';
import { valueAt } from '../oracle.js';
import { prefectOperators } from './operators.js';
import { tellPrefectDatabase } from './prefectDatabase.js';
import { unknownIdentifier, type MadeForName, type Profile, type ProfileContext, type Safety } from './profile.js';

const BULK = /^\/(\w+)\/(bulk_delete|bulk_set_state)\/?$/;

/** The operations that write an automation whole: a create, a replace. */
const AUTOMATION_WRITE = /^(POST \/automations\/|PUT \/automations\/\{id\})$/;

/**
 * The operations that write a flow run notification policy (2.x; 3.x has automations instead): a create, an
 * update. A policy whose tags are empty matches every flow run of the server (database/query_components.py,
 * queue_flow_run_notifications), the user's too: with services on, each state change of any run queued a
 * notification through the run's generated block, which failed (2.20.27, one run: 337 "Error sending
 * notification" in the server's log).
 */
const POLICY_WRITE = /^(POST \/flow_run_notification_policies\/|PATCH \/flow_run_notification_policies\/\{id\})$/;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * An automation trigger that never fires on what the run causes. An event trigger matches the events of the
 * resources its `match` names, and the `{}` a schema's default gives names every resource: with the server's
 * services on (as `prefect server start` runs them), the triggers service fires such an automation on every
 * event the run causes, on the events of its own firings too, and runs its actions (pausing the deployment
 * an event names). The database lock is then held so often that the run's writes answer 503 for minutes,
 * and the run's objects change under its checks. Each event trigger of the run's (a compound or sequence
 * trigger's too) matches a resource that never emits; everything else about it is generated.
 */
function quietTrigger(trigger: Record<string, unknown>, runTag: string): Record<string, unknown> {
  const quiet = { ...trigger };
  if (Array.isArray(trigger.triggers))
    quiet.triggers = trigger.triggers.map((t) => (isObject(t) ? quietTrigger(t, runTag) : t));
  if (trigger.type === undefined || trigger.type === 'event')
    quiet.match = { 'prefect.resource.id': `${runTag}.no-such-resource` };
  return quiet;
}

/** A fresh object of the collection, so that a bulk operation scoped to it touches nothing else. */
async function scopedToFreshObject(ctx: ProfileContext, collection: string, body: unknown): Promise<{ body: unknown }> {
  const obj = await ctx.fixtures.object(`/${collection}`, 'fresh');
  return { body: { ...(body as object), [collection]: { id: { any_: [obj.id] } } } };
}

/**
 * 2.x and 3.0 (models/concurrency_limits_v2.py, bulk_read_or_create_concurrency_limits): increment and decrement
 * make an inactive limit of limit 1 for each name they do not find, and answer with it among those they read.
 * 3.4 and later make none. The Date header has whole seconds, and the limit is made while the request is served.
 */
const limitForName: MadeForName = {
  namesField: 'names',
  item: '/v2/concurrency_limits/{id_or_name}',
  madeBy: (obj, answeredAt) =>
    obj.active === false && Math.abs(Date.parse(String(obj.created)) - answeredAt) <= MADE_WITHIN_MS,
};
/** How far a limit's `created` may lie from the Date of the answer that made it: the header's whole second, and the request's time. */
const MADE_WITHIN_MS = 2000;
export const prefectProfile: Profile = {
  name: 'prefect',
  database: tellPrefectDatabase,
  // A task run without a flow run, or an artifact without one, is legal but not what clients send.
  optionalReferences: ['flow_run_id'],
  unknownValue: unknownIdentifier,
  // The views below a flow run (its graph, graph-v2, logs download) gather its task runs and logs, which the
  // exercise's generated bodies put under the shared flow run in no fixed order; the graph (v1) answers 500
  // once one of those task runs takes anything but a task run's result as input (orchestration.views-any-
  // task-input shows it on runs of its own). Read under the shared run, the verdict hung on which came first.
  readsOwnObject: (op) => op.method === 'GET' && /^\/flow_runs\/\{id\}\/[^{}]+$/.test(op.path),
  pathValue(op: Operation, name: string) {
    // The views the server ships a local copy of (api/collections.py: KNOWN_VIEWS, collections_data/views).
    if (op.path === '/collections/views/{view}' && name === 'view') return 'aggregate-worker-metadata';
    return undefined;
  },
  fixtures: {
    // Workers exist once they send a heartbeat: the document has no other create.
    '/work_pools/{work_pool_name}/workers': async (ctx) => {
      const pool = await ctx.fixtures.object('/work_pools', 'shared');
      const name = ctx.safe.name();
      const path = `/work_pools/${encodeURIComponent(String(pool.name))}/workers/heartbeat`;
      const ex = await ctx.fixtures.send({
        method: 'POST',
        template: '/work_pools/{work_pool_name}/workers/heartbeat',
        path,
        json: { name },
      });
      if (ex.status >= 300) throw new Error(`worker heartbeat answered ${ex.status}: ${ex.body.slice(0, 200)}`);
      return { obj: { name }, pathParams: { work_pool_name: pool.name }, record: true };
    },
    // A state is created by its run, and deleted with it.
    '/flow_run_states': async (ctx) => ({
      obj: { id: (await ctx.fixtures.object('/flow_runs', 'shared')).state_id },
      record: false,
    }),
    '/task_run_states': async (ctx) => ({
      obj: { id: (await ctx.fixtures.object('/task_runs', 'shared')).state_id },
      record: false,
    }),
  },
  recipe: {
    // Block schemas are upserted by the checksum of their fields: unique fields keep fresh ones apart.
    // The write-path capability lets the shared block document serve as result storage (PUT /admin/storage).
    'POST /block_schemas/': (i) => ({
      body: {
        ...(i.body as object),
        fields: { title: i.safe.name(), type: 'object', properties: {}, block_schema_references: {} },
        capabilities: ['read-path', 'write-path'],
      },
    }),
    'POST /flows/bulk_delete': (i) => scopedToFreshObject(i, 'flows', i.body),
    'POST /flow_runs/bulk_delete': (i) => scopedToFreshObject(i, 'flow_runs', i.body),
    'POST /deployments/bulk_delete': (i) => scopedToFreshObject(i, 'deployments', i.body),
    'POST /flow_runs/bulk_set_state': (i) => scopedToFreshObject(i, 'flow_runs', i.body),
    // Every event's resource needs a `prefect.resource.id` label (server/events/schemas/events.py).
    'POST /events': (i) => ({
      body: [
        {
          id: randomUUID(),
          occurred: new Date().toISOString(),
          event: `${i.safe.runTag}.conformance`,
          resource: { 'prefect.resource.id': `conformance.${i.safe.runTag}` },
        },
      ],
    }),
    'PUT /admin/storage': async (i) => ({
      body: {
        ...(i.body as object),
        default_result_storage_block_id: (await i.fixtures.object('/block_documents', 'shared')).id,
      },
    }),
    // The dashboard counts need a window start (api/ui/task_runs.py raises 422 without one).
    'POST /ui/task_runs/dashboard/counts': (i) => ({
      body: {
        ...(i.body as object),
        task_runs: { start_time: { after_: new Date(Date.now() - 86_400_000).toISOString() } },
      },
    }),
  },
  async asyncPathValue(ctx: ProfileContext, _op: Operation, name: string) {
    // A lease exists only once a slot was taken with one.
    if (name === 'lease_id') {
      // A limit of its own: the lease takes its only slot.
      const limit = await ctx.fixtures.object('/v2/concurrency_limits', 'fresh');
      const ex = await ctx.fixtures.send({
        method: 'POST',
        template: '/v2/concurrency_limits/increment-with-lease',
        path: '/v2/concurrency_limits/increment-with-lease',
        json: { names: [limit.name], slots: 1, lease_duration: 60 },
      });
      return (ex.json as { lease_id?: string } | undefined)?.lease_id;
    }
    return undefined;
  },
  // Computed on every read from the clock (schemas/core.py FlowRun.estimated_*), so they differ between two GETs.
  volatileFields: ['estimated_run_time', 'estimated_start_time_delta'],
  // A work queue's status is PAUSED while it is paused (server/models/work_queues.py reads is_paused). On 2.x a
  // deployment's is_schedule_active is the older name of not paused (server/models/deployments.py sets one from
  // the other).
  derivedFields: { is_paused: ['status'], is_schedule_active: ['paused'] },
  upserts: {
    'POST /flows/': ['name'],
    'POST /deployments/': ['flow_id', 'name'],
    'POST /task_runs/': ['flow_run_id', 'task_key', 'dynamic_key'],
  },
  version: { minimum: '0.8.0' },
  orchestration: {
    source: 'Prefect profile: server/orchestration/core_policy.py (facts §8)',
    pendingToPendingAborts: true,
    runningBeforeScheduledWaits: true,
    forceBypasses: true,
  },
  filterSemantics: {
    operators: prefectOperators,
    // A flow run's start_time filters and sorts COALESCE(start_time, expected_start_time); is_null_ looks at start_time alone (facts §2).
    fieldValue(key, obj, path, operator, corpus) {
      // flows.deployment.is_null_: whether any deployment is of the flow (FlowFilterDeployment).
      if (key === 'flows' && path.join('.') === 'deployment')
        return (corpus.deployments ?? []).filter((d) => d.flow_id === obj.id);
      const value = valueAt(obj, path);
      if (key === 'flow_runs' && path.join('.') === 'start_time' && operator !== 'is_null_')
        return value ?? obj.expected_start_time;
      return value;
    },
    // The spec does not say what start_time before_/after_ make of a run that has not started; 3.4.25 and
    // 3.8.8 compare the COALESCE above, 3.0.11 compares start_time alone, which leaves such a run out.
    otherReadings: [
      {
        applies: (c) => c.key === 'flow_runs' && c.path.join('.') === 'start_time' && c.operator !== 'is_null_',
        description: 'start_time before_/after_ compare start_time alone (a run not started yet is left out)',
        fieldValue: (_key, obj, path) => valueAt(obj, path),
      },
    ],
  },
  sortKey(key, value) {
    if (key === 'flow_runs' && /^START_TIME_/.test(value)) return (o) => o.start_time ?? o.expected_start_time;
    return undefined;
  },
  // PREFECT_SERVER_API_DEFAULT_LIMIT (api/dependencies.py LimitBody): the document does not carry it.
  maxLimit: 200,
  historyMaxBins: 500,
  historyBinnedBy: 'expected_start_time',
  // The document's description: "The size of each history interval, in seconds. Must be at least 1 second."
  historyMinIntervalSeconds: 1,
  namesMadeOnDemand: ['work_queue_name'],
  // get_runs with an agent_id records an agent, which no operation deletes; on 3.0.11 and 2.20.26 its
  // foreign key then makes the run's work queue undeletable (409), and its pool with it.
  fieldsNeverSent: ['agent_id'],
  restrain(op, body, runTag) {
    const key = `${op.method} ${op.path}`;
    if (!isObject(body)) return body;
    // A policy's tags, where the body sets them, name a tag no flow run carries: it queues no notification.
    if (POLICY_WRITE.test(key) && Array.isArray(body.tags)) return { ...body, tags: [`${runTag}.no-such-run`] };
    if (!AUTOMATION_WRITE.test(key) || !isObject(body.trigger)) return body;
    return { ...body, trigger: quietTrigger(body.trigger, runTag) };
  },
  async madeForRun(send, run) {
    /** Every object a filter selects, page by page. */
    const select = async (path: string, filter: object): Promise<Array<{ id?: unknown }>> => {
      const all: Array<{ id?: unknown }> = [];
      for (let offset = 0; ; offset += 200) {
        const page = await send({ method: 'POST', template: path, path, json: { ...filter, limit: 200, offset } });
        if (!is2xx(page) || !Array.isArray(page.json)) return all;
        all.push(...(page.json as Array<{ id?: unknown }>));
        if (page.json.length < 200) return all;
      }
    };
    // The filters go side by side (reads; a far target's round trips overlap), their finds kept in this order.
    // A work queue made for a deployment or flow run that named one (its generated name carries the run's tag).
    const queues = select('/work_queues/filter', { work_queues: { name: { startswith_: [run.runTag] } } });
    // A state with data is stored as an artifact of its run, which outlives the run.
    const artifacts = (
      [
        ['/flow_runs', 'flow_run_id'],
        ['/task_runs', 'task_run_id'],
      ] as const
    ).flatMap(([collection, field]) => {
      const ids = run.ids(collection);
      return Array.from({ length: Math.ceil(ids.length / 100) }, (_, b) =>
        select('/artifacts/filter', { artifacts: { [field]: { any_: ids.slice(b * 100, b * 100 + 100) } } }),
      );
    });
    const [queuesFound, ...artifactsFound] = await Promise.all([queues, ...artifacts]);
    const found = [
      ...queuesFound.map((q) => ({ path: `/work_queues/${q.id}`, template: '/work_queues/{id}' })),
      ...artifactsFound.flat().map((a) => ({ path: `/artifacts/${a.id}`, template: '/artifacts/{id}' })),
    ];
    return [...new Map(found.map((f) => [f.path, f])).values()];
  },
  madeForNames: Object.fromEntries(
    ['POST /v2/concurrency_limits/increment', 'POST /v2/concurrency_limits/decrement'].map((key) => [
      key,
      limitForName,
    ]),
  ),
  // models/deployments.py, delete_deployment: the deployment's concurrency limit (`concurrency_limit` in its
  // body, no `_id`) is a /v2/concurrency_limits object, deleted with it.
  deleteReaches: [['/deployments', '/v2/concurrency_limits']],
  sideEffects: [
    {
      path: '/work_pools/default-agent-pool',
      template: '/work_pools/{name}',
      why: 'Prefect makes it for a work queue or deployment that names no work pool',
      // Made with one queue, "default"; any other queue or a deployment in it is someone's. A queue of the
      // run's own that its delete left behind may go with the pool (the run's queues are deleted first, so
      // normally none is left).
      async isBare(send, runTag) {
        const queues = await send({
          method: 'POST',
          template: '/work_pools/{work_pool_name}/queues/filter',
          path: '/work_pools/default-agent-pool/queues/filter',
          json: {},
        });
        const deployments = await send({
          method: 'POST',
          template: '/deployments/count',
          path: '/deployments/count',
          json: { work_pools: { name: { any_: ['default-agent-pool'] } } },
        });
        if (!is2xx(queues) || !Array.isArray(queues.json) || !is2xx(deployments)) return false;
        const names = queues.json.map((q) => (q as { name?: unknown }).name);
        return deployments.json === 0 && names.every((n) => n === 'default' || String(n).startsWith(`${runTag}-`));
      },
    },
  ],
  unreachable(op: Operation) {
    if (op.key === 'GET /csrf-token')
      return 'CSRF protection is off on the server (PREFECT_SERVER_API_CSRF_PROTECTION_ENABLED defaults to false), and then it answers 422 by design';
    if (op.key === 'GET /events/filter/next')
      return 'needs a page token from POST /events/filter, which gives none unless the server runs its event persister service (the managed server runs without services)';
    return undefined;
  },
  safety(op: Operation): Safety | undefined {
    if (op.path.startsWith('/admin/') && op.method !== 'GET')
      return { generated: false, disposableOnly: true, reason: 'changes server settings: unsafe on a shared target' };
    if (BULK.test(op.path))
      return {
        generated: false,
        disposableOnly: false,
        reason: "acts on every object its filter matches: only sent scoped to the run's own objects",
      };
    if (op.key === 'POST /block_types/install_system_block_types')
      return {
        generated: false,
        disposableOnly: true,
        reason: 'installs block types server-wide: unsafe on a shared target',
      };
    if (op.key === 'POST /events' || op.key === 'POST /logs/')
      return {
        generated: true,
        disposableOnly: true,
        reason: 'writes records the API offers no way to delete: unsafe on a shared target',
      };
    if (op.key === 'DELETE /automations/owned-by/{resource_id}')
      return {
        generated: false,
        disposableOnly: false,
        reason: 'deletes every automation a resource owns: only sent for an id no automation names',
      };
    return undefined;
  },
};
