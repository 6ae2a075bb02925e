/** The committed copy of Prefect's document, for offline unit tests. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { OpenApiDocument } from '../../src/spec/load.js';

export const referenceDocPath = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../shared/reference/prefect-openapi.json');

export function referenceDoc(): OpenApiDocument {
  return JSON.parse(readFileSync(referenceDocPath, 'utf8')) as OpenApiDocument;
}
