/**
 * Read the target's OpenAPI document as served (from `{base}/openapi.json`, a URL or a file) and check that
 * it is one: JSON, OpenAPI 3.0 or 3.1, with paths. It needs nothing but Node itself (its fetch), so that the
 * CLI's preflight asks for the document before it loads what validates it: Prefect builds the document on
 * its first request, for over a second, and the validator loads meanwhile (supervisor/preflight.ts).
 */
import { readFile } from 'node:fs/promises';
import { UsageError } from '../config/errors.js';
import { unreachableReason } from './unreachable.js';
import type { OpenApiDocument } from './document.js';

/** A document as served: its text, and that text parsed. */
export interface ServedDocument {
  text: string;
  raw: OpenApiDocument;
}

/**
 * The document is large and a server may build it on first request (Prefect takes over a second): it gets
 * a deadline of its own, never shorter than this, whatever the per-request timeout of API operations is.
 */
export const DOCUMENT_TIMEOUT_FLOOR_MS = 30_000;

async function fetchText(url: string, headers: Record<string, string>, timeoutMs: number): Promise<string> {
  let status: number;
  let text: string;
  try {
    // fetch asks for a compressed answer unless told otherwise; the document is read as served, as every
    // other request of the run is (a proxy in front of the target may rewrite it).
    const res = await fetch(url, {
      headers: { 'accept-encoding': 'identity', ...headers },
      signal: AbortSignal.timeout(timeoutMs),
    });
    status = res.status;
    text = await res.text();
  } catch (e) {
    throw new UsageError(`target unreachable: ${url} (${unreachableReason(e, url)})`);
  }
  if (status >= 400) throw new UsageError(`${url} serves no OpenAPI document (HTTP ${status})`);
  return text;
}

export async function readDocument(
  source: string,
  opts: { headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<ServedDocument> {
  let text: string;
  if (/^https?:\/\//i.test(source))
    text = await fetchText(
      source,
      { accept: 'application/json', ...(opts.headers ?? {}) },
      Math.max(opts.timeoutMs ?? 0, DOCUMENT_TIMEOUT_FLOOR_MS),
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
  return { text, raw: raw as OpenApiDocument };
}
