/**
 * The mutants: each breaks one behaviour of the real server, and names the check (and operation) that
 * must catch it. The kill matrix runs the suite against each, scoped to the operations it touches.
 */
import { UNKNOWN_UUID } from '../../src/model/profiles/profile.js';
import { CLOUD_KEY } from '../support/cloudProxy.js';
import { json, matches, type Mutant, type ProxiedRequest, type ProxiedResponse } from '../support/proxy.js';

export interface MutantCase {
  mutant: Mutant;
  /** Which proxy the mutant sits in: the plain one, or the cloud-shaped one that requires a Bearer key. */
  target?: 'plain' | 'cloud';
  /** CONFORMANCE_OPERATIONS for the run: the operations the mutant touches. */
  operations: string;
  /** The checks that must fail: "check-id OPERATION". */
  killedBy: string[];
  /** CONFORMANCE_TARGET_LABEL for the run, when the mutant plays another database than SQLite. */
  label?: string;
}

const FLOW_ITEM = '/flows/{id}';

export const contractMutants: MutantCase[] = [
  {
    mutant: {
      id: 'contract-500-on-filter',
      breaks: 'POST /flows/filter answers 500',
      onResponse: (req, res) =>
        matches('/flows/filter', 'POST', req)
          ? { ...res, status: 500, body: json.body({ exception_message: 'Internal Server Error' }) }
          : res,
    },
    operations: '^POST /flows/filter$',
    killedBy: ['contract.no-5xx POST /flows/filter'],
  },
  {
    mutant: (() => {
      // The flow runs a PATCH renamed with reserved characters, until one sets a plain name back.
      const broken = new Set<string>();
      const idOf = (path: string) => /^\/flow_runs\/([^/?]+)/.exec(path)?.[1];
      return {
        id: 'contract-read-back-breaks',
        breaks:
          'a flow run renamed by PATCH with reserved characters (<&%>) answers 500 to every read of it, by id and through the filter',
        onRequest: (req: ProxiedRequest) => {
          const id = idOf(req.path);
          const named = matches('/flow_runs/{id}', 'GET', req) && id && broken.has(id);
          const listed = matches('/flow_runs/filter', 'POST', req) && [...broken].some((b) => req.body.includes(b));
          return named || listed ? jsonResponse(500, { exception_message: 'Internal Server Error' }) : req;
        },
        onResponse: (req: ProxiedRequest, res: ProxiedResponse) => {
          const id = idOf(req.path);
          if (matches('/flow_runs/{id}', 'PATCH', req) && id && res.status < 300) {
            const name = bodyOf(req).name;
            if (typeof name === 'string' && /[<&%>]/.test(name)) broken.add(id);
            else if (typeof name === 'string') broken.delete(id);
          }
          return res;
        },
      };
    })(),
    operations: '^PATCH /flow_runs/\\{id\\}$',
    killedBy: ['contract.reads-back PATCH /flow_runs/{id}'],
  },
  {
    mutant: {
      id: 'contract-text-plain',
      breaks: 'GET /flows/{id} answers its JSON as text/plain',
      onResponse: (req, res) =>
        matches(FLOW_ITEM, 'GET', req) && res.status === 200
          ? { ...res, headers: { ...res.headers, 'content-type': 'text/plain' } }
          : res,
    },
    operations: '^GET /flows/\\{id\\}$',
    killedBy: ['contract.content-type GET /flows/{id}'],
  },
  {
    mutant: {
      id: 'contract-drop-required-field',
      breaks: 'GET /flows/{id} leaves out the required field "name"',
      onResponse: (req, res) => {
        if (!matches(FLOW_ITEM, 'GET', req) || res.status !== 200) return res;
        const { name: _dropped, ...rest } = json.parse(res.body) as Record<string, unknown>;
        return { ...res, body: json.body(rest) };
      },
    },
    operations: '^GET /flows/\\{id\\}$',
    killedBy: ['contract.success-schema GET /flows/{id}'],
  },
  {
    mutant: {
      id: 'contract-wrong-field-type',
      breaks: 'POST /flows/filter answers tags as a string',
      onResponse: (req, res) => {
        if (!matches('/flows/filter', 'POST', req) || res.status !== 200) return res;
        const flows = json.parse(res.body) as Array<Record<string, unknown>>;
        // An empty page would hide the mutant: add a flow-shaped item to be sure one is checked.
        const items = flows.length
          ? flows
          : [
              {
                id: '00000000-0000-4000-8000-000000000001',
                name: 'x',
                created: null,
                updated: null,
                tags: [],
                labels: {},
              },
            ];
        return { ...res, body: json.body(items.map((f) => ({ ...f, tags: 'not-a-list' }))) };
      },
    },
    operations: '^POST /flows/filter$',
    killedBy: ['contract.success-schema POST /flows/filter'],
  },
  {
    mutant: {
      id: 'contract-undocumented-status',
      breaks: 'GET /flows/{id} answers 203 instead of 200',
      onResponse: (req, res) => (matches(FLOW_ITEM, 'GET', req) && res.status === 200 ? { ...res, status: 203 } : res),
    },
    operations: '^GET /flows/\\{id\\}$',
    killedBy: ['contract.success-status-documented GET /flows/{id}'],
  },
  {
    mutant: {
      id: 'contract-invalid-accepted',
      breaks: 'POST /variables/ accepts an invalid body with 201',
      onResponse: (req, res) =>
        matches('/variables/', 'POST', req) && res.status === 422
          ? {
              ...res,
              status: 201,
              body: json.body({
                id: '00000000-0000-4000-8000-000000000002',
                name: 'x',
                value: null,
                tags: [],
                created: null,
                updated: null,
              }),
            }
          : res,
    },
    operations: '^POST /variables/$',
    killedBy: [
      'contract.invalid-malformed-json POST /variables/',
      'contract.invalid-missing-required POST /variables/',
      'contract.invalid-wrong-type POST /variables/',
    ],
  },
  {
    mutant: {
      id: 'contract-200-for-unknown-id',
      breaks: 'GET /flows/{id} answers 200 for an id that names no flow',
      onResponse: (req, res) =>
        matches(FLOW_ITEM, 'GET', req) && res.status === 404
          ? {
              status: 200,
              headers: { 'content-type': 'application/json' },
              body: json.body({
                id: req.path.split('/')[2],
                name: 'ghost',
                tags: [],
                labels: {},
                created: null,
                updated: null,
              }),
            }
          : res,
    },
    operations: '^GET /flows/\\{id\\}$',
    killedBy: ['contract.unknown-id-404 GET /flows/{id}'],
  },
  {
    mutant: {
      id: 'contract-truncated-json',
      breaks: 'GET /flows/{id} cuts its JSON body in half',
      onResponse: (req, res) =>
        matches(FLOW_ITEM, 'GET', req) && res.status === 200
          ? { ...res, body: res.body.subarray(0, Math.floor(res.body.length / 2)) }
          : res,
    },
    operations: '^GET /flows/\\{id\\}$',
    killedBy: ['contract.content-type GET /flows/{id}'],
  },
  {
    mutant: {
      id: 'contract-connection-dropped',
      breaks: 'GET /flows/{id} drops the connection without answering (no 503 before it)',
      onRequest: (req) => (matches(FLOW_ITEM, 'GET', req) ? { status: 0, headers: {}, body: Buffer.alloc(0) } : req),
    },
    operations: '^GET /flows/\\{id\\}$',
    killedBy: ['contract.no-5xx GET /flows/{id}'],
  },
  {
    mutant: {
      id: 'contract-500-for-unknown-id',
      breaks: 'DELETE /flows/{id} answers 500 where the flow does not exist',
      onResponse: (req, res) =>
        matches(FLOW_ITEM, 'DELETE', req) && res.status === 404
          ? { ...res, status: 500, body: json.body({ exception_message: 'Internal Server Error' }) }
          : res,
    },
    operations: '^DELETE /flows/\\{id\\}$',
    killedBy: ['contract.unknown-id-404 DELETE /flows/{id}', 'contract.no-5xx DELETE /flows/{id}'],
  },
  {
    mutant: {
      id: 'contract-action-on-unknown-id-accepted',
      breaks: 'POST /flow_runs/{id}/set_state on a flow run that does not exist answers 200 as if it had acted',
      onResponse: (req, res) =>
        matches('/flow_runs/{id}/set_state', 'POST', req) && res.status === 404
          ? jsonResponse(200, { status: 'ACCEPT', state: null, details: {} })
          : res,
    },
    operations: '^POST /flow_runs/\\{id\\}/set_state$',
    killedBy: ['contract.unknown-id-404 POST /flow_runs/{id}/set_state'],
  },
  {
    mutant: {
      id: 'contract-500-on-limit-past-64-bits',
      breaks:
        'POST /flows/filter answers 500 to a limit past 64 bits, which the real server refuses (422) and which its known crash on such an offset must not excuse',
      onResponse: (req, res) => {
        if (!matches('/flows/filter', 'POST', req) || res.status !== 422 || !isObject(json.parse(req.body))) return res;
        const limit = bodyOf(req).limit;
        return typeof limit === 'number' && limit >= 2 ** 63
          ? { ...res, status: 500, body: json.body({ exception_message: 'Internal Server Error' }) }
          : res;
      },
    },
    operations: '^POST /flows/filter$',
    killedBy: ['contract.no-5xx POST /flows/filter'],
  },
  {
    mutant: {
      id: 'contract-500-on-unknown-reference',
      breaks:
        'POST /deployments/ answers 500 to a flow_id that names no flow, which the real server refuses (409: a foreign key)',
      onResponse: (req, res) =>
        matches('/deployments/', 'POST', req) && isObject(json.parse(req.body)) && bodyOf(req).flow_id === UNKNOWN_UUID
          ? { ...res, status: 500, body: json.body({ exception_message: 'Internal Server Error' }) }
          : res,
    },
    operations: '^POST /deployments/$',
    killedBy: ['contract.no-5xx POST /deployments/'],
  },
  {
    mutant: {
      id: 'contract-default-sort-other',
      breaks: 'POST /flows/filter sorts by NAME_DESC where the request leaves out sort (documented default NAME_ASC)',
      onRequest: (req) =>
        matches('/flows/filter', 'POST', req) && isObject(json.parse(req.body)) && !('sort' in bodyOf(req))
          ? { ...req, body: json.body({ ...bodyOf(req), sort: 'NAME_DESC' }) }
          : req,
    },
    operations: '^POST /flows/filter$',
    killedBy: ['contract.default-read[body.sort] POST /flows/filter'],
  },
  {
    mutant: {
      id: 'contract-default-create-other',
      breaks:
        'POST /deployments/ makes a paused deployment where the request leaves out paused (documented default false)',
      onRequest: (req) =>
        matches('/deployments/', 'POST', req) && isObject(json.parse(req.body)) && !('paused' in bodyOf(req))
          ? { ...req, body: json.body({ ...bodyOf(req), paused: true }) }
          : req,
    },
    operations: '^POST /deployments/$',
    killedBy: ['contract.default-write[body.paused] POST /deployments/'],
  },
  {
    mutant: {
      id: 'contract-default-action-required',
      breaks: 'POST /flow_runs/{id}/set_state refuses a body without force (documented default false) as missing it',
      onRequest: (req) =>
        matches('/flow_runs/{id}/set_state', 'POST', req) && isObject(json.parse(req.body)) && !('force' in bodyOf(req))
          ? jsonResponse(422, { detail: [{ type: 'missing', loc: ['body', 'force'], msg: 'Field required' }] })
          : req,
    },
    operations: '^POST /flow_runs/\\{id\\}/set_state$',
    killedBy: ['contract.default-write[body.force] POST /flow_runs/{id}/set_state'],
  },
  {
    mutant: {
      id: 'contract-default-query-required',
      breaks:
        'GET /block_documents/{id} refuses a request without include_secrets (documented default false) as missing it',
      onRequest: (req) =>
        matches('/block_documents/{id}', 'GET', req) && !/[?&]include_secrets=/.test(req.path)
          ? jsonResponse(422, {
              detail: [{ type: 'missing', loc: ['query', 'include_secrets'], msg: 'Field required' }],
            })
          : req,
    },
    operations: '^GET /block_documents/\\{id\\}$',
    killedBy: ['contract.default-read[query.include_secrets] GET /block_documents/{id}'],
  },
];

