/**
 * What the supervising CLI asks before the suites start, in order: whether the selection selects any check,
 * then (with a target) whether the target answers and what its document says, then the versions it reports
 * and which of the server's own side effects are absent before the run. The CLI calls these in a thread of
 * their own (run/thread.ts): the check registry, the document's parser and validator and the HTTP client
 * stay in that thread's heap and go with it, and the CLI beside the suites holds none of them.
 */
import { selectsCheck, type Selection } from '../config/selection.js';
import { UsageError } from '../config/errors.js';
import { CHECKS } from '../checks/registry.js';
import { authHeaders } from '../http/auth.js';
import { supervisorClient } from '../http/client.js';
import { serverVersions } from '../http/serverVersion.js';
import { surveyDocument, type DocumentSurvey } from '../model/documentSurvey.js';
import { profileNamed } from '../model/profiles/index.js';
import { absentSideEffects } from '../resources/cleanup.js';

/** How many of the registry's checks the selection selects, and of how many. */
export function checksSelected(selection: Selection): { selected: number; of: number } {
  return { selected: CHECKS.filter((c) => selectsCheck(selection, c)).length, of: CHECKS.length };
}

export interface Credentials {
  apiKey?: string;
  authString?: string;
}

export interface SurveyTarget extends Credentials {
  baseUrl: string;
  /** The document's URL or file. */
  source: string;
  timeoutMs: number;
  /** Where the document is written, as served, for the suites. */
  writeTo: string;
}

/** Any HTTP answer at all means the target is reachable; a refused or timed-out connection does not. */
async function assertReachable(target: SurveyTarget): Promise<void> {
  try {
    await fetch(`${target.baseUrl}/health`, {
      headers: authHeaders(target),
      signal: AbortSignal.timeout(Math.min(target.timeoutMs, 15000)),
    });
  } catch (e) {
    const cause = (e as Error & { cause?: { code?: string; message?: string } }).cause;
    throw new UsageError(
      `target unreachable: ${target.baseUrl} (${cause?.code ?? cause?.message ?? (e as Error).message})`,
    );
  }
}

/** The target answers, and its document, surveyed and written for the suites. */
export async function surveyTarget(target: SurveyTarget): Promise<DocumentSurvey> {
  // Even with a document from a file: a target that answers nothing can have nothing judged.
  await assertReachable(target);
  return surveyDocument({
    source: target.source,
    headers: authHeaders(target),
    timeoutMs: target.timeoutMs,
    writeTo: target.writeTo,
  });
}

export interface StateRequest extends Credentials {
  baseUrl: string;
  timeoutMs: number;
  operations: DocumentSurvey['operations'];
  profile: string;
  /** A read-only run makes nothing, so it causes nothing the server would make on its behalf. */
  readOnly: boolean;
}

export interface TargetState {
  /** The versions the server reports, and where (http/serverVersion.ts). */
  reported: Array<{ version: string; from: string }>;
  /** The paths of the profile's side effects absent before the run: those the run may have caused. */
  absentSideEffects: string[];
  /** The requests sent, counted in the run's summary. */
  requests: number;
}

export async function targetState(request: StateRequest): Promise<TargetState> {
  const { baseUrl, apiKey, authString, timeoutMs } = request;
  const client = supervisorClient({ baseUrl, apiKey, authString, timeoutMs });
  const send = client.send.bind(client);
  try {
    const reported = await serverVersions(request.operations, send);
    const sideEffects = profileNamed(request.profile).sideEffects ?? [];
    const absent = request.readOnly ? [] : await absentSideEffects(send, sideEffects);
    return { reported, absentSideEffects: absent.map((e) => e.path), requests: client.requestCount };
  } finally {
    await client.close();
  }
}
