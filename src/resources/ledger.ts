/**
 * Every object the run creates, appended to a file as it is created, so that cleanup — done by the
 * supervising process, even after a crash or SIGINT of the worker — deletes exactly those objects.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';

export interface LedgerEntry {
  /** The collection path, e.g. `/flows`. */
  collection: string;
  /** The concrete path that deletes it, or undefined when the API offers no delete. */
  deletePath?: string;
  /** The operation key of that delete, for counting. */
  deleteTemplate?: string;
  id: string;
  createdBy: string;
}

export class Ledger {
  private readonly seen = new Set<string>();

  constructor(readonly file?: string) {}

  record(entry: LedgerEntry): void {
    const key = `${entry.collection} ${entry.id}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    if (this.file) appendFileSync(this.file, `${JSON.stringify(entry)}\n`);
  }

  has(collection: string, id: string): boolean {
    return this.seen.has(`${collection} ${id}`);
  }

  static read(file: string): LedgerEntry[] {
    if (!existsSync(file)) return [];
    const entries: LedgerEntry[] = [];
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      try {
        entries.push(JSON.parse(line) as LedgerEntry);
      } catch {
        // a line cut by a crash mid-write: the object it named cannot be known
      }
    }
    return entries;
  }
}
