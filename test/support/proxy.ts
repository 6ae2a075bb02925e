/**
 * A fault-injecting HTTP proxy in front of the real server. A mutant sees each request and the real
 * response, and may rewrite either: one broken behaviour per mutant. With no mutant it forwards as is.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';

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
}

export interface Mutant {
  id: string;
  /** What the mutant breaks, in words. */
  breaks: string;
  /** Rewrite the request before it goes upstream (or answer it without going upstream). */
  onRequest?(req: ProxiedRequest): ProxiedRequest | ProxiedResponse;
  /** Rewrite the real response. */
  onResponse?(req: ProxiedRequest, res: ProxiedResponse): ProxiedResponse;
}

export interface RunningProxy {
  baseUrl: string;
  /** Requests seen, by "METHOD path". */
  seen: string[];
  setMutant(mutant: Mutant | undefined): void;
  close(): Promise<void>;
}

function isResponse(x: ProxiedRequest | ProxiedResponse): x is ProxiedResponse {
  return 'status' in x;
}

const HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'host']);

export async function startProxy(upstreamBaseUrl: string): Promise<RunningProxy> {
  const upstream = new URL(upstreamBaseUrl);
  const apiRoot = upstream.pathname.replace(/\/$/, '');
  let mutant: Mutant | undefined;
  const seen: string[] = [];
  const server = http.createServer(async (incoming, outgoing) => {
    const chunks: Buffer[] = [];
    for await (const c of incoming) chunks.push(c as Buffer);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(incoming.headers)) if (v !== undefined && !HOP.has(k)) headers[k] = Array.isArray(v) ? v.join(', ') : v;
    const url = new URL(incoming.url ?? '/', 'http://proxy');
    let req: ProxiedRequest = { method: incoming.method ?? 'GET', path: url.pathname.slice(apiRoot.length) + url.search, headers, body: Buffer.concat(chunks) };
    seen.push(`${req.method} ${req.path}`);
    try {
      let res: ProxiedResponse;
      const rewritten = mutant?.onRequest ? mutant.onRequest(req) : req;
      if (isResponse(rewritten)) res = rewritten;
      else {
        req = rewritten;
        const up = await request(`${upstream.origin}${apiRoot}${req.path}`, {
          method: req.method as 'GET',
          headers: req.headers,
          body: req.body.length > 0 || !['GET', 'HEAD'].includes(req.method) ? req.body : undefined,
        });
        const upHeaders: Record<string, string> = {};
        for (const [k, v] of Object.entries(up.headers)) if (v !== undefined && !HOP.has(k)) upHeaders[k] = Array.isArray(v) ? v.join(', ') : String(v);
        res = { status: up.statusCode, headers: upHeaders, body: Buffer.from(await up.body.arrayBuffer()) };
        if (mutant?.onResponse) res = mutant.onResponse(req, res);
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
    baseUrl: `http://127.0.0.1:${port}${apiRoot}`,
    seen,
    setMutant(m) {
      mutant = m;
      seen.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
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
export function matches(template: string, method: string, req: ProxiedRequest): boolean {
  if (req.method !== method) return false;
  const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/?]+')}(\\?.*)?$`);
  return pattern.test(req.path);
}