/** A mutant that drops a malformed version header before the server sees it: the server accepts it. */
export function malformedVersionAccepted(id: string, header: string): Mutant {
  return {
    id,
    breaks: `a malformed ${header} is accepted`,
    onRequest: (req) => {
      const v = req.headers[header];
      if (v === undefined || /^\d+\.\d+\.\d+$/.test(v)) return req;
      const { [header]: _dropped, ...headers } = req.headers;
      return { ...req, headers };
    },
  };
}

/** A mutant that adds the key to a POST /flows/filter that carries none: served without credentials. */
export function filterServedWithoutKey(id: string, key: string): Mutant {
  return {
    id,
    breaks: 'POST /flows/filter is served without credentials',
    onRequest: (req) =>
      matches('/flows/filter', 'POST', req) && !req.headers.authorization
        ? { ...req, headers: { ...req.headers, authorization: `Bearer ${key}` } }
        : req,
  };
}

const jsonResponse = (status: number, value: unknown): ProxiedResponse => ({
  status,
  headers: { 'content-type': 'application/json' },
  body: json.body(value),
});
/** A body that parses as a JSON object: a mutant that reads a field leaves malformed bodies to the server. */
const isObject = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value);
const bodyOf = (req: ProxiedRequest) => (json.parse(req.body) ?? {}) as Record<string, unknown>;
const idIn = (req: ProxiedRequest) => req.path.split('?')[0].split('/')[2];
let putCounter = 0;
/** A set_state answer turned into an ACCEPT of what it refused or deferred. */
const acceptedInstead = (res: ProxiedResponse, result: object): ProxiedResponse => ({
  ...res,
  status: 201,
  body: json.body({ ...result, status: 'ACCEPT', details: { type: 'accept_details' } }),
});
const pendingInFlight = new Map<string, number>();
const racedRuns = new Set<string>();
const proposesPending = (req: ProxiedRequest) =>
  (bodyOf(req).state as { type?: string } | undefined)?.type === 'PENDING';

