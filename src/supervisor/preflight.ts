/**
 * What the supervising CLI asks before the suites start, in order: whether the selection selects any check,
 * then (with a target) whether the target answers and what its document says, then the versions it reports
 * and which of the server's own side effects are absent before the run. The CLI calls these in a thread of
 * their own (supervisor/thread.ts): the check registry, the document's parser and validator and the HTTP client
 * stay in that thread's heap and go with it, and the CLI beside the suites holds none of them.
 *
 * Each is loaded by the call that needs it, not as the thread starts: the document is asked for first, and
 * its validator loads while the server builds it, rather than before the request is sent.
 */
import { type Selection, selectsCheck } from '../config/selection.js';
import { UsageError } from '../config/errors.js';
import { authHeaders } from '../http/auth.js';
import { apiRoot, type ApiRoot } from '../http/apiRoot.js';
import { unreachableReason } from '../openapi/unreachable.js';
import type { DocumentSurvey } from '../model/documentSurvey.js';
import type { DatabaseFinding } from '../model/profiles/profile.js';
import type { ReportedVersion } from '../http/serverVersion.js';
import { readDocument } from '../openapi/read.js';

/** How many of the run's checks (the suite's and those of its check modules) the selection selects, and of how many. */
export async function checksSelected({
  selection,
  checkModules,
}: {
  selection: Selection;
  checkModules: string[];
}): Promise<{ selected: number; of: number }> {
  const { loadCheckModules } = await import('../checks/core/registry.js');
  const checks = (await loadCheckModules(checkModules)).all;
  return { selected: checks.filter((c) => selectsCheck(selection, c)).length, of: checks.length };
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

/**
 * How long the reachability probe waits for any answer. It is not an API operation: a short per-request timeout
 * (a run that tests a target's hangs sets one of a second) must not turn a busy server's slow first answer into
 * "unreachable", and a long one must not hold a run that meets a silent host. A refused connection fails at once.
 */
const REACHABLE_WITHIN_MS = { floor: 10_000, ceiling: 15_000 };

/** The status a GET of `url` answers (its body left unread); a refused or timed-out connection throws. */
async function statusOf(url: string, target: Credentials & { timeoutMs: number }): Promise<number> {
  const { floor, ceiling } = REACHABLE_WITHIN_MS;
  const res = await fetch(url, {
    headers: authHeaders(target),
    signal: AbortSignal.timeout(Math.max(floor, Math.min(target.timeoutMs, ceiling))),
  });
  await res.body?.cancel();
  return res.status;
}

/** Any HTTP answer at all means the target is reachable; a refused or timed-out connection does not. */
async function assertReachable(target: SurveyTarget): Promise<void> {
  try {
    await statusOf(`${target.baseUrl}/health`, target);
  } catch (e) {
    throw new UsageError(`target unreachable: ${target.baseUrl} (${unreachableReason(e, target.baseUrl)})`);
  }
}

/** The modules of the survey and of targetState, loaded while the server builds the document (node keeps them once loaded). */
const afterTheDocument = () =>
  Promise.all([
    import('../model/documentSurvey.js'),
    import('../http/client.js'),
    import('../http/serverVersion.js'),
    import('../model/profiles/index.js'),
    import('../resources/cleanup.js'),
    import('../http/recorders.js'),
  ]);

/** The target answers, and its document, surveyed and written for the suites. */
export async function surveyTarget(target: SurveyTarget): Promise<DocumentSurvey> {
  // Even with a document from a file: a target that answers nothing can have nothing judged.
  await assertReachable(target);
  const request = {
    source: target.source,
    headers: authHeaders(target),
    timeoutMs: target.timeoutMs,
    writeTo: target.writeTo,
  };
  // Asked for before the survey's modules load: the server builds the document meanwhile.
  const reading = readDocument(request.source, request);
  // Its failure is met where the survey awaits it; unhandled until then, it would end the thread.
  reading.catch(() => {});
  const [{ surveyDocument }] = await afterTheDocument();
  return surveyDocument(request, reading);
}

export interface RootRequest extends Credentials {
  baseUrl: string;
  timeoutMs: number;
  operations: DocumentSurvey['operations'];
  serverUrls: string[];
}

/** The API's root at or under the base URL the user gave (http/apiRoot.ts); a network error counts as no answer. */
export async function findApiRoot(request: RootRequest): Promise<ApiRoot> {
  const ask = (url: string) => statusOf(url, request).catch(() => 0);
  return apiRoot(request.baseUrl, request.operations, request.serverUrls, ask);
}

export interface StateRequest extends Credentials {
  baseUrl: string;
  timeoutMs: number;
  operations: DocumentSurvey['operations'];
  profile: string;
  /** A read-only run makes nothing, so it causes nothing the server would make on its behalf. */
  readOnly: boolean;
  /** Ask which database serves the target (a URL whose label the user did not give). */
  tellDatabase: boolean;
  /** Where each exchange goes as a HAR entry, where --report har asks. */
  harEntries?: string;
}

export interface TargetState {
  /** The versions the server reports, and where (http/serverVersion.ts). */
  reported: ReportedVersion[];
  /** The paths of the profile's side effects absent before the run: those the run may have caused. */
  absentSideEffects: string[];
  /** The database behind the target, as the profile's reads tell it; undefined when not asked, or the profile cannot. */
  database?: DatabaseFinding;
  /** The requests sent, counted in the run's summary. */
  requests: number;
}

export async function targetState(request: StateRequest): Promise<TargetState> {
  const [, { supervisorClient }, { serverVersions }, { profileNamed }, { absentSideEffects }, { harRecorder }] =
    await afterTheDocument();
  const { baseUrl, apiKey, authString, timeoutMs, harEntries } = request;
  const recorders = harEntries ? [harRecorder(harEntries)] : [];
  const client = supervisorClient({ baseUrl, apiKey, authString, timeoutMs, recorders });
  const send = client.send.bind(client);
  try {
    const profile = profileNamed(request.profile);
    const [reported, absent, database] = await Promise.all([
      serverVersions(request.operations, send),
      request.readOnly ? [] : absentSideEffects(send, profile.sideEffects ?? []),
      request.tellDatabase ? profile.database?.(send, request.operations) : undefined,
    ]);
    return { reported, absentSideEffects: absent.map((e) => e.path), database, requests: client.requestCount };
  } finally {
    await client.close();
  }
}
