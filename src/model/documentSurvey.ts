/**
 * What the supervising CLI needs of the target's document before the suites start: its OpenAPI version,
 * title and version, the rewrites it needed, the profile it calls for, and its operations by key. The suites
 * read the document again from the copy written here.
 *
 * The CLI surveys in a worker thread that ends before the suites start (supervisor/preflight.ts): parsing,
 * validating and normalising a large document grows a heap that a major collection does not give back to the
 * system, and a thread's heap goes with the thread (docs/performance.md, "Decisions, and why").
 */
import { writeFileSync } from 'node:fs';
import { normalizedDocument, validateDocument } from '../openapi/load.js';
import { readDocument, type ServedDocument } from '../openapi/read.js';
import type { Normalisation } from '../openapi/normalize.js';
import { indexOperations, type Operation } from '../openapi/operations.js';
import { profileFor } from './profiles/index.js';

export interface SurveyRequest {
  /** The document's URL or file. */
  source: string;
  headers: Record<string, string>;
  timeoutMs: number;
  /** Where the document is written, as served, for the suites. */
  writeTo: string;
}

export interface DocumentSurvey {
  openapi: string;
  title: string;
  apiVersion: string;
  normalisations: Normalisation[];
  /** The name of the profile the document calls for (profiles/index.ts). */
  profile: string;
  operations: Array<Pick<Operation, 'key' | 'method' | 'path' | 'tags'>>;
  /** The URLs of the document's `servers`, as written (relative or absolute). */
  serverUrls: string[];
}

/** `reading`: the document, if its reading has started already (the preflight asks before it loads this module). */
export async function surveyDocument(
  request: SurveyRequest,
  reading: Promise<ServedDocument> = readDocument(request.source, request),
): Promise<DocumentSurvey> {
  const served = await reading;
  await validateDocument(request.source, served);
  const document = normalizedDocument(request.source, served.raw);
  writeFileSync(request.writeTo, served.text);
  return {
    openapi: document.openapi,
    title: document.raw.info?.title ?? '',
    apiVersion: document.raw.info?.version ?? '',
    normalisations: document.normalisations,
    profile: profileFor(document).name,
    operations: indexOperations(document.doc).map(({ key, method, path, tags }) => ({ key, method, path, tags })),
    serverUrls: (served.raw.servers ?? []).map((s) => s.url).filter((url): url is string => typeof url === 'string'),
  };
}
