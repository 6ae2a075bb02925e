/**
 * The mutants: each breaks one behaviour of the real server, and names the check (and operation) that
 * must catch it. The kill matrix runs the suite against each, scoped to the operations it touches.
 */
import { json, matches, type Mutant } from '../support/proxy.js';

export interface MutantCase {
  mutant: Mutant;
  /** CONFORMANCE_OPERATIONS for the run: the operations the mutant touches. */
  operations: string;
  /** The checks that must fail: "check-id OPERATION". */
  killedBy: string[];
}

const FLOW_ITEM = '/flows/{id}';

export const contractMutants: MutantCase[] = [
  {
    mutant: {
      id: 'contract-500-on-filter',
      breaks: 'POST /flows/filter answers 500',
      onResponse: (req, res) =>
        matches('/flows/filter', 'POST', req) ? { ...res, status: 500, body: json.body({ exception_message: 'Internal Server Error' }) } : res,
    },
    operations: '^POST /flows/filter$',
    killedBy: ['contract.no-5xx POST /flows/filter'],
  },
  {
    mutant: {
      id: 'contract-text-plain',
      breaks: 'GET /flows/{id} answers its JSON as text/plain',
      onResponse: (req, res) => (matches(FLOW_ITEM, 'GET', req) && res.status === 200 ? { ...res, headers: { ...res.headers, 'content-type': 'text/plain' } } : res),
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
        const items = flows.length ? flows : [{ id: '00000000-0000-4000-8000-000000000001', name: 'x', created: null, updated: null, tags: [], labels: {} }];
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
          ? { ...res, status: 201, body: json.body({ id: '00000000-0000-4000-8000-000000000002', name: 'x', value: null, tags: [], created: null, updated: null }) }
          : res,
    },
    operations: '^POST /variables/$',
    killedBy: ['contract.invalid-malformed-json POST /variables/', 'contract.invalid-missing-required POST /variables/', 'contract.invalid-wrong-type POST /variables/'],
  },
  {
    mutant: {
      id: 'contract-200-for-unknown-id',
      breaks: 'GET /flows/{id} answers 200 for an id that names no flow',
      onResponse: (req, res) =>
        matches(FLOW_ITEM, 'GET', req) && res.status === 404
          ? { status: 200, headers: { 'content-type': 'application/json' }, body: json.body({ id: req.path.split('/')[2], name: 'ghost', tags: [], labels: {}, created: null, updated: null }) }
          : res,
    },
    operations: '^GET /flows/\\{id\\}$',
    killedBy: ['contract.unknown-id-404 GET /flows/{id}'],
  },
  {
    mutant: {
      id: 'contract-truncated-json',
      breaks: 'GET /flows/{id} cuts its JSON body in half',
      onResponse: (req, res) => (matches(FLOW_ITEM, 'GET', req) && res.status === 200 ? { ...res, body: res.body.subarray(0, Math.floor(res.body.length / 2)) } : res),
    },
    operations: '^GET /flows/\\{id\\}$',
    killedBy: ['contract.content-type GET /flows/{id}'],
  },
  {
    mutant: {
      id: 'contract-500-for-unknown-id',
      breaks: 'DELETE /flows/{id} answers 500 where the flow does not exist',
      onResponse: (req, res) => (matches(FLOW_ITEM, 'DELETE', req) && res.status === 404 ? { ...res, status: 500, body: json.body({ exception_message: 'Internal Server Error' }) } : res),
    },
    operations: '^DELETE /flows/\\{id\\}$',
    killedBy: ['contract.unknown-id-404 DELETE /flows/{id}', 'contract.no-5xx DELETE /flows/{id}'],
  },
];
