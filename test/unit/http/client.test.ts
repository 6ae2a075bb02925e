/** The client's answer to a 503: fewer requests in flight while the server is at its limit, then as many as configured again. */
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import {
  BlockedByReadOnly,
  type ClientOptions,
  forNoOperation,
  HttpClient,
  SendingStopped,
  sendingFor,
  WriteByReader,
} from '../../../src/http/client.js';
import { readExchangeLog } from '../../../src/config/exchangeLog.js';
import { MAX_OVERLAP } from '../../../src/http/pacing/overlap.js';
import { Redactor } from '../../../src/http/redact.js';

let server: Server | undefined;

afterEach(async () => {
  await new Promise((r) => server?.close(r));
});

/** The server listening on a free port, and a client of it (4 at a time, nothing redacted). */
async function clientOf(listening: Server, options: Partial<ClientOptions> = {}): Promise<HttpClient> {
  await new Promise<void>((r) => listening.listen(0, '127.0.0.1', r));
  return new HttpClient({
    baseUrl: `http://127.0.0.1:${(listening.address() as AddressInfo).port}`,
    timeoutMs: 5000,
    concurrency: 4,
    redactor: new Redactor([]),
    ...options,
  });
}

/** A server that answers after a pause, 503 while `busy()` says so, and records how many requests it held at once. */
async function serving(
  busy: (n: number, path: string) => boolean,
  pauseMs: number | ((n: number) => number) = 30,
  options: Pick<ClientOptions, 'isRead' | 'readOnly' | 'retryBackoffMs'> = {},
) {
  let inFlight = 0;
  let n = 0;
  const seen: Array<{
    n: number;
    method: string;
    path: string;
    inFlight: number;
    status: number;
    start: number;
    end: number;
  }> = [];
  server = createServer((req, res) => {
    inFlight++;
    const path = req.url ?? '';
    const status = busy(++n, path) ? 503 : 200;
    const served = {
      n,
      method: req.method ?? '',
      path,
      inFlight,
      status,
      start: performance.now(),
      end: Number.POSITIVE_INFINITY,
    };
    seen.push(served);
    setTimeout(
      () => {
        inFlight--;
        served.end = performance.now();
        res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
      },
      typeof pauseMs === 'number' ? pauseMs : pauseMs(n),
    );
  });
  const client = await clientOf(server, options);
  return { client, seen };
}

/** Retries after a 503 as the client makes them, on a shorter clock: what is tested is how many, not how long. */
const quickRetries = { retryBackoffMs: 5 };

const get = (client: HttpClient) => client.send({ method: 'GET', template: '/x', path: '/x' });