export const verbMutants: MutantCase[] = [
  {
    mutant: {
      id: 'methods-get-side-effect',
      breaks: 'GET /flows/{id} also adds a tag to the flow',
      onResponse: async (req, res, upstream) => {
        if (matches(FLOW_ITEM, 'GET', req) && res.status === 200) {
          const flow = json.parse(res.body) as { tags: string[] };
          await upstream('PATCH', req.path, { tags: [...flow.tags, `touched-${flow.tags.length}`] });
        }
        return res;
      },
    },
    operations: '^GET /flows/\\{id\\}$',
    killedBy: ['methods.get-safe GET /flows/{id}'],
  },
  {
    mutant: {
      id: 'methods-get-reads-body',
      breaks: 'GET /flows/{id} with a body is refused',
      onRequest: (req) =>
        matches(FLOW_ITEM, 'GET', req) && req.body.length > 0 ? jsonResponse(400, { detail: 'GET with a body' }) : req,
    },
    operations: '^GET /flows/\\{id\\}$',
    killedBy: ['methods.get-ignores-body GET /flows/{id}'],
  },
  {
    mutant: {
      id: 'methods-delete-204-twice',
      breaks: 'DELETE /flows/{id} answers 204 where the flow is already gone',
      onResponse: (req, res) =>
        matches(FLOW_ITEM, 'DELETE', req) && res.status === 404
          ? { status: 204, headers: {}, body: Buffer.alloc(0) }
          : res,
    },
    operations: '^DELETE /flows/\\{id\\}$',
    killedBy: ['methods.delete-twice-404 DELETE /flows/{id}'],
  },
  {
    mutant: {
      id: 'methods-delete-two',
      breaks: 'DELETE /flows/{id} also deletes the newest other flow of the run',
      onResponse: async (req, res, upstream) => {
        if (matches(FLOW_ITEM, 'DELETE', req) && res.status === 204) {
          const others = await upstream('POST', '/flows/filter', {
            flows: { id: { not_any_: [idIn(req)] }, name: { like_: 'conformance-' } },
            sort: 'CREATED_DESC',
            limit: 1,
          });
          const [other] = json.parse(others.body) as Array<{ id: string }>;
          if (other) await upstream('DELETE', `/flows/${other.id}`);
        }
        return res;
      },
    },
    operations: '^DELETE /flows/\\{id\\}$',
    killedBy: ['methods.delete-only-target DELETE /flows/{id}'],
  },
  {
    mutant: (() => {
      // The flows this proxy saw deleted: its filter goes on answering them, as a stale cache of the filter would.
      const deleted = new Map<string, true>();
      return {
        id: 'methods-filter-keeps-deleted',
        breaks: 'POST /flows/filter goes on answering a flow after its DELETE',
        onResponse: (req: ProxiedRequest, res: ProxiedResponse) => {
          if (matches(FLOW_ITEM, 'DELETE', req) && res.status === 204) deleted.set(idIn(req), true);
          if (!matches('/flows/filter', 'POST', req) || res.status !== 200) return res;
          const asked = ((bodyOf(req).flows as { id?: { any_?: string[] } } | undefined)?.id?.any_ ?? []).filter((id) =>
            deleted.has(id),
          );
          const found = json.parse(res.body) as Array<Record<string, unknown>>;
          if (asked.length === 0 || found.length === 0) return res;
          return { ...res, body: json.body([...found, ...asked.map((id) => ({ ...found[0], id }))]) };
        },
      };
    })(),
    operations: '^DELETE /flows/\\{id\\}$',
    killedBy: ['methods.delete-gone-from-views DELETE /flows/{id}'],
  },
  {
    mutant: {
      id: 'methods-put-not-idempotent',
      breaks: 'PUT /saved_searches/ stores a different filter each time',
      onRequest: (req) =>
        matches('/saved_searches/', 'PUT', req)
          ? {
              ...req,
              body: json.body({
                ...bodyOf(req),
                filters: [
                  { object: 'flow', property: 'name', type: 'string', operation: 'eq', value: `v${++putCounter}` },
                ],
              }),
            }
          : req,
    },
    operations: '^PUT /saved_searches/$',
    killedBy: ['methods.put-idempotent PUT /saved_searches/'],
  },
  {
    mutant: {
      id: 'methods-405-as-404',
      breaks: 'a method a path does not offer answers 404',
      onResponse: (_req, res) => (res.status === 405 ? jsonResponse(404, { detail: 'Not Found' }) : res),
    },
    operations: '^GET /flows/\\{id\\}$',
    killedBy: ['methods.405 GET /flows/{id}'],
  },
  {
    mutant: {
      id: 'methods-405-as-500',
      breaks: 'a method a path does not offer answers 500',
      onResponse: (_req, res) => (res.status === 405 ? jsonResponse(500, { detail: 'boom' }) : res),
    },
    operations: '^POST /flows/filter$',
    killedBy: ['methods.405 POST /flows/filter'],
  },
  {
    mutant: {
      id: 'methods-allow-lists-refused',
      breaks: "a 405's Allow lists the very method it refused (PUT /flows/filter → 405, Allow: POST, PUT)",
      onResponse: (req, res) =>
        res.status === 405 && matches('/flows/filter', req.method, req)
          ? { ...res, headers: { ...res.headers, allow: `${res.headers.allow ?? 'POST'}, ${req.method}` } }
          : res,
    },
    operations: '^POST /flows/filter$',
    killedBy: ['methods.405-allow POST /flows/filter'],
  },
  {
    mutant: {
      id: 'methods-allow-lists-a-405',
      breaks: "a 405's Allow lists PATCH, which /flows/filter answers 405 as well",
      onRequest: (req) =>
        matches('/flows/filter', 'PATCH', req)
          ? {
              status: 405,
              headers: { allow: 'POST, PATCH', 'content-type': 'application/json' },
              body: json.body({ detail: 'Method Not Allowed' }),
            }
          : req,
      onResponse: (req, res) =>
        res.status === 405 && matches('/flows/filter', req.method, req)
          ? { ...res, headers: { ...res.headers, allow: 'POST, PATCH' } }
          : res,
    },
    operations: '^POST /flows/filter$',
    killedBy: ['methods.405-allow POST /flows/filter'],
  },
  {
    mutant: {
      id: 'methods-patch-unnamed-field',
      breaks: 'PATCH /flow_runs/{id} that does not name tags sets them too',
      onRequest: (req) =>
        matches('/flow_runs/{id}', 'PATCH', req) && !('tags' in bodyOf(req))
          ? { ...req, body: json.body({ ...bodyOf(req), tags: ['set-by-the-server'] }) }
          : req,
    },
    operations: '^PATCH /flow_runs/\\{id\\}$',
    killedBy: ['methods.patch-partial PATCH /flow_runs/{id}'],
  },
  {
    mutant: {
      id: 'methods-create-answers-unstored',
      breaks: 'POST /flows/ answers tags it did not store',
      onResponse: (req, res) => {
        if (!matches('/flows/', 'POST', req) || res.status >= 300) return res;
        return { ...res, body: json.body({ ...(json.parse(res.body) as object), tags: ['only-in-the-answer'] }) };
      },
    },
    operations: '^POST /flows/$',
    killedBy: ['methods.create-stored POST /flows/'],
  },
  {
    mutant: {
      id: 'methods-create-stores-ascii',
      breaks: "POST /flows/ stores a name's characters beyond ASCII as ? (café as caf?)",
      onRequest: (req) => {
        if (!matches('/flows/', 'POST', req)) return req;
        const body = bodyOf(req);
        if (typeof body.name !== 'string') return req;
        return {
          ...req,
          body: json.body({ ...body, name: [...body.name].map((c) => (c > '\x7f' ? '?' : c)).join('') }),
        };
      },
    },
    operations: '^POST /flows/$',
    killedBy: ['methods.create-stored POST /flows/'],
  },
  {
    mutant: {
      id: 'orchestration-create-ignores-state',
      breaks: 'create_flow_run drops the state it is given',
      onRequest: (req) => {
        if (!matches('/deployments/{id}/create_flow_run', 'POST', req)) return req;
        const { state: _dropped, ...rest } = bodyOf(req);
        return { ...req, body: json.body(rest) };
      },
    },
    operations: '^POST /deployments/\\{id\\}/create_flow_run$',
    killedBy: ['orchestration.create-flow-run-state POST /deployments/{id}/create_flow_run'],
  },
  {
    mutant: {
      id: 'orchestration-accepts-forbidden',
      breaks: 'set_state answers ACCEPT where the rules ABORT or WAIT',
      onResponse: (req, res) => {
        if (!matches('/flow_runs/{id}/set_state', 'POST', req)) return res;
        const result = json.parse(res.body) as { status?: string };
        return result?.status === 'ABORT' || result?.status === 'WAIT' ? acceptedInstead(res, result) : res;
      },
    },
    operations: '^POST /flow_runs/\\{id\\}/set_state$',
    killedBy: [
      'orchestration.pending-twice-aborts POST /flow_runs/{id}/set_state',
      'orchestration.running-early-waits POST /flow_runs/{id}/set_state',
    ],
  },
  {
    mutant: {
      id: 'orchestration-race-both-accepted',
      breaks: 'two PENDING proposals in flight at once on one run are both ACCEPTed (one at a time, the second ABORTs)',
      onRequest: async (req) => {
        if (!matches('/flow_runs/{id}/set_state', 'POST', req) || !proposesPending(req)) return req;
        const inFlight = (pendingInFlight.get(req.path) ?? 0) + 1;
        pendingInFlight.set(req.path, inFlight);
        if (inFlight > 1) racedRuns.add(req.path);
        // Held a moment, so that a proposal sent at the same time is in flight beside it.
        await new Promise((r) => setTimeout(r, 250));
        return req;
      },
      onResponse: (req, res) => {
        if (!matches('/flow_runs/{id}/set_state', 'POST', req) || !proposesPending(req)) return res;
        pendingInFlight.set(req.path, (pendingInFlight.get(req.path) ?? 1) - 1);
        const result = json.parse(res.body) as { status?: string };
        return racedRuns.has(req.path) && result?.status === 'ABORT' ? acceptedInstead(res, result) : res;
      },
    },
    operations: '^POST /flow_runs/\\{id\\}/set_state$',
    killedBy: ['orchestration.pending-race-one-wins POST /flow_runs/{id}/set_state'],
  },
  {
    mutant: {
      id: 'orchestration-accept-without-change',
      breaks: 'set_state answers ACCEPT without changing the run',
      onRequest: (req) =>
        matches('/flow_runs/{id}/set_state', 'POST', req)
          ? jsonResponse(201, {
              status: 'ACCEPT',
              state: { type: (bodyOf(req).state as { type: string }).type },
              details: { type: 'accept_details' },
            })
          : req,
    },
    operations: '^POST /flow_runs/\\{id\\}/set_state$',
    killedBy: ['orchestration.set-state-legal-path POST /flow_runs/{id}/set_state'],
  },
  {
    mutant: {
      id: 'orchestration-graph-breaks-on-inputs',
      breaks: "a flow run's graph answers 500 once one of its task runs took another's result as input",
      onResponse: (req, res) => {
        if (!matches('/flow_runs/{id}/graph', 'GET', req) || res.status !== 200) return res;
        const nodes = json.parse(res.body) as Array<{ upstream_dependencies?: unknown[] }> | undefined;
        return Array.isArray(nodes) && nodes.some((n) => (n.upstream_dependencies ?? []).length > 0)
          ? jsonResponse(500, { exception_message: 'Internal Server Error' })
          : res;
      },
    },
    operations: '^GET /flow_runs/\\{id\\}/graph$',
    killedBy: ['orchestration.views-any-task-input[task_run] GET /flow_runs/{id}/graph'],
  },
  {
    mutant: malformedVersionAccepted('versioning-malformed-accepted', 'x-prefect-api-version'),
    operations: '^POST /flows/filter$',
    killedBy: ['versioning.malformed-refused POST /flows/filter'],
  },
  {
    target: 'cloud',
    mutant: filterServedWithoutKey('auth-bypassed', CLOUD_KEY),
    operations: '^POST /flows/filter$',
    killedBy: ['auth.required POST /flows/filter'],
  },
  {
    mutant: {
      id: 'errors-500-for-malformed-id',
      breaks: 'an identifier that is not a UUID answers 500',
      onResponse: (req, res) => (req.path.includes('not-a-uuid') ? jsonResponse(500, { detail: 'boom' }) : res),
    },
    operations: '^GET /flows/\\{id\\}$',
    killedBy: ['errors.malformed-id GET /flows/{id}'],
  },
  {
    mutant: {
      id: 'contract-second-crash-beside-known',
      breaks:
        'POST /deployments/ crashes (500) on a paused deployment, beside the known crash on a work_queue_name with & that the baseline names',
      onResponse: (req, res) =>
        matches('/deployments/', 'POST', req) && bodyOf(req).paused === true
          ? jsonResponse(500, { exception_message: 'Internal Server Error' })
          : res,
    },
    operations: '^POST /deployments/$',
    // Keyed by its own field, the new crash is not the known one's: the entry excuses only its cause.
    killedBy: ['contract.no-5xx POST /deployments/'],
  },
  {
    mutant: {
      id: 'contract-crash-on-non-ascii',
      breaks: 'POST /work_pools/ crashes (500) on a description with a character outside ASCII',
      onResponse: (req, res) => {
        const description = bodyOf(req).description;
        return matches('/work_pools/', 'POST', req) &&
          typeof description === 'string' &&
          [...description].some((c) => c.charCodeAt(0) > 127)
          ? jsonResponse(500, { exception_message: 'Internal Server Error' })
          : res;
      },
    },
    operations: '^POST /work_pools/$',
    // Random strings are ASCII: only the edges every run sends reach it, whatever the seed.
    killedBy: ['contract.no-5xx POST /work_pools/'],
  },
  {
    mutant: {
      id: 'contract-crash-on-null-mark',
      breaks:
        'POST /variables/ crashes (500) on tags: null, a field it may leave out (NOT NULL on variable.tags, as a fuzzer found in Prefect)',
      onResponse: (req, res) =>
        matches('/variables/', 'POST', req) && isObject(json.parse(req.body)) && bodyOf(req).tags === null
          ? jsonResponse(500, { exception_message: 'Internal Server Error' })
          : res,
    },
    operations: '^POST /variables/$',
    // The tags mark the run's objects: before nulls were sent for a mark (the ledger holds the object by id), none reached it.
    killedBy: ['contract.no-5xx POST /variables/'],
  },
  {
    mutant: {
      id: 'contract-null-taken-as-absent',
      breaks: 'POST /deployments/ takes parameters: null (its schema has no null) as if the field were left out: 201',
      onRequest: (req) => {
        const body = isObject(json.parse(req.body)) ? bodyOf(req) : undefined;
        if (!matches('/deployments/', 'POST', req) || body?.parameters !== null) return req;
        const { parameters: _null, ...rest } = body;
        return { ...req, body: json.body(rest) };
      },
    },
    operations: '^POST /deployments/$',
    killedBy: ['contract.invalid-out-of-range POST /deployments/'],
  },
  {
    mutant: {
      id: 'contract-crash-on-reserved-characters',
      breaks: 'POST /work_queues/ crashes (500) on a description with a character URLs reserve (<, &, % or >)',
      onResponse: (req, res) => {
        const description = bodyOf(req).description;
        return matches('/work_queues/', 'POST', req) && typeof description === 'string' && /[<&%>]/.test(description)
          ? jsonResponse(500, { exception_message: 'Internal Server Error' })
          : res;
      },
    },
    operations: '^POST /work_queues/$',
    // As Prefect's v1 concurrency limits do on a tag with `>`: only the edge every run sends reaches it.
    killedBy: ['contract.no-5xx POST /work_queues/'],
  },
  {
    mutant: (() => {
      let limited = false;
      return {
        id: 'contract-retry-after-not-a-date',
        breaks:
          'the first POST /flows/filter is answered 429 with a Retry-After that is neither a number of seconds nor an HTTP-date ("soon"); the client waits its default and is served',
        reset: () => {
          limited = false;
        },
        onRequest: (req: ProxiedRequest) => {
          if (limited || !matches('/flows/filter', 'POST', req)) return req;
          limited = true;
          const res = jsonResponse(429, { detail: 'rate limited' });
          return { ...res, headers: { ...res.headers, 'retry-after': 'soon' } };
        },
      };
    })(),
    operations: '^POST /flows/filter$',
    killedBy: ['contract.headers POST /flows/filter'],
  },
  {
    mutant: {
      id: 'contract-location-not-a-uri',
      breaks: 'POST /flows/ answers its 201 with a Location that is no URI reference (http://[flows)',
      onResponse: (req, res) =>
        matches('/flows/', 'POST', req) && res.status === 201
          ? { ...res, headers: { ...res.headers, location: 'http://[flows' } }
          : res,
    },
    operations: '^POST /flows/$',
    killedBy: ['contract.headers POST /flows/'],
  },
  {
    mutant: {
      id: 'contract-log-item-crash-on-empty-message',
      breaks:
        'POST /logs/ crashes (500) on a list holding a log whose message is empty: a field of an item of the body, which only edges set on the items reach',
      onResponse: (req, res) => {
        const items = matches('/logs/', 'POST', req) ? json.parse(req.body) : undefined;
        const empty =
          Array.isArray(items) && items.some((i) => isObject(i) && (i as { message?: unknown }).message === '');
        return empty ? jsonResponse(500, { exception_message: 'Internal Server Error' }) : res;
      },
    },
    operations: '^POST /logs/$',
    killedBy: ['contract.no-5xx POST /logs/'],
  },
  {
    mutant: {
      id: 'contract-crash-on-string-past-storage',
      breaks:
        'POST /work_queues/ crashes (500) on a string of more than 5,000 characters where the document sets no maximum length, as PostgreSQL does on a name past its index entry',
      onResponse: (req, res) => {
        const body = bodyOf(req);
        const long = Object.values(body).some((v) => typeof v === 'string' && v.length > 5000);
        return matches('/work_queues/', 'POST', req) && long
          ? jsonResponse(500, { exception_message: 'Internal Server Error' })
          : res;
      },
    },
    operations: '^POST /work_queues/$',
    killedBy: ['contract.no-5xx POST /work_queues/'],
  },
  {
    mutant: (() => {
      // The names of the creates on their way: a second create of one of them meets the unique index mid-insert.
      const inFlight = new Map<string, number>();
      const seen = new Set<string>();
      const nameOf = (req: ProxiedRequest) => {
        const name = matches('/work_queues/', 'POST', req) ? bodyOf(req).name : undefined;
        return typeof name === 'string' ? name : undefined;
      };
      return {
        id: 'contract-crash-on-same-name-at-once',
        breaks:
          'POST /work_queues/ crashes (500, an IntegrityError on its unique name) on a create of a name another create is still making',
        onRequest: async (req: ProxiedRequest) => {
          const name = nameOf(req);
          if (name === undefined) return req;
          if (inFlight.has(name)) return jsonResponse(500, { exception_message: 'Internal Server Error' });
          inFlight.set(name, 1);
          // The first create of a name held a moment, as a slow insert is: on a busy machine the creates sent at
          // once can leave the run some milliseconds apart, and the first would be made before the others arrive.
          if (!seen.has(name)) await new Promise((r) => setTimeout(r, 100));
          seen.add(name);
          return req;
        },
        onResponse: (req: ProxiedRequest, res: ProxiedResponse) => {
          const name = nameOf(req);
          if (name !== undefined) inFlight.delete(name);
          return res;
        },
      };
    })(),
    operations: '^POST /work_queues/$',
    killedBy: ['contract.no-5xx POST /work_queues/'],
  },
  {
    mutant: (() => {
      // Each v2 limit's slots as a signed 32-bit counter that does not clamp at zero.
      const taken = new Map<string, number>();
      return {
        id: 'contract-crash-on-counter-below-int32',
        breaks:
          "POST /v2/concurrency_limits/decrement keeps a limit's slots in a signed 32-bit counter that does not stop at zero: decrements that take it below -2^31 crash (500)",
        onRequest: (req: ProxiedRequest) => {
          if (!matches('/v2/concurrency_limits/decrement', 'POST', req)) return req;
          const { names, slots } = bodyOf(req);
          if (!Array.isArray(names) || typeof slots !== 'number') return req;
          const after = names.map((n) => (taken.get(String(n)) ?? 0) - slots);
          if (after.some((v) => v < -(2 ** 31)))
            return jsonResponse(500, { exception_message: 'Internal Server Error' });
          for (const [i, n] of names.entries()) taken.set(String(n), after[i]!);
          return req;
        },
      };
    })(),
    operations: '^POST /v2/concurrency_limits/decrement$',
    killedBy: ['contract.no-5xx POST /v2/concurrency_limits/decrement'],
  },
  {
    mutant: {
      id: 'errors-text-plain-crash',
      breaks: 'POST /flows/ crashes on a JSON body sent as text/plain (500), as Prefect does on three other creates',
      onResponse: (req, res) =>
        matches('/flows/', 'POST', req) && req.headers['content-type']?.startsWith('text/plain')
          ? jsonResponse(500, { exception_message: 'Internal Server Error' })
          : res,
    },
    operations: '^POST /flows/$',
    // A MUST failure, as every 500 is, beside the SHOULD of the body's refusal.
    killedBy: ['contract.no-5xx POST /flows/', 'errors.wrong-content-type POST /flows/'],
  },
  {
    mutant: {
      id: 'errors-4xx-as-html',
      breaks: 'POST /flows/filter answers its 4xx as an HTML page',
      onResponse: (req, res) =>
        matches('/flows/filter', 'POST', req) && res.status >= 400 && res.status < 500
          ? {
              ...res,
              headers: { 'content-type': 'text/html' },
              body: Buffer.from('<html><body>Bad request</body></html>'),
            }
          : res,
    },
    operations: '^POST /flows/filter$',
    killedBy: ['errors.4xx-json POST /flows/filter'],
  },
  {
    mutant: {
      id: 'spec-get-with-body',
      breaks: 'the served document gives GET /flows/{id} a request body',
      onResponse: (req, res) => {
        if (!matches('/openapi.json', 'GET', req)) return res;
        const doc = json.parse(res.body) as { paths: Record<string, Record<string, Record<string, unknown>>> };
        doc.paths['/flows/{id}'].get.requestBody = { content: { 'application/json': { schema: { type: 'object' } } } };
        return { ...res, body: json.body(doc) };
      },
    },
    operations: '^GET /flows/\\{id\\}$',
    killedBy: ['spec.get-without-body GET /flows/{id}'],
  },
];

