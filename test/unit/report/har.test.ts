/**
 * `--report har`: the exchanges a client hands its HAR recorder, joined into one HAR 1.2 document that the
 * format's JSON Schemas (har-schema, the schemas HAR tools validate with) accept, secrets redacted.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Ajv } from 'ajv';
import { afterEach, describe, expect, test } from 'vitest';
import { HttpClient } from '../../../src/http/client.js';
import { harRecorder } from '../../../src/http/recorders.js';
import { Redactor } from '../../../src/http/redact.js';
import { harDocument } from '../../../src/report/har.js';
import { REPORT_FORMATS, formatsOf } from '../../../src/report/formats.js';

const require = createRequire(import.meta.url);

/** har-schema's schemas (draft-06, each with its `$id`), the document's as `har.json#`. */
function harValidator() {
  const ajv = new Ajv({ strict: false, allErrors: true });
  ajv.addMetaSchema(require('ajv/dist/refs/json-schema-draft-06.json'));
  const schemas = require('har-schema') as Record<string, object>;
  for (const schema of Object.values(schemas)) ajv.addSchema(schema);
  return ajv.getSchema('har.json#')!;
}

let server: Server | undefined;
afterEach(async () => {
  await new Promise((r) => server?.close(r));
});

describe('the HAR of a run', () => {
  test('is HAR 1.2 by its schema: answers with and without a body, a request body, no answer; secrets redacted', async () => {
    server = createServer((req, res) => {
      if (req.method === 'POST') {
        res.writeHead(201, { 'content-type': 'application/json', location: '/flows/1' });
        res.end('{"id":"1","name":"café"}');
      } else {
        res.writeHead(204);
        res.end();
      }
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
    const entries = path.join(mkdtempSync(path.join(os.tmpdir(), 'har-')), 'exchanges.har.jsonl');
    const client = new HttpClient({
      baseUrl: base,
      apiKey: 'pnu_secret_key',
      timeoutMs: 2000,
      concurrency: 2,
      redactor: new Redactor(['pnu_secret_key']),
      recorders: [harRecorder(entries)],
    });
    await client.send({ method: 'POST', template: '/flows/', path: '/flows/', json: { name: 'café' } });
    await client.send({ method: 'GET', template: '/flows/{id}', path: '/flows/1', query: { limit: 2 } });
    const closed = new HttpClient({
      baseUrl: 'http://127.0.0.1:9/api',
      timeoutMs: 500,
      concurrency: 1,
      redactor: new Redactor([]),
      recorders: [harRecorder(entries)],
    });
    await closed.send({ method: 'GET', template: '/health', path: '/health' });
    await client.close?.();

    const text = harDocument(
      { tool: { name: 'conformance', version: '0.1.0' }, target: { baseUrl: base } as never, seed: 1, runTag: 't' },
      entries,
    );
    const har = JSON.parse(text);
    const validate = harValidator();
    expect(validate(har), JSON.stringify(validate.errors)).toBe(true);
    expect(har.log.version).toBe('1.2');
    const [post, get, none] = har.log.entries;
    expect(post.request.postData).toEqual({ mimeType: 'application/json', text: '{"name":"café"}' });
    expect(post.response).toMatchObject({
      status: 201,
      redirectURL: '/flows/1',
      content: { mimeType: 'application/json' },
    });
    expect(post.response.content.text).toContain('café');
    expect(get.request.queryString).toEqual([{ name: 'limit', value: '2' }]);
    expect(get.response.status).toBe(204);
    expect(none.response.status).toBe(0);
    expect(none.response.comment).toMatch(/ECONNREFUSED/);
    expect(text).not.toContain('pnu_secret_key');
    expect(text).toContain('Bearer ***');
  });

  test('is a format of the one list, written only when asked; an unknown format is bad input', () => {
    expect(REPORT_FORMATS.filter((f) => f.name === 'har').map((f) => f.file)).toEqual(['exchanges.har']);
    expect(formatsOf([]).map((f) => f.name)).not.toContain('har');
    expect(formatsOf(['har']).map((f) => f.name)).toContain('har');
    expect(() => formatsOf(['pdf'])).toThrow(
      /--report pdf: not a report format; the formats are html, json, junit, markdown, har/,
    );
    expect(readFileSync(require.resolve('har-schema/lib/har.json'), 'utf8')).toMatch(/log\.json/);
  });
});