describe('HttpClient under 503', () => {
  test('after a 503 the requests in flight halve; with answers that are not 503 they grow back to the limit', async () => {
    // Answer times of a near server, whose own work is most of them: no more in flight than the limit.
    const { client, seen } = await serving(
      (n) => n <= 4,
      (n) => (n % 8 === 0 ? 1 : 30),
    );
    await Promise.all(Array.from({ length: 40 }, () => get(client)));
    const firstOk = seen.findIndex((s) => s.status === 200);
    // Right after the storm of four 503s, one request at a time (4 → 2 → 1 → 1 → 1).
    expect(seen[firstOk].inFlight).toBe(1);
    // And back to four at once before the end.
    expect(Math.max(...seen.slice(firstOk).map((s) => s.inFlight))).toBe(4);
    await client.close();
  });

  test('a far server, whose answers are mostly the way there and back, gets more in flight than the limit', async () => {
    const { client, seen } = await serving(
      () => false,
      (n) => 60 + (n % 4),
    );
    await Promise.all(Array.from({ length: 120 }, () => get(client)));
    expect(client.inFlightLimit).toBeGreaterThan(4);
    expect(Math.max(...seen.map((s) => s.inFlight))).toBeGreaterThan(4);
    expect(Math.max(...seen.map((s) => s.inFlight))).toBeLessThanOrEqual(4 * MAX_OVERLAP);
    await client.close();
  });

  test("a client told another's answer times starts as far from the target as they say", async () => {
    const { client } = await serving(() => false);
    expect(client.inFlightLimit).toBe(4);
    client.learnDistance(Array.from({ length: 64 }, (_, i) => 100 + (i % 4)));
    expect(client.inFlightLimit).toBe(4 * MAX_OVERLAP);
    await client.close();
  });

  test('a request that met 503 three times goes alone: nothing else is in flight when it is sent again', async () => {
    let locked = 0;
    const { client, seen } = await serving((_n, path) => path === '/locked' && ++locked <= 3, 100, quickRetries);
    // Beside it, four steady streams of requests that succeed, and so give the client its slots back.
    let done = false;
    const streams = Array.from({ length: 4 }, async () => {
      while (!done) await get(client);
    });
    const retried = await client.send({ method: 'POST', template: '/locked', path: '/locked', json: {} });
    done = true;
    await Promise.all(streams);
    expect([retried.status, retried.attempts]).toEqual([200, 4]);
    const third = seen.filter((s) => s.path === '/locked')[3];
    const beside = seen.filter((s) => s !== third && s.start < third.end && s.end > third.start);
    expect(beside).toEqual([]);
    await client.close();
  });

  test('after a request of an operation was refused at every attempt, the next of that operation is tried three times, of another six', async () => {
    const { client, seen } = await serving((_n, path) => path !== '/x', 30, quickRetries);
    const down = () => client.send({ method: 'POST', template: '/down', path: '/down', json: {} });
    expect((await down()).attempts).toBe(6);
    const [again, other] = await Promise.all([
      down(),
      client.send({ method: 'POST', template: '/other', path: '/other', json: {} }),
    ]);
    expect([again.status, again.attempts]).toEqual([503, 3]);
    expect([other.status, other.attempts]).toEqual([503, 6]);
    expect(seen.filter((s) => s.path === '/down')).toHaveLength(9);
    await client.close();
  }, 30_000);

  test('a server that answers 503 to everything is still asked as often as the retries say, and reported', async () => {
    const { client, seen } = await serving(() => true, 30, quickRetries);
    const answers = await Promise.all(Array.from({ length: 3 }, () => get(client)));
    expect(answers.map((a) => [a.status, a.attempts])).toEqual([
      [503, 6],
      [503, 6],
      [503, 6],
    ]);
    expect(seen).toHaveLength(18);
    await client.close();
  }, 30_000);
});

