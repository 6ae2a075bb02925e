/** The spec loader: validates a clone, refuses what is not a document, and indexes every operation. */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { UsageError } from '../../../src/config/config.js';
import { loadDocument, validateDocument } from '../../../src/openapi/load.js';
import { documentsStatus, indexOperations } from '../../../src/openapi/operations.js';
import { referenceDocPath } from '../support.js';

function tempFile(content: string): string {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'spec-')), 'openapi.json');
  writeFileSync(file, content);
  return file;
}

describe('loadDocument', () => {
  test('loads the reference document and leaves the input untouched', async () => {
    const before = readFileSync(referenceDocPath, 'utf8');
    const spec = await loadDocument(referenceDocPath);
    expect(spec.openapi).toBe('3.1.0');
    expect(JSON.stringify(spec.raw)).toBe(JSON.stringify(JSON.parse(before)));
    const ops = indexOperations(spec.doc);
    expect(ops.length).toBe(179);
    expect(new Set(ops.map((o) => o.key)).size).toBe(ops.length);
  });

  test.each([
    ['not JSON', '<html>hello</html>', /serves no OpenAPI document \(not JSON\)/],
    ['JSON without openapi', '{"hello": 1}', /serves no OpenAPI document/],
    ['unsupported version', '{"openapi": "2.0", "paths": {}}', /not supported/],
    [
      'invalid document',
      '{"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {"/x": {"get": {"responses": "nope"}}}}',
      /invalid OpenAPI document/,
    ],
  ])('%s is a usage error', async (_name, content, message) => {
    await expect(loadDocument(tempFile(content))).rejects.toThrow(UsageError);
    await expect(loadDocument(tempFile(content))).rejects.toThrow(message);
  });

  test('a missing file is a usage error', async () => {
    await expect(loadDocument('/nonexistent/openapi.json')).rejects.toThrow(UsageError);
  });

  test('documented statuses include 4XX ranges', async () => {
    const spec = await loadDocument(referenceDocPath);
    const op = indexOperations(spec.doc).find((o) => o.key === 'GET /flows/{id}')!;
    expect(documentsStatus(op, 200)).toBe(true);
    expect(documentsStatus(op, 201)).toBe(false);
    expect(documentsStatus({ ...op, responses: { '4XX': { content: {} } } }, 404)).toBe(true);
  });
});

describe('a document found valid is remembered, by its text', () => {
  const INVALID =
    '{"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {"/x": {"get": {"responses": "nope"}}}}';
  let cacheDir: string;
  const before = process.env.CONFORMANCE_CACHE_DIR;
  beforeEach(() => {
    cacheDir = mkdtempSync(path.join(os.tmpdir(), 'conformance-cache-'));
    process.env.CONFORMANCE_CACHE_DIR = cacheDir;
  });
  afterEach(() => {
    if (before === undefined) delete process.env.CONFORMANCE_CACHE_DIR;
    else process.env.CONFORMANCE_CACHE_DIR = before;
  });
  const remembered = () => readdirSync(path.join(cacheDir, 'valid-documents'), { withFileTypes: true });

  test('a valid document leaves one mark, named by a hash and holding nothing (a URL may carry a secret)', async () => {
    await loadDocument(referenceDocPath);
    await loadDocument(referenceDocPath);
    const marks = remembered();
    expect(marks.map((m) => m.name)).toEqual([expect.stringMatching(/^[0-9a-f]{64}$/)]);
    expect(readFileSync(path.join(cacheDir, 'valid-documents', marks[0]!.name), 'utf8')).toBe('');
  });

  test('an invalid document is never remembered, and stays invalid on every reading', async () => {
    for (let i = 0; i < 2; i++)
      await expect(loadDocument(tempFile(INVALID))).rejects.toThrow(/invalid OpenAPI document/);
    expect(() => remembered()).toThrow(/ENOENT/);
  });

  test('the mark is what is read: a text marked valid is not validated again, another text is', async () => {
    const valid = readFileSync(referenceDocPath, 'utf8');
    await validateDocument('valid', { text: valid, raw: JSON.parse(valid) });
    const [mark] = remembered();
    // The invalid document's raw under the valid document's text: the mark answers, swagger-parser is not asked.
    await expect(validateDocument('marked', { text: valid, raw: JSON.parse(INVALID) })).resolves.toBeUndefined();
    await expect(validateDocument('unmarked', { text: INVALID, raw: JSON.parse(INVALID) })).rejects.toThrow(UsageError);
    expect(remembered().map((m) => m.name)).toEqual([mark!.name]);
  });
});
