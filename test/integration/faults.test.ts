/**
 * A misbehaving target is reported, never a crash or a hang: each fault below sits in the proxy in front
 * of the real server, and the run still ends within its deadlines, writes results.json, and names the fault.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { laneBaseUrl } from '../support/lane.js';
import { json, matches, startProxy, type Mutant, type RunningProxy } from '../support/proxy.js';
import { prefectBaseline, runCli, sqliteLabel, type CliRun } from '../support/runCli.js';

const FLOW_ITEM = '/flows/{id}';
const TIMEOUT_MS = 1000;
let proxy: RunningProxy;

beforeAll(async () => {
  proxy = await startProxy(laneBaseUrl());
});
afterAll(() => proxy?.close());

async function runWith(mutant: Mutant, operations: string, label = sqliteLabel): Promise<CliRun & { seconds: number }> {
  proxy.setMutant(mutant);
  const started = Date.now();
  const run = await runCli([], {
    CONFORMANCE_BASE_URL: proxy.baseUrl,
    CONFORMANCE_OPERATIONS: operations,
    CONFORMANCE_DISPOSABLE_TARGET: '1',
    CONFORMANCE_TIMEOUT_MS: String(TIMEOUT_MS),
    CONFORMANCE_GENERATED: '2',
    CONFORMANCE_BASELINE: prefectBaseline,
    CONFORMANCE_TARGET_LABEL: label,
  });
  proxy.setMutant(undefined);
  return { ...run, seconds: (Date.now() - started) / 1000 };
}

function failure(run: CliRun, id: string, operation: string) {
  return run.results?.checks.find((c) => c.id === id && c.operation === operation && c.status === 'failed');
}

const getFlow = (writeBy: (res: ServerResponse) => void): Mutant => ({
  id: 'fault',
  breaks: 'GET /flows/{id}',
  onRequest: (req) =>
    matches(FLOW_ITEM, 'GET', req) ? { status: 200, headers: {}, body: Buffer.alloc(0), writeBy } : req,
});

describe('target faults', () => {
  test('a request that never answers is ended by the per-request timeout', async () => {
    const run = await runWith(
      getFlow(() => {}),
      '^GET /flows/\\{id\\}$',
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(1);
    expect(failure(run, 'contract.no-5xx', 'GET /flows/{id}')?.message).toMatch(/no answer: .*(Timeout|timeout)/);
    expect(run.seconds).toBeLessThan(120);
  });

  test('a slow drip of bytes is ended by the total deadline', async () => {
    const drip: (res: ServerResponse) => void = (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const timer = setInterval(() => res.write(' '), Math.floor(TIMEOUT_MS / 4));
      res.on('close', () => clearInterval(timer));
    };
    const run = await runWith(getFlow(drip), '^GET /flows/\\{id\\}$');
    expect(run.code).toBe(1);
    expect(failure(run, 'contract.no-5xx', 'GET /flows/{id}')?.message).toMatch(/no answer: .*(Abort|Timeout|timeout)/);
    expect(run.seconds).toBeLessThan(180);
  });

  test('a connection reset in the middle of a body is reported as no answer', async () => {
    const cut: (res: ServerResponse) => void = (res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('{"id": "half a bo');
      setTimeout(() => res.socket?.destroy(), 50);
    };
    const run = await runWith(getFlow(cut), '^GET /flows/\\{id\\}$');
    expect(run.code).toBe(1);
    expect(failure(run, 'contract.no-5xx', 'GET /flows/{id}')?.message).toMatch(/no answer/);
  });

  test('a 50 MB body is cut at the cap and reported', async () => {
    const huge: Mutant = {
      id: 'huge',
      breaks: 'GET /flows/{id} answers 50 MB',
      onResponse: (req, res) =>
        matches(FLOW_ITEM, 'GET', req) && res.status === 200
          ? { ...res, body: Buffer.concat([Buffer.from('["'), Buffer.alloc(50 * 1024 * 1024, 'x'), Buffer.from('"]')]) }
          : res,
    };
    const run = await runWith(huge, '^GET /flows/\\{id\\}$');
    expect(run.code).toBe(1);
    const c = failure(run, 'contract.content-type', 'GET /flows/{id}');
    expect(c?.message).toMatch(/larger than/);
    expect(c?.evidence[0].response.truncated).toBe(true);
  });

  test('responses that break the contract: garbage JSON, an HTML error page where JSON is documented, a wrong content type', async () => {
    const broken: Mutant = {
      id: 'broken-bodies',
      breaks:
        'GET /flows/{id} answers garbage JSON; POST /flows/filter an HTML 422 page; POST /flows/count application/xml',
      onResponse: (req, res) => {
        if (matches(FLOW_ITEM, 'GET', req) && res.status === 200)
          return { ...res, body: Buffer.from('{"id": "5f0e", "name": [,,}') };
        if (matches('/flows/filter', 'POST', req))
          return {
            status: 422,
            headers: { 'content-type': 'text/html' },
            body: Buffer.from('<html><body><h1>Unprocessable</h1></body></html>'),
          };
        if (matches('/flows/count', 'POST', req) && res.status === 200)
          return {
            ...res,
            headers: { ...res.headers, 'content-type': 'application/xml' },
            body: Buffer.from('<count>1</count>'),
          };
        return res;
      },
    };
    const run = await runWith(broken, '^(GET /flows/\\{id\\}|POST /flows/(filter|count))$');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(1);
    expect(failure(run, 'contract.content-type', 'GET /flows/{id}')?.message).toMatch(/declared JSON does not parse/);
    expect(failure(run, 'contract.content-type', 'POST /flows/filter')?.message).toMatch(
      /422 is documented as JSON, but came as "text\/html"/,
    );
    expect(failure(run, 'contract.content-type', 'POST /flows/count')?.message).toMatch(
      /documented as JSON, but came as "application\/xml"/,
    );
    // The HTML report shows them too.
    const html = readFileSync(path.join(run.outDir, 'index.html'), 'utf8');
    expect(html).toContain('data-status="failed" data-family="contract"');
    expect(html).toContain('declared JSON does not parse');
  });

  test('a server that throttles (every 20th request answered 429, Retry-After: 1) is waited for, never judged', async () => {
    let n = 0;
    const throttle: Mutant = {
      id: 'throttle',
      breaks: 'nothing: a conforming server at its rate limit',
      onRequest: (req) =>
        ++n % 20 === 0
          ? {
              status: 429,
              headers: { 'content-type': 'application/json', 'retry-after': '1' },
              body: json.body({ detail: 'Too many requests' }),
            }
          : req,
    };
    const run = await runWith(throttle, '^(GET|PATCH|DELETE) /flows/\\{id\\}$');
    expect(run.stderr).toBe('');
    expect(run.results!.checks.filter((c) => c.status === 'failed')).toEqual([]);
    expect(run.code).toBe(0);
    expect(run.results!.timing!.pacing!.rateLimited).toBeGreaterThanOrEqual(3);
    expect(run.results!.cleanup!.failed).toEqual([]);
  });

  test('a storm of 503s is retried a bounded number of times, then reported', async () => {
    const storm: Mutant = {
      id: 'storm',
      breaks: 'POST /flows/filter answers 503 always',
      onRequest: (req) =>
        matches('/flows/filter', 'POST', req)
          ? { status: 503, headers: { 'content-type': 'application/json' }, body: json.body({ detail: 'busy' }) }
          : req,
    };
    // Without the SQLite label: its intermittent "database is locked" entry would excuse this 503.
    const run = await runWith(storm, '^POST /flows/filter$', 'a target under test');
    // Six attempts until one of the operation's requests has been refused at every one; three after it
    // (http/client.ts): which of them the valid request's failure shows depends on the order of the answers. A
    // value past what a server must hold gets two (RequestToSend.valuesSuspect).
    const byKey = new Map(
      (failure(run, 'contract.available', 'POST /flows/filter')?.failures ?? []).map((f) => [f.key, f.message]),
    );
    expect(byKey.get('recipe')).toMatch(/answered 503 [36] times/);
    expect(byKey.get('past-64-bits')).toMatch(/answered 503 2 times/);
    expect(
      run.results!.operations.find((o) => `${o.method} ${o.path}` === 'POST /flows/filter')?.retried,
    ).toBeGreaterThan(0);
    expect(run.results).toBeDefined();
  });

  test('a target too slow to delete from: cleanup stops at its time, lists what it left, and the run fails', async () => {
    // Only creates are selected, so every DELETE is cleanup's; each waits 6 s, and cleanup has the deadline's 10 s:
    // it deletes side by side what names nothing else (4 at a time), so two rounds of the run's dozen or more
    // objects are deleted, the rest are not sent for.
    const slowDeletes: Mutant = {
      id: 'slow-deletes',
      breaks: 'every DELETE is answered after 6 s',
      onRequest: async (req) => {
        if (req.method === 'DELETE') await new Promise((r) => setTimeout(r, 6000));
        return req;
      },
    };
    proxy.setMutant(slowDeletes);
    const run = await runCli([], {
      CONFORMANCE_BASE_URL: proxy.baseUrl,
      CONFORMANCE_OPERATIONS: '^POST /flows/$',
      CONFORMANCE_DEADLINE: '10',
      CONFORMANCE_GENERATED: '12',
      CONFORMANCE_BASELINE: prefectBaseline,
      CONFORMANCE_TARGET_LABEL: sqliteLabel,
    });
    const deletesSent = proxy.seen.filter((s) => s.startsWith('DELETE ')).length;
    proxy.setMutant(undefined);
    const cleanup = run.results!.cleanup!;
    try {
      expect(run.code).toBe(1);
      expect(cleanup.deleted).toBeGreaterThan(0);
      expect(cleanup.failed.length).toBeGreaterThan(0);
      for (const f of cleanup.failed) expect(f.reason).toMatch(/^not sent: cleanup's time of 10 s ran out/);
      // What was left is not sent for at all: cleanup did not wait on it.
      expect(deletesSent).toBeLessThan(cleanup.deleted + cleanup.alreadyGone + cleanup.failed.length);
      expect(run.results!.errors?.join(' ')).toMatch(/cleanup could not delete \d+ object/);
      expect(run.stderr).not.toMatch(/\n\s+at /);
    } finally {
      // This test's own cleanup: what the run left, deleted on the server itself.
      for (const f of cleanup.failed) if (f.path) await fetch(`${laneBaseUrl()}${f.path}`, { method: 'DELETE' });
    }
  });

  test('a server that dies in the middle of the run: the rest is reported, the report written, cleanup listed', async () => {
    let seen = 0;
    const dies: Mutant = {
      id: 'dies',
      breaks: 'the server stops answering after 40 requests',
      onRequest: (req) => {
        if (++seen === 40) void proxy.stop();
        return req;
      },
    };
    const run = await runWith(dies, '^(GET|POST|DELETE|PATCH) /flows/');
    expect(run.code).toBe(1);
    expect(run.results).toBeDefined();
    // The checks left when it died are errors, each saying why; none is passed off as a verdict.
    const errors = run.results!.checks.filter((c) => c.status === 'error');
    expect(run.results!.summary.error).toBe(errors.length);
    expect(errors.length).toBeGreaterThan(run.results!.checks.length / 2);
    for (const c of errors)
      expect(c.message).toMatch(/^not judged: the target has refused connections since .*ECONNREFUSED/);
    expect(existsSync(path.join(run.outDir, 'index.html'))).toBe(true);
    expect(run.stdout).toMatch(/ERROR \d+ check\(s\) could not be judged/);
    // Once it is known to be down, the rest of the run does not wait on it.
    expect(run.seconds).toBeLessThan(120);
    expect(run.results!.cleanup!.failed.length).toBeGreaterThan(0);
    expect(run.results!.errors?.join(' ')).toMatch(/cleanup could not delete/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    proxy = await startProxy(laneBaseUrl());
  });
});
