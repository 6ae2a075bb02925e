/**
 * Whether the base URL is the API's root. A server that mounts its API under a path (Prefect serves it at
 * `/api`, its UI at the root) may still serve a document at the root, so a base URL without that path loads a
 * document and then meets 404 on every request: a run would judge a hundred failures of a mistyped URL. Before
 * any check, the document's reads that take no parameter are asked at the base URL; when they all answer 404,
 * the paths the document names as its servers (and `/api`, the reference implementation's) are asked too. A
 * path where they answer is the API's root: the run goes on there and says so. None is bad input, named.
 */
import { UsageError } from '../config/errors.js';

/** What is asked: `GET <path>` of the document's reads that need no parameter, at most this many. */
const PROBES_AT_MOST = 4;

/** Tried after the document's own server paths: where the reference implementation serves its API. */
const CONVENTIONAL_ROOT = '/api';

export interface ProbedRead {
  path: string;
  /** 0: no answer (refused, or not within the timeout). */
  status: number;
}

/** The reads that were answered: one with no answer says nothing of where the API is. */
const answered = (probed: ProbedRead[]) => probed.filter((p) => p.status !== 0);

/** The reads asked: the document's GETs without a path parameter, its health and version first (cheap, never large). */
export function probeReads(operations: ReadonlyArray<{ method: string; path: string }>): string[] {
  const rank = (p: string) => (/health|version|hello/.test(p) ? 0 : 1);
  return operations
    .filter((op) => op.method === 'GET' && !op.path.includes('{'))
    .map((op) => op.path)
    .sort((a, b) => rank(a) - rank(b))
    .slice(0, PROBES_AT_MOST);
}

/** The base URL is not the API's root when every read answered (two at least: one could be a route not served) is a 404. */
export function notTheRoot(probed: ProbedRead[]): boolean {
  const answers = answered(probed);
  return answers.length >= 2 && answers.every((p) => p.status === 404);
}

/** Where the API is served there: most of the same reads answer, and none with a 404. */
const servedThere = (probed: ProbedRead[]): boolean => {
  const answers = answered(probed);
  return (
    answers.length > 0 &&
    answers.every((p) => p.status !== 404) &&
    answers.filter((p) => p.status < 400).length * 2 >= answers.length
  );
};

/** The paths to try under the base URL: the document's server paths (relative or absolute URLs), then `/api`, none the base already ends with. */
export function candidateRoots(baseUrl: string, serverUrls: string[]): string[] {
  return [...new Set([...serverPaths(serverUrls), CONVENTIONAL_ROOT])].filter((p) => !endsWithPath(baseUrl, p));
}

const endsWithPath = (baseUrl: string, path: string) => new URL(baseUrl).pathname.replace(/\/+$/, '').endsWith(path);

/** The paths of the document's `servers` (a relative URL or an absolute one), without a trailing slash; the root's is none. */
function serverPaths(serverUrls: string[]): string[] {
  const paths = serverUrls.map((url) => {
    try {
      return new URL(url, 'http://relative.invalid').pathname.replace(/\/+$/, '');
    } catch {
      return '';
    }
  });
  return paths.filter((p) => p !== '');
}

export type Ask = (url: string) => Promise<number>;

const joined = (baseUrl: string, path: string) => `${baseUrl.replace(/\/+$/, '')}${path}`;

/**
 * Each read's status there; one not answered is asked once more (a server building its document for the
 * preflight may answer nothing else within the timeout).
 */
async function askAll(ask: Ask, baseUrl: string, reads: string[]): Promise<ProbedRead[]> {
  const statusOf = async (url: string) => (await ask(url)) || ask(url);
  return Promise.all(reads.map(async (path) => ({ path, status: await statusOf(joined(baseUrl, path)) })));
}

export interface ApiRoot {
  /** The API's root: the base URL, or the base URL with the path found. */
  baseUrl: string;
  /** Why it moved, in a line for the log; undefined when the base URL was the root. */
  moved?: string;
}

/** The API's root at or under `baseUrl`; a UsageError when its reads all answer 404 and no path under it serves them. */
export async function apiRoot(
  baseUrl: string,
  operations: ReadonlyArray<{ method: string; path: string }>,
  serverUrls: string[],
  ask: Ask,
): Promise<ApiRoot> {
  const reads = probeReads(operations);
  const atBase = await askAll(ask, baseUrl, reads);
  if (!notTheRoot(atBase)) return { baseUrl };
  const asked = answered(atBase)
    .map((p) => `GET ${p.path}`)
    .join(', ');
  const candidates = candidateRoots(baseUrl, serverUrls);
  for (const path of candidates) {
    const there = joined(baseUrl, path);
    if (servedThere(await askAll(ask, there, reads)))
      return {
        baseUrl: there,
        moved: `${baseUrl} is not the API's root (${asked} answered 404 there); they answer at ${there}: the run is against it`,
      };
  }
  const named = serverPaths(serverUrls).find((p) => candidates.includes(p));
  const where = named ? ` (the document serves its API at ${named})` : '';
  const guess = candidates.length ? `: did you mean ${joined(baseUrl, named ?? candidates[0]!)}?` : '';
  throw new UsageError(
    `${baseUrl} is not the API's root: the document's ${asked} all answered 404 there${where}${guess}`,
  );
}
