/**
 * Load the target's OpenAPI document (from `{base}/openapi.json`, a file or a URL: read.ts), validate a
 * clone of it with swagger-parser, and normalise its schemas to JSON Schema 2020-12.
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import { UsageError } from '../config/config.js';
import type { OpenApiDocument } from './document.js';
import { normalizeDocumentWithNotes, type Normalisation } from './normalize.js';
import { readDocument } from './read.js';

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
  const { raw } = await readDocument(source, opts);
  if (!opts.validated) await validateDocument(source, raw);
  return normalizedDocument(source, raw);
}

/** Validates the document with swagger-parser; an invalid one is bad input, said in one line. */
export async function validateDocument(source: string, raw: OpenApiDocument): Promise<void> {
  try {
    // swagger-parser mutates what it validates: hand it a clone.
    await SwaggerParser.validate(structuredClone(raw) as never, { dereference: { circular: 'ignore' } } as never);
  } catch (e) {
    const err = e as Error & { details?: Array<{ message?: string; path?: unknown[] }> };
    const detail = err.details?.[0];
    const where = detail ? ` at ${(detail.path ?? []).join('/')}: ${detail.message}` : '';
    throw new UsageError(`invalid OpenAPI document ${source}: ${err.message.split('\n')[0]}${where}`);
  }
}

/** The document with its schemas in JSON Schema 2020-12 form beside it. */
export function normalizedDocument(source: string, raw: OpenApiDocument): LoadedDocument {
  const { doc, normalisations } = normalizeDocumentWithNotes(raw);
  return { source, raw, doc, openapi: raw.openapi, normalisations };
}
