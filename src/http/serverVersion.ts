/**
 * The target's identity beyond its document: the versions the server reports of itself, read from the
 * version endpoints the document offers, so that reports name "3.8.8" where the document's title says only
 * "Prefect REST API 0.1.0". Prefect has two: `GET /admin/version` is the server's release (3.8.8) and
 * `GET /version` the version of its API (0.8.4); the release comes first.
 */
import type { Operation } from '../openapi/operations.js';
import type { RequestToSend } from '../openapi/request.js';
import type { Exchange } from './client.js';

const VERSION_PATHS = [
  { path: '/admin/version', kind: 'release' },
  { path: '/version', kind: 'api' },
] as const;

export interface ReportedVersion {
  version: string;
  from: string;
  /** The server's release (3.8.8), or the version of its API (0.8.4, which many releases share). */
  kind: 'release' | 'api';
}

/** Each version the server reports, release first; none when the document offers no version endpoint that answers one. */
export async function serverVersions(
  operations: ReadonlyArray<Pick<Operation, 'method' | 'path'>>,
  send: (request: RequestToSend) => Promise<Exchange>,
): Promise<ReportedVersion[]> {
  const found: ReportedVersion[] = [];
  for (const { path: p, kind } of VERSION_PATHS) {
    const op = operations.find((o) => o.method === 'GET' && o.path === p);
    if (!op) continue;
    const answer = await send({ method: 'GET', template: op.path, path: op.path });
    if (answer.status < 200 || answer.status > 299) continue;
    const json = answer.json as unknown;
    const version =
      typeof json === 'string'
        ? json
        : json && typeof json === 'object' && typeof (json as { version?: unknown }).version === 'string'
          ? (json as { version: string }).version
          : undefined;
    if (version) found.push({ version, from: `GET ${op.path}`, kind });
  }
  return found;
}
