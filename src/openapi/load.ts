/**
 * Load the target's OpenAPI document (from `{base}/openapi.json`, a file or a URL: read.ts), validate a
 * clone of it with swagger-parser, and normalise its schemas to JSON Schema 2020-12.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { UsageError } from '../config/config.js';
import { managedServerSettings } from '../config/managedSettings.js';
import type { OpenApiDocument } from './document.js';
import { normalizeDocumentWithNotes, type Normalisation } from './normalize.js';
import { readDocument, type ServedDocument } from './read.js';

export interface LoadedDocument {
  source: string;
  /** The document as served, untouched (3.0 or 3.1). */
  raw: OpenApiDocument;
  /** The same document with every schema in JSON Schema 2020-12 form (normalize.ts: nullable, tuple items, ...). */
  doc: OpenApiDocument;
  openapi: string;
  /** What it took to read the document's schemas as 2020-12, each kind once. */
  normalisations: Normalisation[];
}

/**
 * Read, validate and normalise a document. A copy the supervising CLI has already validated (`validated`)
 * is not validated twice.
 */
export async function loadDocument(
  source: string,
  opts: { headers?: Record<string, string>; timeoutMs?: number; validated?: boolean } = {},
): Promise<LoadedDocument> {
  const served = await readDocument(source, opts);
  if (!opts.validated) await validateDocument(source, served);
  return normalizedDocument(source, served.raw);
}

/** How swagger-parser is asked: part of what a remembered answer is keyed by. */
const VALIDATION = { dereference: { circular: 'ignore' } };

/**
 * Where a document swagger-parser found valid is remembered on this machine, by its text, swagger-parser's
 * version and how it was asked (nothing else decides the answer): validating is most of a small run's
 * preflight, and a team runs the suite again and again against the same document. A document found invalid
 * is never remembered.
 */
function validMarker(text: string): string {
  const { version } = createRequire(import.meta.url)('@apidevtools/swagger-parser/package.json') as {
    version: string;
  };
  const key = createHash('sha256')
    .update(`swagger-parser ${version} ${JSON.stringify(VALIDATION)}\n${text}`)
    .digest('hex');
  return path.join(managedServerSettings().cacheDir, 'valid-documents', key);
}

/**
 * Validates the document with swagger-parser, unless it was found valid before; an invalid one is bad input,
 * said in one line.
 */
export async function validateDocument(source: string, served: ServedDocument): Promise<void> {
  const marker = validMarker(served.text);
  if (existsSync(marker)) return;
  // Loaded only to validate: a document found valid before needs none of it.
  const { default: SwaggerParser } = await import('@apidevtools/swagger-parser');
  try {
    // swagger-parser mutates what it validates: hand it a clone.
    await SwaggerParser.validate(structuredClone(served.raw) as never, VALIDATION as never);
  } catch (e) {
    const err = e as Error & { details?: Array<{ message?: string; path?: unknown[] }> };
    const detail = err.details?.[0];
    const where = detail ? ` at ${(detail.path ?? []).join('/')}: ${detail.message}` : '';
    throw new UsageError(`invalid OpenAPI document ${source}: ${err.message.split('\n')[0]}${where}`);
  }
  try {
    mkdirSync(path.dirname(marker), { recursive: true });
    writeFileSync(marker, '');
  } catch {
    // A cache that cannot be written (a read-only home) only means validating again next time.
  }
}

/** The document with its schemas in JSON Schema 2020-12 form beside it. */
export function normalizedDocument(source: string, raw: OpenApiDocument): LoadedDocument {
  const { doc, normalisations } = normalizeDocumentWithNotes(raw);
  return { source, raw, doc, openapi: raw.openapi, normalisations };
}
