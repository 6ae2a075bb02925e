/** What the unit tests share: the committed copy of Prefect's document, and a minimal verdict of results.json. */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { OpenApiDocument } from '../../src/openapi/document.js';
import { type CheckResult, type Results, summarize } from '../../src/report/results.js';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export const referenceDocPath = path.join(repoRoot, 'fixtures', 'reference', 'prefect-openapi.json');

export function referenceDoc(): OpenApiDocument {
  return JSON.parse(readFileSync(referenceDocPath, 'utf8')) as OpenApiDocument;
}

/** A verdict of results.json with only its status and level set. */
export const checkResult = (status: CheckResult['status'], level: CheckResult['level'] = 'MUST'): CheckResult => ({
  id: 'x',
  check: 'x',
  family: 'contract',
  level,
  clause: '',
  title: '',
  operation: 'GET /x',
  collection: '/x',
  status,
  evidence: [],
});

/** A results.json around these verdicts (a target, a seed, the summary they make); `fields` replace any of it. */
export const resultsOf = (checks: CheckResult[], fields: Partial<Results> = {}): Results => ({
  tool: { name: 't', version: '0' },
  target: { baseUrl: 'http://x/api', openapi: '3.1.0', apiVersion: '0', profile: 'prefect' },
  seed: 1,
  runTag: 'conformance-t',
  runs: 1,
  readOnly: false,
  startedAt: '',
  durationMs: 0,
  operations: [],
  checks,
  summary: summarize(checks, 0),
  ...fields,
});

/** Every source file under a folder of src/, with its text. */
export function sources(under = ''): Array<{ file: string; text: string }> {
  const root = path.join(repoRoot, 'src', under);
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => ({ file: path.join('src', under, f), text: readFileSync(path.join(root, f), 'utf8') }));
}
