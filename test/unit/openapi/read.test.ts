/** Reading a document as served, over HTTP and from a file: what is not one is bad input, in one line. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { UsageError } from '../../../src/config/errors.js';
import { readDocument } from '../../../src/openapi/read.js';
import { referenceDocPath } from '../support.js';

const document = JSON.stringify({ openapi: '3.1.0', info: { title: 't', version: '1' }, paths: {} });
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/openapi.json') {
      // The document is served only to a client that asks for JSON, uncompressed, with the run's credentials.
      const ok =
        req.headers.accept === 'application/json' &&
        req.headers.authorization === 'Bearer k' &&
        req.headers['accept-encoding'] === 'identity';
      res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' }).end(ok ? document : '{}');
    } else if (req.url === '/html') res.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>');
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('readDocument', () => {
  test('gives the text as served and the document parsed', async () => {
    const served = await readDocument(`${base}/openapi.json`, { headers: { authorization: 'Bearer k' } });
    expect(served.text).toBe(document);
    expect(served.raw).toEqual(JSON.parse(document));
  });

  test.each([
    ['an answer of 4xx', '/openapi.json', /serves no OpenAPI document \(HTTP 401\)/],
    ['a page that is not JSON', '/html', /serves no OpenAPI document \(not JSON\)/],
    ['no document at all', '/nothing', /serves no OpenAPI document \(HTTP 404\)/],
  ])('%s is bad input', async (_name, path, message) => {
    const reading = readDocument(`${base}${path}`);
    await expect(reading).rejects.toBeInstanceOf(UsageError);
    await expect(reading).rejects.toThrow(message);
  });

  test('a target that refuses connections is unreachable, with the reason', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    await expect(readDocument(`http://127.0.0.1:${port}/openapi.json`)).rejects.toThrow(
      new RegExp(
        `^target unreachable: http://127.0.0.1:${port}/openapi.json \\(nothing accepts connections at 127.0.0.1:${port} \\(connection refused\\)`,
      ),
    );
  });

  test('reads a file, and a missing one is bad input', async () => {
    expect((await readDocument(referenceDocPath)).raw.openapi).toBe('3.1.0');
    await expect(readDocument('/nonexistent/openapi.json')).rejects.toThrow(/cannot read OpenAPI document/);
  });
});
