/**
 * Every object the run creates, appended to a file as it is created, so that cleanup — done by the
 * supervising process, even after a crash or SIGINT of the worker — deletes exactly those objects.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { isUuid } from '../openapi/json.js';

export interface LedgerEntry {
  /** The collection path, e.g. `/flows`. */
  collection: string;
  /** The concrete path that deletes it, or undefined when the API offers no delete. */
  deletePath?: string;
  /** The operation key of that delete, for counting. */
  deleteTemplate?: string;
  id: string;
  createdBy: string;
  /**
   * The identifiers the created object names (its flow, its flow run, its pool...): whichever of them are
   * objects of the run are its parents, deleted after it (resources/cleanup.ts).
   */
  refs?: string[];
}

/**
 * Every identifier an object names, however deep (bounded), other than its own: its UUIDs, and the names that
 * carry the run's tag (a pool or queue named by its name).
 */
export function referencesOf(obj: unknown, own: string, runTag: string): string[] {
  const found = new Set<string>();
  const walk = (value: unknown, depth: number) => {
    if (typeof value === 'string') {
      if ((isUuid(value) || value.startsWith(runTag)) && value !== own) found.add(value);
    } else if (value && typeof value === 'object' && depth < 6)
      for (const v of Array.isArray(value) ? value : Object.values(value)) walk(v, depth + 1);
  };
  walk(obj, 0);
  return [...found];
}

/**
 * An object an answer listed that the request may have made for a name it was given (Profile.madeForNames):
 * cleanup reads it back and deletes it only if that request made it.
 */
export interface MaybeMade {
  /** The operation key of the request. */
  maybeMadeBy: string;
  /** Where to read and delete it, and that operation's template. */
  path: string;
  template: string;
  /** When the server answered the request (epoch ms, its Date header). */
  answeredAt: number;
}

/** A line of the ledger's file: an object the run made, one of them the run deleted itself, or one it may have made. */
export type LedgerLine = LedgerEntry | { deletedByRun: string } | MaybeMade;

/** Whether a line of the ledger names an object the run made. */
export const isEntry = (line: LedgerLine): line is LedgerEntry => !('deletedByRun' in line) && !('maybeMadeBy' in line);

export class Ledger {
  private readonly seen = new Set<string>();
  /**
   * The delete paths of the entries recorded whose object a GET of that path reads, and whether the run has
   * deleted each itself.
   */
  private readonly deletePaths = new Map<string, boolean>();

  constructor(readonly file?: string) {}

  /**
   * An object the run made. `readable`: a GET of its delete path reads it (the document offers one); only
   * such an object is read by cleanup once the run has deleted it (recordDeleted), as cleanup sends no
   * request the document does not offer.
   */
  record(entry: LedgerEntry, readable = true): void {
    const key = `${entry.collection} ${entry.id}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    if (entry.deletePath && readable) this.deletePaths.set(entry.deletePath, false);
    if (this.file) appendFileSync(this.file, `${JSON.stringify(entry)}\n`);
  }

  /**
   * The run deleted a readable object of the ledger itself (its delete path answered 2xx): cleanup reads it
   * before it deletes it, as a read need not wait for a write's turn (resources/cleanup.ts). A line of its own.
   */
  recordDeleted(deletePath: string): void {
    if (this.deletePaths.get(deletePath) !== false) return;
    this.deletePaths.set(deletePath, true);
    if (this.file) appendFileSync(this.file, `${JSON.stringify({ deletedByRun: deletePath })}\n`);
  }

  /** An object the run may have made (MaybeMade): once for each answer that listed it. */
  recordMaybeMade(line: MaybeMade): void {
    const key = `${line.path} ${line.answeredAt}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    if (this.file) appendFileSync(this.file, `${JSON.stringify(line)}\n`);
  }

  has(collection: string, id: string): boolean {
    return this.seen.has(`${collection} ${id}`);
  }

  static read(file: string): LedgerEntry[] {
    return Ledger.readAll(file).entries;
  }

  /**
   * Its entries, the delete paths of those the run deleted itself (recordDeleted), and what the run may have
   * made (recordMaybeMade), from one read of the file.
   */
  static readAll(file: string): { entries: LedgerEntry[]; deletedByRun: Set<string>; maybeMade: MaybeMade[] } {
    const entries: LedgerEntry[] = [];
    const deletedByRun = new Set<string>();
    const maybeMade: MaybeMade[] = [];
    if (!existsSync(file)) return { entries, deletedByRun, maybeMade };
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      let parsed: LedgerLine;
      try {
        parsed = JSON.parse(line) as LedgerLine;
      } catch {
        // a line cut by a crash mid-write: the object it named cannot be known
        continue;
      }
      if (isEntry(parsed)) entries.push(parsed);
      else if ('maybeMadeBy' in parsed) maybeMade.push(parsed);
      else deletedByRun.add(parsed.deletedByRun);
    }
    return { entries, deletedByRun, maybeMade };
  }
}
