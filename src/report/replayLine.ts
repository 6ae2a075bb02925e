/**
 * The line that shows a failure again: `replay` of the run's results.json, for that check on that operation,
 * against the same target (its URL, or a managed server of the same release and database), with the run's seed
 * and baseline. A curl line repeats one request only, and the object it names may be gone (cleanup deleted
 * the run's own objects): the replay makes what the case needs anew.
 */
import { UUID } from '../config/exchangeLog.js';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CheckResult, Results } from './results.js';

/** A word for a POSIX shell: as is when it is plain, else single-quoted. */
export const shellWord = (word: string): string =>
  /^[\w.,/:@%+=-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;

const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** How the suite is started where it runs: as an installed package, or from its repository (npm run). */
export const INVOCATION = packageRoot.split(path.sep).includes('node_modules')
  ? 'npx orchestration-api-conformance'
  : 'npm run conformance --';

/** The flags that name the run's target again: its URL (and what the run was allowed there), or the managed server's release and database. */
export function targetFlags(results: Pick<Results, 'target' | 'readOnly' | 'disposable'>): string[] {
  const managed = results.target.managed && /^prefect (\S+) on (\w+)/.exec(results.target.managed);
  if (managed) return ['--prefect-version', managed[1]!, ...(managed[2] === 'postgres' ? ['--db', 'postgres'] : [])];
  return [
    '--base-url',
    results.target.baseUrl,
    ...(results.readOnly ? ['--read-only'] : []),
    ...(results.disposable ? ['--disposable'] : []),
  ];
}

/** Known deviations are replayed only when asked (`--known`). */
const isKnown = (status: CheckResult['status']) => status === 'xfail';

/** `<invocation> replay <results.json> --check ID [--operation OP] [--known] <target flags>`; without an operation, every operation of the check. */
export function replayLine(
  results: Pick<Results, 'target' | 'readOnly' | 'disposable'>,
  resultsFile: string,
  check: Pick<CheckResult, 'id' | 'status'> & { operation?: string },
  invocation = INVOCATION,
): string {
  return [
    invocation,
    'replay',
    resultsFile,
    '--check',
    check.id,
    ...(check.operation ? ['--operation', check.operation] : []),
    ...(isKnown(check.status) ? ['--known'] : []),
    ...targetFlags(results),
  ]
    .map((word, i) => (i === 0 ? word : shellWord(word)))
    .join(' ');
}

/** The replay of a group: its example's line without the operation, which replays the check on every operation. */
export const groupReplay = (example: Pick<CheckResult, 'replay' | 'operation'>): string | undefined =>
  example.replay?.replace(` --operation ${shellWord(example.operation)}`, '');

/** What a curl line naming an object the run made and cleanup deleted says: it no longer reproduces by itself. */
export const DELETED_NOTE =
  'this curl names an object the run made, which cleanup deleted: it answers 404 now; the replay line makes the object anew';

/**
 * Every failure, fixed case and known deviation gets its replay line; one whose curl names an object cleanup
 * deleted (`deleted`: the ids of the run's objects it deleted) gets DELETED_NOTE too.
 */
export function addReplays(results: Results, resultsFile: string, deleted: ReadonlySet<string>): void {
  for (const c of results.checks) {
    if (!['failed', 'xpass', 'xfail', 'error'].includes(c.status)) continue;
    c.replay = replayLine(results, resultsFile, c);
    if (c.repro && [...c.repro.matchAll(UUID)].some((m) => deleted.has(m[0].toLowerCase()))) c.reproNote = DELETED_NOTE;
  }
}
