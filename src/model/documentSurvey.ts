/**
 * What the supervising CLI needs of the target's document before the suites start: its OpenAPI version,
 * title and version, the rewrites it needed, the profile it calls for, and its operations by key. The suites
 * read the document again from the copy written here.
 *
 * The CLI surveys in a worker thread that ends with the survey. Parsing, validating and normalising
 * Prefect's document grows a heap by ~45 MB that a major collection does not give back to the system; in
 * the CLI's own thread it stayed resident for the whole run, beside the suites' process. A thread's heap
 * goes with the thread (docs/performance.md, "The supervisor's memory").
 */
import { writeFileSync } from 'node:fs';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { UsageError } from '../config/errors.js';
import { loadDocument } from '../openapi/load.js';
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
}

export async function surveyDocument(request: SurveyRequest): Promise<DocumentSurvey> {
  const spec = await loadDocument(request.source, { headers: request.headers, timeoutMs: request.timeoutMs });
  writeFileSync(request.writeTo, JSON.stringify(spec.raw));
  return {
    openapi: spec.openapi,
    title: spec.raw.info?.title ?? '',
    apiVersion: spec.raw.info?.version ?? '',
    normalisations: spec.normalisations,
    profile: profileFor(spec).name,
    operations: indexOperations(spec.doc).map(({ key, method, path, tags }) => ({ key, method, path, tags })),
  };
}

/** The thread's answer: the survey, or the error it ended with (bad input stays bad input). */
type Answer = { survey: DocumentSurvey } | { usage: boolean; message: string; stack?: string };

const SURVEY = 'documentSurvey';

/** surveyDocument in a worker thread running this module; resolves once the thread has ended. */
export async function surveyInThread(request: SurveyRequest): Promise<DocumentSurvey> {
  const workerData = { [SURVEY]: request };
  // Run from source (`npx tsx src/cli.ts`, or under vitest), the thread registers tsx before it loads this
  // module: Node 20 does not give a worker thread the module hooks of the thread that starts it.
  const worker = import.meta.url.endsWith('.ts')
    ? new Worker(
        `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(import.meta.url)}); })`,
        { eval: true, workerData },
      )
    : new Worker(new URL(import.meta.url), { workerData });
  const answer = await new Promise<Answer | Error>((resolve) => {
    worker.once('message', resolve);
    worker.once('error', resolve);
    worker.once('exit', (code) => resolve(new Error(`the document survey's thread exited (code ${code}) unanswered`)));
  });
  // Its HTTP client's idle connection would keep the thread alive: it is ended, not waited for.
  await worker.terminate();
  if (answer instanceof Error) throw answer;
  if ('survey' in answer) return answer.survey;
  if (answer.usage) throw new UsageError(answer.message);
  throw Object.assign(new Error(answer.message), { stack: answer.stack });
}

if (!isMainThread && workerData?.[SURVEY]) {
  surveyDocument(workerData[SURVEY] as SurveyRequest).then(
    (survey) => parentPort!.postMessage({ survey } satisfies Answer),
    (e: Error) =>
      parentPort!.postMessage({ usage: e instanceof UsageError, message: e.message, stack: e.stack } satisfies Answer),
  );
}
