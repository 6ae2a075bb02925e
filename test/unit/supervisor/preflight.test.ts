/** The preflight's reachability probe is not an API operation: a short per-request timeout does not bound it. */
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { surveyTarget } from '../../../src/supervisor/preflight.js';
import { referenceDocPath } from '../support.js';

/** Longer than the run's per-request timeout below: a busy server's first answer. */
const HEALTH_AFTER_MS = 1500;
let server: Server;
let base: string;

beforeAll(async () => {
  const document = readFileSync(referenceDocPath, 'utf8');
  server = createServer((req, res) => {
    if (req.url === '/health') setTimeout(() => res.writeHead(200).end('true'), HEALTH_AFTER_MS);
    else if (req.url === '/openapi.json') res.writeHead(200, { 'content-type': 'application/json' }).end(document);
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('surveyTarget', () => {
  test('a target slower to answer than the per-request timeout is reachable, and its document surveyed', async () => {
    const survey = await surveyTarget({
      baseUrl: base,
      source: `${base}/openapi.json`,
      timeoutMs: 1000,
      writeTo: path.join(mkdtempSync(path.join(os.tmpdir(), 'preflight-')), 'openapi.json'),
    });
    expect(survey.operations.length).toBeGreaterThan(0);
  });
});
