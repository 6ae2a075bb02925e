/**
 * Load the target's OpenAPI document (from `{base}/openapi.json`, a file or a URL), validate a clone of
 * it with swagger-parser, and normalise its schemas to JSON Schema 2020-12.
 */
import { readFile } from 'node:fs/promises';
import SwaggerParser from '@apidevtools/swagger-parser';
import { request } from 'undici';
import { UsageError } from '../config/config.js';
import type { OpenApiDocument } from './document.js';
import { normalizeDocumentWithNotes, type Normalisation } from './normalize.js';

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

async function fetchText(url: string, headers: Record<string, string>, timeoutMs: number): Promise<string> {
  let res: Awaited<ReturnType<typeof request>>;
  try {
    res = await request(url, {
      headers,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal: AbortSignal.timeout(timeoutMs * 2),
    });
  } catch (e) {
    const err = e as Error & { code?: string };
    throw new UsageError(`target unreachable: ${url} (${err.code ?? err.name}: ${err.message})`);
  }
  const text = await res.body.text();
  if (res.statusCode >= 400) throw new UsageError(`${url} serves no OpenAPI document (HTTP ${res.statusCode})`);
  return text;
}

/**
 * The document is large and a server may build it on first request (Prefect takes over a second): it gets
 * a deadline of its own, never shorter than this, whatever the per-request timeout of API operations is.
 */
export const SPEC_TIMEOUT_FLOOR_MS = 30_000;

export async function loadDocument(
  source: string,
  opts: { headers?: Record<string, string>; timeoutMs?: number; validated?: boolean } = {},
): Promise<LoadedDocument> {
  const isUrl = /^https?:\/\//i.test(source);
  let text: string;
  if (isUrl)
    text = await fetchText(
      source,
      { accept: 'application/json', ...(opts.headers ?? {}) },
      Math.max(opts.timeoutMs ?? 0, SPEC_TIMEOUT_FLOOR_MS),
    );
  else {
    try {
      text = await readFile(source, 'utf8');
    } catch (e) {
      throw new UsageError(
        `cannot read OpenAPI document ${source}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      );
    }
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new UsageError(`${source} serves no OpenAPI document (not JSON)`);
  }
  const candidate = raw as Partial<OpenApiDocument> | null;
  if (
    !candidate ||
    typeof candidate !== 'object' ||
    typeof candidate.openapi !== 'string' ||
    typeof candidate.paths !== 'object'
  )
    throw new UsageError(`${source} serves no OpenAPI document (no "openapi" version and "paths")`);
  if (!/^3\.[01]\.\d+$/.test(candidate.openapi))
    throw new UsageError(`${source}: OpenAPI ${candidate.openapi} is not supported (3.0.x and 3.1.x are)`);
  try {
    // swagger-parser mutates what it validates: hand it a clone. A copy the supervising CLI has already
    // validated (`validated`) is not validated twice.
    if (!opts.validated)
      await SwaggerParser.validate(structuredClone(raw) as never, { dereference: { circular: 'ignore' } } as never);
  } catch (e) {
    const err = e as Error & { details?: Array<{ message?: string; path?: unknown[] }> };
    const detail = err.details?.[0];
    const where = detail ? ` at ${(detail.path ?? []).join('/')}: ${detail.message}` : '';
    throw new UsageError(`invalid OpenAPI document ${source}: ${err.message.split('\n')[0]}${where}`);
  }
  const { doc, normalisations } = normalizeDocumentWithNotes(raw as OpenApiDocument);
  return { source, raw: raw as OpenApiDocument, doc, openapi: candidate.openapi, normalisations };
}
