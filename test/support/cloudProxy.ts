/**
 * A cloud-shaped target: the API under /api/accounts/<uuid>/workspaces/<uuid>, every request refused
 * without `Authorization: Bearer <key>`, in front of the real managed server.
 */
import { randomUUID } from 'node:crypto';
import { json, startProxy, type RunningProxy } from './proxy.js';

export const CLOUD_KEY = 'pnu_conformance_test_key_7f3a9c';

export function startCloudProxy(upstreamBaseUrl: string, key = CLOUD_KEY): Promise<RunningProxy> {
  return startProxy(upstreamBaseUrl, {
    prefix: `/api/accounts/${randomUUID()}/workspaces/${randomUUID()}`,
    gate: (req) =>
      req.headers.authorization === `Bearer ${key}`
        ? undefined
        : { status: 401, headers: { 'content-type': 'application/json' }, body: json.body({ detail: 'Unauthorized' }) },
  });
}