/** Rewrite every `operator` key (at any depth) of a filter body with `edit`. */
function rewriteOperators(
  value: unknown,
  edit: (key: string, v: unknown, path: string[]) => Array<[string, unknown]> | undefined,
  path: string[] = [],
): unknown {
  if (Array.isArray(value) || !value || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const replaced = k.endsWith('_') ? edit(k, v, path) : undefined;
    if (replaced) for (const [nk, nv] of replaced) out[nk] = nv;
    else out[k] = rewriteOperators(v, edit, [...path, k]);
  }
  return out;
}

function bodyMutant(
  id: string,
  breaks: string,
  template: string,
  edit: Parameters<typeof rewriteOperators>[1],
): Mutant {
  return {
    id,
    breaks,
    onRequest: (req) =>
      matches(template, 'POST', req) ? { ...req, body: json.body(rewriteOperators(bodyOf(req), edit)) } : req,
  };
}

/** Drop response items the server "should not" have returned, by a rule on the request and the item. */
function responseFilter(
  id: string,
  breaks: string,
  template: string,
  keep: (req: Record<string, unknown>, item: Record<string, unknown>) => boolean,
): Mutant {
  return {
    id,
    breaks,
    onResponse: (req, res) => {
      if (!matches(template, 'POST', req) || res.status !== 200) return res;
      const items = json.parse(res.body);
      return Array.isArray(items)
        ? { ...res, body: json.body(items.filter((i) => keep(bodyOf(req), i as Record<string, unknown>))) }
        : res;
    },
  };
}

