/**
 * A fault-injecting HTTP proxy in front of the real server. A mutant sees each request and the real
 * response, and may rewrite either: one broken behaviour per mutant. With no mutant it forwards as is. Several
 * mutants may sit in it at once (the kill matrix's batches), each seeing what the one before it passed on; the
 * proxy notes every exchange each of them changed, so that a run can tell which mutant touched what.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';

export interface ProxiedRequest {
  method: string;
  /** The path below the target's API root, e.g. `/flows/filter`. */
  path: string;
  headers: Record<string, string>;
  body: Buffer;
}

export interface ProxiedResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** Write the answer by hand (a slow drip, half a body then a reset, nothing at all). */
  writeBy?: (res: http.ServerResponse) => void;
}

export interface Mutant {
  id: string;
  /** What the mutant breaks, in words. */
  breaks: string;
  /** Rewrite the request before it goes upstream (or answer it without going upstream). */
  onRequest?(
    req: ProxiedRequest,
    upstream: Upstream,
  ): ProxiedRequest | ProxiedResponse | Promise<ProxiedRequest | ProxiedResponse>;
  /** Rewrite the real response. */
  onResponse?(
    req: ProxiedRequest,
    res: ProxiedResponse,
    upstream: Upstream,
  ): ProxiedResponse | Promise<ProxiedResponse>;
  /**
   * Forget what it kept from an earlier run, as it is put in the proxy: a mutant that breaks only the first
   * request it meets breaks the first of each run (a batch's run, then the run of its own when the batch's
   * could not vouch for its kill).
   */
  reset?(): void;
}

/** The real server behind the proxy, for mutants whose fault is an extra request (a GET that writes). */
export type Upstream = (
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
) => Promise<ProxiedResponse>;

export interface ProxyOptions {
  /** The path the proxy serves the API under, e.g. `/api/accounts/<uuid>/workspaces/<uuid>`; default: the upstream's. */
  prefix?: string;
  /** Answers a request before any mutant or the upstream sees it (a cloud edition's auth). */
  gate?(req: ProxiedRequest): ProxiedResponse | undefined;
  /** Every answer on its way out, after any mutant, the gate's too (an edition's own rewrite, its latency). */
  answer?(req: ProxiedRequest, res: ProxiedResponse): ProxiedResponse | Promise<ProxiedResponse>;
}

/** An exchange a mutant changed: its request, its response, or a request of its own it sent upstream. */
export interface Alteration {
  mutant: string;
  stage: 'request' | 'response' | 'upstream';
  method: string;
  /** The path below the API root, without its query. */
  path: string;
  /** The status of the answer the mutant made (0: the connection dropped); absent for a request sent upstream. */
  status?: number;
  /** The mutant writes the answer by hand (a drip, a reset). */
  handWritten?: boolean;
}

export interface RunningProxy {
  baseUrl: string;
  /** Requests seen, by "METHOD path". */
  seen: string[];
  /** What the mutants in place changed, since they were set. */
  altered: Alteration[];
  setMutant(mutant: Mutant | undefined): void;
  setMutants(mutants: Mutant[]): void;
  /** Stop listening, as a server that dies mid-run does. */
  stop(): Promise<void>;
  close(): Promise<void>;
}

function isResponse(x: ProxiedRequest | ProxiedResponse): x is ProxiedResponse {
  return 'status' in x;
}

const HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'host']);