describe('HttpClient: a target that answers nothing', () => {
  /** A server that takes connections and answers only the paths `answers` names, the others never. */
  const hung = (answers: (path: string) => boolean) =>
    createServer((req, res) => {
      if (answers(req.url ?? '')) res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  const get = (client: HttpClient, path: string) => client.send({ method: 'GET', template: path, path });

  test('silent to two operations for three timeouts: down, and the rest is not sent but one probe a second', async () => {
    server = hung(() => false);
    const client = await clientOf(server, { timeoutMs: 200 });
    const paths = ['/a', '/b', '/a', '/b', '/a', '/b'];
    for (const path of paths) if (!client.down) expect((await get(client, path)).error).toMatch(/timeout/i);
    expect(client.down?.what).toBe('has answered nothing');
    expect(client.down?.reason).toMatch(/^requests of 2 operations timed out/);
    // The probe goes (and meets the silence); the next, within its second, is answered at once.
    expect((await get(client, '/c')).error).toMatch(/timeout/i);
    const started = performance.now();
    const next = await get(client, '/c');
    expect(performance.now() - started).toBeLessThan(100);
    expect(next.error).toMatch(/^not sent: the target has answered nothing since /);
  });

  test('one operation that never answers, beside one that does, is that operation slow: never down', async () => {
    server = hung((path) => path === '/fine');
    const client = await clientOf(server, { timeoutMs: 200 });
    for (let i = 0; i < 4; i++) {
      expect((await get(client, '/slow')).status).toBe(0);
      expect((await get(client, '/fine')).status).toBe(200);
    }
    for (let i = 0; i < 4; i++) await get(client, '/slow');
    expect(client.down).toBeUndefined();
  });
});

describe('HttpClient: writes after a 503', () => {
  const overlap = (a: { start: number; end: number }, b: { start: number; end: number }) =>
    a !== b && a.start < b.end && b.start < a.end;

  test("before the target's first 503 writes go side by side; after it, one write at a time, reads beside it", async () => {
    const { client, seen } = await serving((n) => n === 9);
    const post = () => client.send({ method: 'POST', template: '/w', path: '/w', json: {} });
    await Promise.all(Array.from({ length: 8 }, post));
    const before = seen.slice(0, 8);
    expect(before.some((a) => before.some((b) => overlap(a, b)))).toBe(true);
    // The ninth request is refused with 503 (and retried): from now on writes take turns.
    expect((await get(client)).attempts).toBe(2);
    const from = seen.length;
    await Promise.all([...Array.from({ length: 8 }, post), ...Array.from({ length: 8 }, () => get(client))]);
    const after = seen.slice(from);
    const writes = after.filter((s) => s.method === 'POST');
    expect(writes).toHaveLength(8);
    expect(writes.filter((a) => writes.some((b) => overlap(a, b)))).toEqual([]);
    // Reads are not held back by them: some went while a write was in flight.
    expect(after.some((r) => r.method === 'GET' && writes.some((w) => overlap(r, w)))).toBe(true);
    await client.close();
  });

  test('a POST that isRead calls a read (a filter) goes beside the writes after a 503', async () => {
    const isRead = (spec: { method: string; template: string }) =>
      spec.method === 'GET' || spec.template.endsWith('/filter');
    const { client, seen } = await serving((n) => n === 1, 30, { isRead });
    expect((await get(client)).attempts).toBe(2);
    const from = seen.length;
    const post = (path: string) => client.send({ method: 'POST', template: path, path, json: {} });
    await Promise.all([
      ...Array.from({ length: 6 }, () => post('/w')),
      ...Array.from({ length: 6 }, () => post('/filter')),
    ]);
    const after = seen.slice(from);
    const writes = after.filter((s) => s.path === '/w');
    expect(writes.filter((a) => writes.some((b) => overlap(a, b)))).toEqual([]);
    expect(after.some((r) => r.path === '/filter' && writes.some((w) => overlap(r, w)))).toBe(true);
    await client.close();
  });

  test('after a 503 a body refused by validation goes beside the writes; other writes still take turns', async () => {
    const { client, seen } = await serving((n) => n === 1);
    expect((await get(client)).attempts).toBe(2);
    const from = seen.length;
    const post = (path: string, refusedBeforeData?: boolean) =>
      client.send({ method: 'POST', template: path, path, json: {}, refusedBeforeData });
    await Promise.all([
      ...Array.from({ length: 6 }, () => post('/w')),
      ...Array.from({ length: 6 }, () => post('/invalid', true)),
    ]);
    const after = seen.slice(from);
    const writes = after.filter((s) => s.path === '/w');
    const refused = after.filter((s) => s.path === '/invalid');
    expect(writes.filter((a) => writes.some((b) => overlap(a, b)))).toEqual([]);
    expect(refused.some((r) => writes.some((w) => overlap(r, w)))).toBe(true);
    await client.close();
  });
});

describe('HttpClient: the order of requests waiting for room', () => {
  test("the requests of the sender that began first go first: a chain is not held behind a later sender's crowd", async () => {
    const { client, seen } = await serving((n) => n === 1);
    // The first 503: from now on writes take turns, one at a time.
    expect((await get(client)).attempts).toBe(2);
    const post = (path: string) => client.send({ method: 'POST', template: path, path, json: {} });
    const chain = sendingFor('chain', async () => {
      for (let i = 0; i < 4; i++) await post('/chain');
    });
    const crowd = sendingFor('crowd', () => Promise.all(Array.from({ length: 6 }, () => post('/crowd'))));
    await Promise.all([chain, crowd]);
    const order = seen.filter((s) => s.method === 'POST').map((s) => s.path);
    // In the order they came, the chain's last three would wait behind the whole crowd.
    expect(order.lastIndexOf('/chain')).toBeLessThan(order.lastIndexOf('/crowd'));
    expect(order.slice(0, 7)).toEqual(['/chain', '/crowd', '/chain', '/crowd', '/chain', '/crowd', '/chain']);
    await client.close();
  });
});

describe('HttpClient: the exchange log', () => {
  test('each line names its sender and, where the sender works for one, the operation it works for', async () => {
    server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    const exchangeLog = path.join(mkdtempSync(path.join(os.tmpdir(), 'exchanges-')), 'exchanges.jsonl');
    const client = await clientOf(server, { exchangeLog });
    // A check of GET /flows/{id} that first makes its flow: both requests are sent for GET /flows/{id}.
    await sendingFor(
      'methods.get-idempotent',
      () => client.send({ method: 'POST', template: '/flows/', path: '/flows/', json: {} }),
      {
        operation: 'GET /flows/{id}',
      },
    );
    // An object the whole run shares, made for whichever case asked first: sent for no one operation.
    await sendingFor(
      'methods.get-idempotent',
      () => forNoOperation(() => client.send({ method: 'POST', template: '/flows/', path: '/flows/', json: {} })),
      { operation: 'GET /flows/{id}' },
    );
    await sendingFor('corpus', () => client.send({ method: 'POST', template: '/flows/', path: '/flows/', json: {} }));
    await client.send({ method: 'GET', template: '/health', path: '/health' });
    expect(readExchangeLog(exchangeLog).map((b) => [b.by, b.for, `${b.method} ${b.template}`])).toEqual([
      ['methods.get-idempotent', 'GET /flows/{id}', 'POST /flows/'],
      ['methods.get-idempotent', undefined, 'POST /flows/'],
      ['corpus', undefined, 'POST /flows/'],
      ['other', undefined, 'GET /health'],
    ]);
    await client.close();
  });
});

describe('HttpClient: requests racing on purpose', () => {
  test('after a 503, two writes marked racing go at the same moment; other writes still take turns', async () => {
    const { client, seen } = await serving((n) => n === 1);
    expect((await get(client)).attempts).toBe(2);
    const from = seen.length;
    const post = (path: string, racing?: boolean) =>
      client.send({ method: 'POST', template: path, path, json: {}, ...(racing ? { racing } : {}) });
    await Promise.all([post('/race', true), post('/race', true)]);
    await Promise.all([post('/w'), post('/w')]);
    const [a, b, c, d] = seen.slice(from);
    expect([a.path, b.path, c.path, d.path]).toEqual(['/race', '/race', '/w', '/w']);
    expect(a.start < b.end && b.start < a.end).toBe(true);
    expect(c.start < d.end && d.start < c.end).toBe(false);
    await client.close();
  });
});

describe('HttpClient: a section with the target to itself', () => {
  test('its requests go one at a time, after what was in flight, and no other request starts until it ends', async () => {
    const { client, seen } = await serving(() => false, 40);
    let done = false;
    const streams = Array.from({ length: 4 }, async () => {
      while (!done) await get(client);
    });
    await new Promise((r) => setTimeout(r, 60));
    const post = (path: string) => client.send({ method: 'POST', template: path, path, json: {} });
    await client.alone(async () => {
      await post('/harm');
      await post('/read');
      await post('/undo');
    });
    done = true;
    await Promise.all(streams);
    const inside = seen.filter((x) => ['/harm', '/read', '/undo'].includes(x.path));
    expect(inside.map((x) => x.path)).toEqual(['/harm', '/read', '/undo']);
    const [first, last] = [inside[0]!, inside[2]!];
    // Nothing else was served from the first request's start to the last one's end.
    expect(seen.filter((x) => !inside.includes(x) && x.start < last.end && x.end > first.start)).toEqual([]);
    expect(seen.filter((x) => x.path === '/x' && x.start > last.end).length).toBeGreaterThan(0);
    await client.close();
  });
});

describe('HttpClient in read-only mode', () => {
  test('a request that is not a read is refused unsent; a read is sent', async () => {
    const { client, seen } = await serving(() => false, 1, { readOnly: true });
    await expect(client.send({ method: 'DELETE', template: '/x', path: '/x' })).rejects.toBeInstanceOf(
      BlockedByReadOnly,
    );
    expect((await get(client)).status).toBe(200);
    expect(seen.map((s) => s.method)).toEqual(['GET']);
    await client.close();
  });

  test('a body refused by validation is still a write: refused unsent', async () => {
    const { client, seen } = await serving(() => false, 1, { readOnly: true });
    await expect(
      client.send({ method: 'POST', template: '/x', path: '/x', json: { bad: 1 }, refusedBeforeData: true }),
    ).rejects.toBeInstanceOf(BlockedByReadOnly);
    expect(seen).toEqual([]);
    await client.close();
  });
});

describe('HttpClient: the time before a retried answer', () => {
  test('a request refused twice records the time from its first attempt to its last, under its sender', async () => {
    let n = 0;
    const { client } = await serving(() => ++n <= 2, 20);
    const retried = await get(client);
    expect(retried).toMatchObject({ status: 200, attempts: 3, earlier: [503, 503] });
    // Two refused attempts of ~20 ms, and the backoff of 200 and 400 ms (with up to half again of jitter).
    expect(retried.retryMs).toBeGreaterThanOrEqual(640);
    expect(retried.retryMs).toBeLessThan(2000);
    const first = await get(client);
    expect(first.retryMs).toBeUndefined();
    expect(client.bySender.get('other')).toMatchObject({ requests: 4, retried: 1, retryMs: retried.retryMs });
    await client.close();
  });
});

describe('HttpClient.answerNothingAfter', () => {
  test('before its time requests are sent; from then on each is answered at once, not sent, with the reason', async () => {
    const { client, seen } = await serving(() => false);
    client.answerNothingAfter(Date.now() + 200, "cleanup's time ran out");
    expect((await get(client)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 250));
    const started = performance.now();
    const quiet = await get(client);
    expect(performance.now() - started).toBeLessThan(25);
    expect(quiet).toMatchObject({ status: 0, attempts: 0, error: "not sent: cleanup's time ran out" });
    expect(seen).toHaveLength(1);
    await client.close();
  });
});

describe('HttpClient.answerNothingAfter, with requests waiting for a slot', () => {
  test('a request whose slot comes after the time ran out is not sent, though it was asked for before', async () => {
    // Four at a time, each answered in 300 ms: the second four start at ~300 ms, before the end at 450, the third
    // at ~600, after it. Margins of 150 ms, which a loaded machine's event loop does not slip past.
    const { client, seen } = await serving(() => false, 300);
    client.answerNothingAfter(Date.now() + 450, "cleanup's time ran out");
    const answers = await Promise.all(Array.from({ length: 12 }, () => get(client)));
    expect(seen).toHaveLength(8);
    expect(answers.filter((a) => a.error === "not sent: cleanup's time ran out")).toHaveLength(4);
    await client.close();
  });
});

describe('HttpClient.curl', () => {
  const exchange = {
    method: 'POST',
    url: 'http://127.0.0.1:36299/api/flows/filter',
    requestHeaders: { accept: 'application/json', 'content-type': 'application/json' },
    requestBody: `{"name":"it's"}`,
  };

  test('a line that repeats the request, quoted for a POSIX shell', () => {
    expect(HttpClient.curl(exchange)).toBe(
      `curl -sS -X POST 'http://127.0.0.1:36299/api/flows/filter' -H 'content-type: application/json' --data-raw '{"name":"it'\\''s"}'`,
    );
  });

  test('for a managed server, whose port is gone after the run, the URL starts with "$BASE_URL"', () => {
    const line = HttpClient.curl(exchange, 'http://127.0.0.1:36299/api');
    expect(line).toBe(
      `curl -sS -X POST "$BASE_URL"'/flows/filter' -H 'content-type: application/json' --data-raw '{"name":"it'\\''s"}'`,
    );
    expect(line).not.toContain('36299');
  });

  test("the run's credentials, redacted, are read from their variable when the line runs", () => {
    const bearer = { ...exchange, requestHeaders: { authorization: 'Bearer ***' } };
    expect(HttpClient.curl(bearer)).toContain(` -H "authorization: Bearer $CONFORMANCE_API_KEY" `);
    const basic = { ...exchange, requestHeaders: { authorization: 'Basic ***' } };
    expect(HttpClient.curl(basic)).toContain(` -u "$CONFORMANCE_AUTH_STRING" `);
    const wrong = { ...exchange, requestHeaders: { authorization: 'Bearer conformance-wrong-key' } };
    expect(HttpClient.curl(wrong)).toContain(` -H 'authorization: Bearer conformance-wrong-key' `);
  });
});

/** A server that answers 429 with these headers while `limited(n)` says so, else 200. */
async function limiting(limited: (n: number) => boolean, headers: Record<string, string>) {
  let n = 0;
  const at: number[] = [];
  server = createServer((_req, res) => {
    at.push(performance.now());
    if (limited(++n))
      res.writeHead(429, { 'content-type': 'application/json', ...headers }).end('{"detail":"slow down"}');
    else res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  return { client: await clientOf(server), at };
}

describe('HttpClient and rate limits (429)', () => {
  test('a 429 is never the answer: the request is sent again after Retry-After, whatever its method', async () => {
    const { client, at } = await limiting((n) => n <= 2, { 'retry-after': '0.2' });
    const answer = await client.send({ method: 'POST', template: '/flows/', path: '/flows/', json: {} });
    expect(answer.status).toBe(200);
    expect(answer.earlier).toEqual([429, 429]);
    expect(at[1] - at[0]).toBeGreaterThanOrEqual(190);
    expect(client.pacing.summary()).toMatchObject({ rateLimited: 2, byFamily: { flows: { rateLimited: 2 } } });
    await client.close();
  });

  test('the other requests of the family wait for the pause; another family does not', async () => {
    const { client, at } = await limiting((n) => n === 1, { 'retry-after': '0.3' });
    await client.send({ method: 'GET', template: '/flows/', path: '/flows/' });
    const started = performance.now();
    const [other] = await Promise.all([
      client.send({ method: 'GET', template: '/health', path: '/health' }).then(() => performance.now() - started),
      client.send({ method: 'GET', template: '/flows/', path: '/flows/' }),
    ]);
    expect(other).toBeLessThan(150);
    expect(at).toHaveLength(4);
    await client.close();
  });

  test('a request whose time in a pace has come looks for room before the requests no limit holds', async () => {
    // /flows states a pace of 20 a second; /other is not limited, and each of its answers takes 40 ms.
    const served: Array<{ path: string; at: number }> = [];
    server = createServer((req, res) => {
      const path = req.url ?? '';
      const answer = () => {
        served.push({ path, at: performance.now() });
        res
          .writeHead(200, {
            'content-type': 'application/json',
            ...(path === '/flows/' ? { 'ratelimit-policy': '20;w=1' } : {}),
          })
          .end('{}');
      };
      if (path === '/flows/') answer();
      else setTimeout(answer, 40);
    });
    const client = await clientOf(server);
    await client.send({ method: 'GET', template: '/flows/', path: '/flows/' });
    expect(client.pacing.summary().byFamily.flows.rate).toBe(20);
    // Forty requests to /other queue for the four places in flight (400 ms of them), then one to /flows.
    const others = Array.from({ length: 40 }, () => client.send({ method: 'GET', template: '/other', path: '/other' }));
    await new Promise((r) => setTimeout(r, 10));
    const asked = performance.now();
    await client.send({ method: 'GET', template: '/flows/', path: '/flows/' });
    const flowsServed = performance.now() - asked;
    await Promise.all(others);
    expect(flowsServed).toBeLessThan(150);
    expect(served.filter((s) => s.path === '/other' && s.at > asked + flowsServed).length).toBeGreaterThan(20);
    await client.close();
  });

  test("a sender declared to read only: its write is refused unsent; behind a pace, a later sender's request goes before its reads", async () => {
    const served: string[] = [];
    server = createServer((req, res) => {
      served.push(`${req.method} ${req.url}`);
      res.writeHead(200, { 'content-type': 'application/json', 'ratelimit-policy': '20;w=1' }).end('{}');
    });
    const client = await clientOf(server, { isRead: (r) => r.method === 'GET' });
    await client.send({ method: 'GET', template: '/flows/', path: '/flows/' });
    await expect(
      sendingFor('reader', () => client.send({ method: 'POST', template: '/flows/', path: '/flows/', json: {} }), {
        readsOnly: true,
      }),
    ).rejects.toBeInstanceOf(WriteByReader);
    const reads = sendingFor(
      'reader',
      () =>
        Promise.all(
          Array.from({ length: 8 }, (_, i) =>
            client.send({ method: 'GET', template: '/flows/', path: `/flows/?r=${i}` }),
          ),
        ),
      { readsOnly: true },
    );
    await new Promise((r) => setTimeout(r, 5));
    const chain = sendingFor('exercise', () =>
      client.send({ method: 'GET', template: '/flows/', path: '/flows/?chain' }),
    );
    await Promise.all([reads, chain]);
    expect(served.filter((s) => s.startsWith('POST'))).toEqual([]);
    // At 20 a second, the chain's request is served among the first of the nine, not after the eight reads.
    expect(served.slice(1).indexOf('GET /flows/?chain')).toBeLessThan(6);
    await client.close();
  });

  test('a target that stays at its limit holds the request until the run stops sending, then SendingStopped', async () => {
    const { client } = await limiting(() => true, { 'retry-after': '1' });
    const pending = client.send({ method: 'GET', template: '/flows/', path: '/flows/' });
    await new Promise((r) => setTimeout(r, 150));
    const stopped = performance.now();
    client.stopSending('the budget was spent');
    await expect(pending).rejects.toBeInstanceOf(SendingStopped);
    expect(performance.now() - stopped).toBeLessThan(100);
    expect(client.pacing.summary().rateLimited).toBeGreaterThanOrEqual(1);
    await client.close();
  });
});