const at = (obj: unknown, path: string[]) =>
  path.reduce<unknown>((o, p) => (o as Record<string, unknown> | undefined)?.[p], obj);
const usec = (t: unknown) => {
  const m = String(t).match(/^(.*T\d{2}:\d{2}:\d{2})(?:\.(\d+))?(.*)$/);
  return m ? BigInt(Date.parse(`${m[1]}${m[3] || 'Z'}`)) * 1000n + BigInt((m[2] ?? '').padEnd(6, '0').slice(0, 6)) : 0n;
};
const QUERY = (collection: string) => `^POST /${collection}/(filter|count|paginate)$`;

export const queryMutants: MutantCase[] = [
  {
    mutant: bodyMutant('filters-any-as-all', 'tags.any_ is read as all_', '/flow_runs/filter', (k, v, p) =>
      k === 'any_' && p.at(-1) === 'tags' ? [['all_', v]] : undefined,
    ),
    operations: QUERY('flow_runs'),
    killedBy: ['filters.oracle POST /flow_runs/filter'],
  },
  {
    mutant: bodyMutant('filters-all-as-any', 'tags.all_ is read as any_', '/flow_runs/filter', (k, v, p) =>
      k === 'all_' && p.at(-1) === 'tags' ? [['any_', v]] : undefined,
    ),
    operations: QUERY('flow_runs'),
    killedBy: ['filters.oracle POST /flow_runs/filter'],
  },
  {
    mutant: responseFilter(
      'filters-before-exclusive',
      'before_ leaves out what is exactly at the bound',
      '/flow_runs/filter',
      (req, item) => {
        const bound = at(req, ['flow_runs', 'expected_start_time', 'before_']);
        return bound === undefined || usec(item.expected_start_time) < usec(bound);
      },
    ),
    operations: QUERY('flow_runs'),
    killedBy: ['filters.oracle POST /flow_runs/filter'],
  },
  {
    mutant: responseFilter(
      'filters-after-exclusive',
      'after_ leaves out what is exactly at the bound',
      '/flow_runs/filter',
      (req, item) => {
        const bound = at(req, ['flow_runs', 'expected_start_time', 'after_']);
        return bound === undefined || usec(item.expected_start_time) > usec(bound);
      },
    ),
    operations: QUERY('flow_runs'),
    killedBy: ['filters.oracle POST /flow_runs/filter'],
  },
  {
    mutant: bodyMutant('filters-is-null-inverted', 'is_null_ means its opposite', '/flow_runs/filter', (k, v) =>
      k === 'is_null_' && typeof v === 'boolean' ? [[k, !v]] : undefined,
    ),
    operations: QUERY('flow_runs'),
    killedBy: ['filters.oracle POST /flow_runs/filter'],
  },
  {
    mutant: responseFilter(
      'filters-like-case-sensitive',
      'like_ matches case-sensitively',
      '/flows/filter',
      (req, item) => {
        const like = at(req, ['flows', 'name', 'like_']);
        if (typeof like !== 'string' || like === '') return true;
        const pattern = new RegExp(
          like
            .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
            .replace(/%/g, '.*')
            .replace(/_/g, '.'),
        );
        return pattern.test(String(item.name));
      },
    ),
    operations: QUERY('flows'),
    killedBy: ['filters.oracle POST /flows/filter'],
  },
  {
    mutant: bodyMutant('filters-not-any-ignored', 'not_any_ is ignored', '/flows/filter', (k) =>
      k === 'not_any_' ? [] : undefined,
    ),
    operations: QUERY('flows'),
    killedBy: ['filters.oracle POST /flows/filter'],
  },
  {
    mutant: bodyMutant('filters-eq-ignored', 'eq_ is ignored', '/deployments/filter', (k) =>
      k === 'eq_' ? [] : undefined,
    ),
    operations: QUERY('deployments'),
    killedBy: ['filters.oracle POST /deployments/filter'],
  },
  {
    mutant: bodyMutant('filters-exists-inverted', 'exists_ means its opposite', '/artifacts/filter', (k, v) =>
      k === 'exists_' && typeof v === 'boolean' ? [[k, !v]] : undefined,
    ),
    operations: QUERY('artifacts'),
    killedBy: ['filters.oracle POST /artifacts/filter'],
  },
  {
    mutant: {
      id: 'filters-related-ignored',
      breaks: 'a filter on a related collection is ignored',
      onRequest: (req) => {
        if (!matches('/flows/filter', 'POST', req)) return req;
        const { flow_runs: _a, deployments: _b, task_runs: _c, ...rest } = bodyOf(req);
        return { ...req, body: json.body(rest) };
      },
    },
    operations: QUERY('flows'),
    killedBy: ['filters.seed-example POST /flows/filter'],
  },
  {
    mutant: {
      id: 'filters-offset-read-as-utc',
      breaks: 'a datetime bound is read at its wall-clock time as UTC (…T20:42:13+02:00 as 20:42:13Z)',
      onRequest: (req) => {
        if (!matches('/flow_runs/filter', 'POST', req)) return req;
        const asUtc = (v: unknown): unknown =>
          typeof v === 'string'
            ? v.replace(/^(\d{4}-\d\d-\d\dT[\d:.]+)[+-]\d\d:\d\d$/, '$1Z')
            : Array.isArray(v)
              ? v.map(asUtc)
              : v && typeof v === 'object'
                ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, asUtc(x)]))
                : v;
        return { ...req, body: json.body(asUtc(bodyOf(req))) };
      },
    },
    operations: QUERY('flow_runs'),
    killedBy: ['filters.oracle POST /flow_runs/filter'],
  },
  {
    mutant: {
      id: 'filters-and-as-or',
      breaks: 'the criteria of a filter are ORed',
      onRequest: (req) => {
        if (!matches('/flow_runs/filter', 'POST', req)) return req;
        const body = bodyOf(req);
        const own = body.flow_runs as Record<string, unknown> | undefined;
        return own && Object.keys(own).length >= 2
          ? { ...req, body: json.body({ ...body, flow_runs: { ...own, operator: 'or_' } }) }
          : req;
      },
    },
    operations: QUERY('flow_runs'),
    killedBy: ['filters.oracle POST /flow_runs/filter'],
  },
  {
    mutant: {
      id: 'sorting-name-asc-reversed',
      breaks: 'sort NAME_ASC comes back in descending order',
      onResponse: (req, res) =>
        matches('/flows/filter', 'POST', req) && bodyOf(req).sort === 'NAME_ASC' && res.status === 200
          ? { ...res, body: json.body((json.parse(res.body) as unknown[]).reverse()) }
          : res,
    },
    operations: QUERY('flows'),
    killedBy: ['sorting.by-value[NAME_ASC] POST /flows/filter'],
  },
  {
    mutant: {
      id: 'pagination-limit-ignored',
      breaks: 'limit is ignored',
      onRequest: (req) => {
        if (!matches('/flows/filter', 'POST', req)) return req;
        const { limit: _dropped, ...rest } = bodyOf(req);
        return { ...req, body: json.body(rest) };
      },
    },
    operations: QUERY('flows'),
    killedBy: ['pagination.limit-zero POST /flows/filter', 'pagination.windows POST /flows/filter'],
  },
  {
    mutant: {
      id: 'pagination-offset-off-by-one',
      breaks: 'offset skips one more than asked',
      onRequest: (req) => {
        if (!matches('/flows/filter', 'POST', req)) return req;
        const body = bodyOf(req);
        return typeof body.offset === 'number'
          ? { ...req, body: json.body({ ...body, offset: body.offset + 1 }) }
          : req;
      },
    },
    operations: QUERY('flows'),
    killedBy: ['pagination.windows POST /flows/filter'],
  },
  {
    mutant: {
      id: 'aggregates-count-off-by-one',
      breaks: 'count answers one more',
      onResponse: (req, res) =>
        matches('/flows/count', 'POST', req) && res.status === 200
          ? { ...res, body: json.body(Number(json.parse(res.body)) + 1) }
          : res,
    },
    operations: QUERY('flows'),
    killedBy: ['aggregates.count-agrees POST /flows/count'],
  },
  {
    mutant: {
      id: 'aggregates-history-bin-shifted',
      breaks: "the history moves each bin's counts to the next bin",
      onResponse: (req, res) => {
        if (!matches('/flow_runs/history', 'POST', req) || res.status !== 200) return res;
        const bins = json.parse(res.body) as Array<{ states: unknown[] }>;
        const states = bins.map((b) => b.states);
        return { ...res, body: json.body(bins.map((b, i) => ({ ...b, states: i === 0 ? [] : states[i - 1] }))) };
      },
    },
    operations: '^POST /flow_runs/history$',
    killedBy: ['aggregates.history POST /flow_runs/history'],
  },
  {
    mutant: {
      id: 'aggregates-history-tiny-interval-accepted',
      breaks: 'a history interval below one second is served',
      onRequest: (req) => {
        if (!matches('/flow_runs/history', 'POST', req)) return req;
        const body = bodyOf(req);
        return Number(body.history_interval_seconds) < 1
          ? { ...req, body: json.body({ ...body, history_interval_seconds: 3600 }) }
          : req;
      },
    },
    operations: '^POST /flow_runs/history$',
    killedBy: ['aggregates.history-invalid-interval POST /flow_runs/history'],
  },
  {
    mutant: {
      id: 'aggregates-paginate-pages-wrong',
      breaks: 'paginate reports one page too many',
      onResponse: (req, res) => {
        if (!matches('/flows/paginate', 'POST', req) || res.status !== 200) return res;
        const page = json.parse(res.body) as Record<string, number>;
        return { ...res, body: json.body({ ...page, pages: page.pages + 1 }) };
      },
    },
    operations: QUERY('flows'),
    killedBy: ['aggregates.paginate-agrees POST /flows/paginate'],
  },
];