export async function startProxy(upstreamBaseUrl: string, options: ProxyOptions = {}): Promise<RunningProxy> {
  const upstream = new URL(upstreamBaseUrl);
  const apiRoot = upstream.pathname.replace(/\/$/, '');
  const servedRoot = options.prefix ?? apiRoot;
  // Connections to the server are kept alive, as a gateway's are. uvicorn closes a kept-alive socket after an
  // unhandled exception without saying so: a request that meets such a socket dies unread, and is sent again
  // once on a new connection (the suites' client does the same), so that one server fault never shows up as a
  // 502 on the next, unrelated request.
  const dispatcher = new Agent({ keepAliveTimeout: 2000, keepAliveMaxTimeout: 4000 });
  const freshDispatcher = new Agent({ pipelining: 0 });
  const send = (method: string, path: string, body: unknown, headers: Record<string, string>, fresh: boolean) =>
    request(`${upstream.origin}${apiRoot}${path}`, {
      dispatcher: fresh ? freshDispatcher : dispatcher,
      reset: fresh,
      method: method as 'GET',
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : Buffer.isBuffer(body) ? body : JSON.stringify(body),
    });
  const toUpstream: Upstream = async (method, path, body, headers = {}) => {
    const up = await send(method, path, body, headers, false).catch((e: { code?: string }) => {
      if (e.code === 'UND_ERR_SOCKET' || e.code === 'ECONNRESET') return send(method, path, body, headers, true);
      throw e;
    });
    const upHeaders: Record<string, string> = {};
    for (const [k, v] of Object.entries(up.headers))
      if (v !== undefined && !HOP.has(k)) upHeaders[k] = Array.isArray(v) ? v.join(', ') : String(v);
    return { status: up.statusCode, headers: upHeaders, body: Buffer.from(await up.body.arrayBuffer()) };
  };
  let mutants: Mutant[] = [];
  const seen: string[] = [];
  const altered: Alteration[] = [];
  const pathOf = (p: string) => p.replace(/\?.*$/, '');
  const note = (mutant: Mutant, stage: Alteration['stage'], req: ProxiedRequest, res?: ProxiedResponse) =>
    altered.push({
      mutant: mutant.id,
      stage,
      method: req.method,
      path: pathOf(req.path),
      ...(res ? { status: res.status, ...(res.writeBy ? { handWritten: true } : {}) } : {}),
    });
  const setMutants = (list: Mutant[]) => {
    for (const m of list) m.reset?.();
    mutants = list;
    seen.length = 0;
    altered.length = 0;
  };
  /** The upstream as one mutant sees it: what it sends there of its own is noted. */
  const upstreamFor =
    (mutant: Mutant): Upstream =>
    (method, path, ...rest) => {
      altered.push({ mutant: mutant.id, stage: 'upstream', method, path: pathOf(path) });
      return toUpstream(method, path, ...rest);
    };
  /** The request after each mutant's rewrite, or the answer one of them gave instead. */
  const rewrittenRequest = async (req: ProxiedRequest): Promise<ProxiedRequest | ProxiedResponse> => {
    let current: ProxiedRequest = req;
    for (const mutant of mutants) {
      if (!mutant.onRequest) continue;
      const next = await mutant.onRequest(current, upstreamFor(mutant));
      if (next === current) continue;
      note(mutant, 'request', req, isResponse(next) ? next : undefined);
      if (isResponse(next)) return next;
      current = next;
    }
    return current;
  };
  const rewrittenResponse = async (req: ProxiedRequest, res: ProxiedResponse): Promise<ProxiedResponse> => {
    let current = res;
    for (const mutant of mutants) {
      if (!mutant.onResponse) continue;
      const next = await mutant.onResponse(req, current, upstreamFor(mutant));
      if (next !== current) note(mutant, 'response', req, next);
      current = next;
    }
    return current;
  };
  const server = http.createServer(async (incoming, outgoing) => {
    const chunks: Buffer[] = [];
    for await (const c of incoming) chunks.push(c as Buffer);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(incoming.headers))
      if (v !== undefined && !HOP.has(k)) headers[k] = Array.isArray(v) ? v.join(', ') : v;
    const url = new URL(incoming.url ?? '/', 'http://proxy');
    if (!url.pathname.startsWith(servedRoot)) {
      outgoing.writeHead(404, { 'content-type': 'application/json' });
      outgoing.end('{"detail":"Not Found"}');
      return;
    }
    let req: ProxiedRequest = {
      method: incoming.method ?? 'GET',
      path: url.pathname.slice(servedRoot.length) + url.search,
      headers,
      body: Buffer.concat(chunks),
    };
    seen.push(`${req.method} ${req.path}`);
    try {
      let res: ProxiedResponse;
      const rewritten = await rewrittenRequest(req);
      const refused = isResponse(rewritten) ? undefined : options.gate?.(rewritten);
      if (isResponse(rewritten)) res = rewritten;
      else if (refused) res = refused;
      else {
        req = rewritten;
        res = await toUpstream(
          req.method,
          req.path,
          req.body.length > 0 || !['GET', 'HEAD'].includes(req.method) ? req.body : undefined,
          req.headers,
        );
        res = await rewrittenResponse(req, res);
      }
      if (options.answer) res = await options.answer(req, res);
      if (res.writeBy) {
        res.writeBy(outgoing);
        return;
      }
      // Status 0 from a mutant: drop the connection without an answer.
      if (res.status === 0) {
        incoming.socket.destroy();
        return;
      }
      outgoing.writeHead(res.status, { ...res.headers, 'content-length': String(res.body.length) });
      outgoing.end(res.body);
    } catch (e) {
      outgoing.writeHead(502, { 'content-type': 'text/plain' });
      outgoing.end(`proxy: ${(e as Error).message}`);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}${servedRoot}`,
    seen,
    altered,
    setMutant: (m) => setMutants(m ? [m] : []),
    setMutants,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => void Promise.all([dispatcher.close(), freshDispatcher.close()]).then(() => resolve()));
      }),
  };
}

/** JSON helpers for mutants. */
export const json = {
  parse(body: Buffer): unknown {
    try {
      return JSON.parse(body.toString('utf8'));
    } catch {
      return undefined;
    }
  },
  body(value: unknown): Buffer {
    return Buffer.from(JSON.stringify(value));
  },
};

/** The path template a concrete path matches (`/flows/{id}` for `/flows/6f1…`). */
export function matches(template: string, method: string, req: Pick<ProxiedRequest, 'method' | 'path'>): boolean {
  if (req.method !== method) return false;
  const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/?]+')}(\\?.*)?$`);
  return pattern.test(req.path);
}
