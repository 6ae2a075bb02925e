/** Bad input to the suite: one clear line on stderr, exit code 2, never a stack trace. */
import { mkdtempSync, readdirSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { laneBaseUrl } from '../support/lane.js';
import { freePort } from '../../src/managed/prefect.js';
import { prefectTargetEnv, repoRoot, runCli } from '../support/runCli.js';

let server: http.Server;
let base: string;

beforeAll(async () => {
  // A server that answers, but not with an OpenAPI document (HTML), or with a broken one.
  server = http.createServer((req, res) => {
    if (req.url?.startsWith('/html/')) {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><body>not an API</body></html>');
    } else if (req.url?.startsWith('/broken/')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          openapi: '3.1.0',
          info: { title: 'x', version: '1' },
          paths: { '/flows/': { get: { responses: 'not an object' } } },
        }),
      );
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

function expectOneLine(run: { code: number; stderr: string }, pattern: RegExp) {
  expect(run.code).toBe(2);
  const lines = run.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
  expect(run.stderr).not.toMatch(/\n\s+at /);
}

describe('bad input exits 2 with one line', () => {
  test('an unreachable URL', async () => {
    const port = await freePort();
    expectOneLine(
      await runCli([], { CONFORMANCE_BASE_URL: `http://127.0.0.1:${port}/api` }),
      new RegExp(`unreachable: http://127.0.0.1:${port}/api`),
    );
  });

  test('a URL that serves no OpenAPI document', async () => {
    expectOneLine(await runCli([], { CONFORMANCE_BASE_URL: `${base}/html` }), /serves no OpenAPI document/);
  });

  test('an invalid document', async () => {
    expectOneLine(await runCli([], { CONFORMANCE_BASE_URL: `${base}/broken` }), /invalid OpenAPI document/);
  });

  test('a selection of operations that selects none of the document', async () => {
    expectOneLine(
      await runCli(['--operations', '^GET /no/such/path$'], { CONFORMANCE_BASE_URL: laneBaseUrl() }),
      /--operations "\^GET \/no\/such\/path\$" selects none of the document's \d+ operations/,
    );
  });

  test("a selection of none of a managed release's operations is refused before its server is installed or started", async () => {
    // An empty cache and no Python: a run that installed or started the server first would fail on that instead.
    const nothing = { CONFORMANCE_CACHE_DIR: mkdtempSync(path.join(os.tmpdir(), 'no-venv-')), PYTHON: '/bin/false' };
    expectOneLine(
      await runCli(['--operations', '^NOPE '], nothing),
      /^conformance: --operations "\^NOPE " selects none of the document's \d+ operations/,
    );
    expectOneLine(
      await runCli(['--prefect-version', '3.4.25', '--methods', 'PUT', '--operations', '^GET'], nothing),
      /the selection \(operations=\^GET; methods=PUT\) selects none of the document's \d+ operations/,
    );
  });

  test('a managed release the package index does not have: one line with the newest it has, and no install tried', async () => {
    const cache = mkdtempSync(path.join(os.tmpdir(), 'no-venv-'));
    expectOneLine(
      await runCli(['--prefect-version', '9.9.9'], { CONFORMANCE_CACHE_DIR: cache }),
      /^conformance: Prefect 9\.9\.9 could not be started: the package index has no prefect 9\.9\.9 \(its newest: \d+\.\d+\.\d+\)$/,
    );
    expect(readdirSync(cache)).toEqual([]);
  });

  test('a document from a file, and a target that refuses connections', async () => {
    const port = await freePort();
    const document = path.join(repoRoot, 'fixtures', 'reference', 'prefect-openapi.json');
    expectOneLine(
      await runCli(['--document', document, '--operations', '^GET /flows/\\{id\\}$'], {
        CONFORMANCE_BASE_URL: `http://127.0.0.1:${port}/api`,
      }),
      new RegExp(`unreachable: http://127.0.0.1:${port}/api`),
    );
  });

  test('a baseline file that cannot be read is refused before the target is asked or a server started', async () => {
    // The target refuses connections: a run that asked it first would say it is unreachable.
    const port = await freePort();
    expectOneLine(
      await runCli(['--baseline', '/no/such/baseline.json'], { CONFORMANCE_BASE_URL: `http://127.0.0.1:${port}/api` }),
      /cannot read baseline \/no\/such\/baseline\.json: ENOENT/,
    );
  });

  test('suites whose worker thread cannot start: one retry, then one line, and no verdict on the target', async () => {
    const out = mkdtempSync(path.join(os.tmpdir(), 'no-worker-'));
    const run = await runCli(['--operations', '^GET /flows/\\{id\\}$'], {
      ...prefectTargetEnv(laneBaseUrl()),
      CONFORMANCE_OUT: out,
      CONFORMANCE_SUITE_NODE_FLAGS: '--no-such-node-flag',
    });
    expectOneLine(
      run,
      /^conformance: the suites could not start, twice: .*Failed to start threads worker.*--no-such-node-flag$/,
    );
    expect(run.results).toBeUndefined();
    expect(run.stdout).not.toMatch(/FAIL|PASS/);
  });

  test("explore's --minutes and --seeds: a number above 0, before the target is asked", async () => {
    expectOneLine(
      await runCli(['explore', '--minutes', '0']),
      /explore: --minutes takes a number of minutes above 0, got "0"/,
    );
    expectOneLine(
      await runCli(['explore', '--seeds', '1.5']),
      /explore: --seeds takes a whole number above 0, got "1.5"/,
    );
  });

  test('an unknown flag', async () => {
    expectOneLine(await runCli(['--no-such-flag']), /unknown option '--no-such-flag'/);
  });

  test('a malformed CONFORMANCE_BASE_URL', async () => {
    expectOneLine(
      await runCli([], { CONFORMANCE_BASE_URL: 'http//missing-colon' }),
      /CONFORMANCE_BASE_URL is not a valid URL/,
    );
  });

  test('a mistyped flag or command: the one meant', async () => {
    expectOneLine(await runCli(['--base-ur', 'http://x']), /unknown option '--base-ur' \(Did you mean --base-url\?\)$/);
    expectOneLine(await runCli(['chekcs']), /unknown command "chekcs" \(did you mean checks\?\)/);
  });

  test("a flag npm took for itself (npm run conformance --base-url URL): where the suite's flags go", async () => {
    expectOneLine(
      await runCli(['http://x/api'], { npm_lifecycle_event: 'conformance', npm_config_base_url: 'true' }),
      /npm took --base-url for itself; .*npm run conformance -- --base-url http:\/\/x\/api$/,
    );
  });

  test('an unknown command', async () => {
    expectOneLine(await runCli(['frobnicate']), /unknown command "frobnicate"/);
    expectOneLine(await runCli(['baseline', 'frobnicate']), /unknown command 'frobnicate'/);
  });
});