/**
 * Mutants a release gate must catch with the Prefect baseline applied: each breaks an operation the
 * baseline already names for another failure, so only an entry that excuses exactly its failure lets
 * the new one through.
 */
export const gateMutants: MutantCase[] = [
  {
    mutant: {
      id: 'gate-deployments-202',
      breaks: 'POST /deployments/ answers 202 where it answered 201 (the baseline names the undocumented 201)',
      onResponse: (req, res) =>
        matches('/deployments/', 'POST', req) && res.status === 201 ? { ...res, status: 202 } : res,
    },
    operations: '^POST /deployments/$',
    killedBy: ['contract.success-status-documented POST /deployments/'],
  },
  {
    mutant: {
      id: 'gate-422-string-detail',
      breaks: 'POST /flows/ answers its 422 with a string detail (the baseline names that only for filter operations)',
      onResponse: (req, res) =>
        matches('/flows/', 'POST', req) && res.status === 422
          ? { ...res, body: json.body({ detail: 'invalid input' }) }
          : res,
    },
    operations: '^POST /flows/$',
    killedBy: ['contract.error-schema POST /flows/'],
  },
  {
    mutant: {
      id: 'gate-5xx-for-valid-body',
      breaks: 'POST /work_pools/ answers 500 to a valid body (the baseline names its 500 for a name of the wrong type)',
      // The pool the server made is deleted again, so that the mutant leaves nothing behind.
      onResponse: async (req, res, upstream) => {
        if (!matches('/work_pools/', 'POST', req) || res.status !== 201) return res;
        const { name } = json.parse(res.body) as { name: string };
        await upstream('DELETE', `/work_pools/${encodeURIComponent(name)}`);
        return { ...res, status: 500, body: json.body({ exception_message: 'Internal Server Error' }) };
      },
    },
    operations: '^POST /work_pools/$',
    killedBy: ['contract.no-5xx POST /work_pools/'],
  },
  {
    mutant: {
      id: 'gate-405-without-allow',
      breaks:
        'every 405 answers without its Allow header (RFC 9110 §15.5.6: MUST; the baseline names an incomplete Allow on other paths only)',
      onResponse: (_req, res) =>
        res.status === 405
          ? {
              ...res,
              headers: Object.fromEntries(Object.entries(res.headers).filter(([k]) => k.toLowerCase() !== 'allow')),
            }
          : res,
    },
    operations: '^POST /flows/filter$',
    killedBy: ['methods.405-allow POST /flows/filter'],
  },
  {
    mutant: {
      id: 'gate-503-storm',
      breaks:
        'POST /flows/filter answers 503 to every request, on a target labelled PostgreSQL (no contract.available entry applies)',
      onResponse: (req, res) =>
        matches('/flows/filter', 'POST', req)
          ? { ...res, status: 503, body: json.body({ exception_message: 'Service Unavailable' }) }
          : res,
    },
    label: 'prefect 3.8.8 on postgres',
    operations: '^POST /flows/filter$',
    killedBy: ['contract.available POST /flows/filter'],
  },
];
