/**
 * A gateway of the hosted edition's shape in front of a real Prefect (spec §5): the API under
 * `/api/accounts/<uuid>/workspaces/<uuid>`, a Bearer key, routes the edition lacks (`/admin/*`: 404, and
 * gone from its document), a per-minute limit on the busy collections answered with 429 and `Retry-After`,
 * and latency added to every answer (a server that far away).
 *
 * The limit is one budget over the limited collections, spent evenly: a token bucket refilled at
 * limit/60 a second that holds one second of requests (2,000 a minute: 33.3 a second, 33 at once). A refused
 * request spends nothing; its `Retry-After` is the whole seconds until a token is there (at least 1), as a
 * hosted server says it. The floor the limit sets for N requests is then (N - burst) / rate.
 *
 * With `refuseShare`, it answers a fixed share of all requests 429 whatever their pace, as a budget other
 * clients spend or a server shedding load does.
 *
 * `npx tsx test/support/gateway.ts --upstream URL [--limit N] [--latency MS] [--key KEY] [--headers] [--stats FILE]
 * [--trace FILE] [--refuse-share 0.05]` runs one from the command line, prints its base URL, and writes its counts (--stats) and each
 * request's times (--trace) to the files when it is terminated.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CLOUD_KEY } from './cloudProxy.js';
import { json, type ProxiedRequest, type ProxiedResponse, type RunningProxy, startProxy } from './proxy.js';

export interface GatewayOptions {
  /** The Bearer key every request must carry; default CLOUD_KEY. */
  key?: string;
  /** Requests a minute over `limited` (one budget); none: no limit. */
  limitPerMinute?: number;
  /** The collections the limit applies to, by first path segment. */
  limited?: string[];
  /** Send `RateLimit-Policy` and `RateLimit` with every answer of a limited collection (Retry-After alone by default). */
  rateLimitHeaders?: boolean;
  /** Added to every answer. */
  latencyMs?: number;
  /** Routes the edition lacks: answered 404, and left out of its document. */
  missing?: RegExp;
  /** Keep each request's times (`trace()`). */
  trace?: boolean;
  /**
   * Answer this share of all requests 429 with `Retry-After: 1`, whatever their pace (every 1/share-th one): a
   * budget other clients spend, a server shedding load. Before any limit.
   */
  refuseShare?: number;
}

/**
 * A request through the gateway: when it arrived and when the server had answered it (epoch ms, before the
 * added latency), its method, path and status. Where a run's time goes behind latency: the server's idle
 * stretches, and how many requests were at it at once.
 */
export type TracedRequest = [arrivedAt: number, servedAt: number, method: string, path: string, status: number];

export interface RunningGateway extends RunningProxy {
  key: string;
  /** Requests answered 429, and every request of the limited collections (429s included), by arrival time. */
  counts(): { rateLimited: number; limited: number; limitedAt: number[]; rateLimitedAt: number[] };
  /** Every request's times, when asked for (`trace`). */
  trace(): TracedRequest[];
}

export const HOSTED_LIMITED = ['flows', 'flow_runs', 'task_runs'];
const NOT_FOUND: ProxiedResponse = {
  status: 404,
  headers: { 'content-type': 'application/json' },
  body: json.body({ detail: 'Not Found' }),
};

/** A token bucket: `perMinute / 60` tokens a second, at most one second's worth held. */
function tokenBucket(perMinute: number, now = () => performance.now()) {
  const rate = perMinute / 60_000;
  const capacity = Math.max(1, Math.floor(perMinute / 60));
  let tokens = capacity;
  let at = now();
  const refill = () => {
    const t = now();
    tokens = Math.min(capacity, tokens + (t - at) * rate);
    at = t;
  };
  return {
    take(): { ok: true } | { ok: false; retryAfterSeconds: number } {
      refill();
      if (tokens >= 1) {
        tokens -= 1;
        return { ok: true };
      }
      return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - tokens) / rate / 1000)) };
    },
    remaining: () => Math.floor(tokens),
    capacity,
  };
}

/** The collection a path is of, by its first segment: what the limit is kept by. */
export const firstSegment = (p: string) => p.split('?')[0].split('/').filter(Boolean)[0] ?? '';

