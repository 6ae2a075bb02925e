import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { UsageError } from '../../../src/config/errors.js';
import { surveyDocument, type SurveyRequest } from '../../../src/model/documentSurvey.js';
import { loadDocument } from '../../../src/openapi/load.js';
import { readDocument } from '../../../src/openapi/read.js';
import { indexOperations } from '../../../src/openapi/operations.js';
import { repoRoot } from '../../support/runCli.js';

const reference = path.join(repoRoot, 'fixtures', 'reference', 'prefect-openapi.json');

const request = (source: string): SurveyRequest => ({
  source,
  headers: {},
  timeoutMs: 10_000,
  writeTo: path.join(mkdtempSync(path.join(os.tmpdir(), 'survey-')), 'openapi.json'),
});

describe('surveyDocument', () => {
  test('gives what the CLI needs of the document, and writes it as served for the suites', async () => {
    const req = request(reference);
    const survey = await surveyDocument(req);
    const spec = await loadDocument(reference);
    expect(survey).toMatchObject({
      openapi: spec.openapi,
      title: spec.raw.info.title,
      apiVersion: spec.raw.info.version,
      profile: 'prefect',
      normalisations: spec.normalisations,
    });
    expect(survey.operations).toEqual(
      indexOperations(spec.doc).map((o) => ({ key: o.key, method: o.method, path: o.path, tags: o.tags })),
    );
    expect(JSON.parse(readFileSync(req.writeTo, 'utf8'))).toEqual(spec.raw);
  });

  test('surveys a document whose reading the caller started (the preflight asks before it loads the survey)', async () => {
    const req = request(reference);
    const survey = await surveyDocument(req, readDocument(reference));
    expect(survey.profile).toBe('prefect');
    expect(readFileSync(req.writeTo, 'utf8')).toBe(readFileSync(reference, 'utf8'));
    const refused = Promise.reject(
      new UsageError('target unreachable: http://127.0.0.1:9/api/openapi.json (ECONNREFUSED)'),
    );
    await expect(surveyDocument(request(reference), refused)).rejects.toThrow(/target unreachable/);
  });

  test('a document that is not one is bad input', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'survey-bad-'));
    writeFileSync(path.join(dir, 'bad.json'), '{"swagger": "2.0"}');
    await expect(surveyDocument(request(path.join(dir, 'bad.json')))).rejects.toBeInstanceOf(UsageError);
  });
});