export async function startGateway(upstreamBaseUrl: string, options: GatewayOptions = {}): Promise<RunningGateway> {
  const key = options.key ?? CLOUD_KEY;
  const limited = new Set(options.limited ?? HOSTED_LIMITED);
  const missing = options.missing ?? /^\/admin\//;
  const bucket = options.limitPerMinute ? tokenBucket(options.limitPerMinute) : undefined;
  const started = performance.now();
  const counted = { rateLimited: 0, limited: 0, limitedAt: [] as number[], rateLimitedAt: [] as number[] };
  const arrived = new WeakMap<ProxiedRequest, number>();
  const traced: TracedRequest[] = [];
  let arrivals = 0;
  const policy = (): Record<string, string> =>
    bucket && options.rateLimitHeaders
      ? {
          'ratelimit-policy': `${options.limitPerMinute};w=60`,
          ratelimit: `limit=${options.limitPerMinute}, remaining=${bucket.remaining()}, reset=1`,
        }
      : {};
  const gate = (req: ProxiedRequest): ProxiedResponse | undefined => {
    if (options.trace) arrived.set(req, Date.now());
    if (req.headers.authorization !== `Bearer ${key}`)
      return {
        status: 401,
        headers: { 'content-type': 'application/json' },
        body: json.body({ detail: 'Unauthorized' }),
      };
    const route = req.path.split('?')[0];
    if (missing.test(route)) return NOT_FOUND;
    if (options.refuseShare && ++arrivals % Math.round(1 / options.refuseShare) === 0) {
      counted.rateLimited++;
      counted.rateLimitedAt.push(Math.round(performance.now() - started));
      return {
        status: 429,
        headers: { 'content-type': 'application/json', 'retry-after': '1' },
        body: json.body({ detail: 'Too many requests' }),
      };
    }
    if (!bucket || !limited.has(firstSegment(route))) return undefined;
    const t = Math.round(performance.now() - started);
    counted.limited++;
    counted.limitedAt.push(t);
    const taken = bucket.take();
    if (taken.ok) return undefined;
    counted.rateLimited++;
    counted.rateLimitedAt.push(t);
    return {
      status: 429,
      headers: { 'content-type': 'application/json', 'retry-after': String(taken.retryAfterSeconds), ...policy() },
      body: json.body({ detail: 'Rate limit exceeded' }),
    };
  };
  const answer = async (req: ProxiedRequest, res: ProxiedResponse): Promise<ProxiedResponse> => {
    let out = res;
    if (req.method === 'GET' && req.path.split('?')[0] === '/openapi.json' && res.status === 200) {
      const doc = json.parse(res.body) as { paths?: Record<string, unknown> } | undefined;
      if (doc?.paths) {
        for (const p of Object.keys(doc.paths)) if (missing.test(p)) delete doc.paths[p];
        out = { ...res, body: json.body(doc) };
      }
    }
    if (res.status !== 429 && limited.has(firstSegment(req.path)))
      out = { ...out, headers: { ...out.headers, ...policy() } };
    if (options.trace)
      traced.push([arrived.get(req) ?? Date.now(), Date.now(), req.method, req.path.split('?')[0], res.status]);
    if (options.latencyMs) await new Promise((r) => setTimeout(r, options.latencyMs));
    return out;
  };
  const proxy = await startProxy(upstreamBaseUrl, {
    prefix: `/api/accounts/${randomUUID()}/workspaces/${randomUUID()}`,
    gate,
    answer,
  });
  return { ...proxy, key, counts: () => ({ ...counted }), trace: () => [...traced] };
}

const invokedDirectly = process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1]);
if (invokedDirectly) {
  const { values } = parseArgs({
    options: {
      upstream: { type: 'string' },
      limit: { type: 'string' },
      latency: { type: 'string' },
      key: { type: 'string' },
      headers: { type: 'boolean' },
      stats: { type: 'string' },
      trace: { type: 'string' },
      'refuse-share': { type: 'string' },
    },
  });
  if (!values.upstream) {
    process.stderr.write('gateway: --upstream URL is required\n');
    process.exit(2);
  }
  const gateway = await startGateway(values.upstream, {
    key: values.key,
    limitPerMinute: values.limit ? Number(values.limit) : undefined,
    latencyMs: values.latency ? Number(values.latency) : undefined,
    rateLimitHeaders: values.headers,
    trace: values.trace !== undefined,
    refuseShare: values['refuse-share'] ? Number(values['refuse-share']) : undefined,
  });
  process.stdout.write(`${gateway.baseUrl}\n`);
  // Its counts, with the arrival times, to a file when it ends (--stats), for the measurement of a run behind it.
  const report = () => {
    if (values.stats) writeFileSync(values.stats, JSON.stringify(gateway.counts()));
    if (values.trace) writeFileSync(values.trace, JSON.stringify(gateway.trace()));
  };
  process.on('SIGTERM', () => {
    report();
    void gateway.close().then(() => process.exit(0));
  });
}
