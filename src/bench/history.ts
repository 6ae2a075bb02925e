/**
 * The benchmark's history: every `npm run bench` and `npm run bench:kills` appends one line (date, machine,
 * commit, what was run, its figures) to docs/bench-history.jsonl, and rewrites the table of current figures
 * in docs/performance.md from it. The figures a document states are then the bench's, never copied by hand,
 * and how they moved is in the file, not in prose.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface BenchEntry {
  date: string;
  machine: { cpu: string; cores: number; memoryGiB: number; node: string };
  /** The commit benched, `-dirty` when the work tree had changes. */
  commit: string;
  /** What was run: `default`, `budget 30`, `services`, `url`, `kills`; with the target's label. */
  kind: string;
  target?: string;
  figures: Record<string, number | undefined>;
}

export const historyFile = (repoRoot: string) => path.join(repoRoot, 'docs', 'bench-history.jsonl');
const documentFile = (repoRoot: string) => path.join(repoRoot, 'docs', 'performance.md');

const START = '<!-- figures: written by npm run bench from docs/bench-history.jsonl -->';
const END = '<!-- figures end -->';

export function machine(): BenchEntry['machine'] {
  return {
    cpu: os.cpus()[0]?.model.replace(/\s+/g, ' ').trim() ?? 'unknown',
    cores: os.cpus().length,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
  };
}

export function commitOf(repoRoot: string): string {
  try {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repoRoot, encoding: 'utf8' }).trim();
    // The files the bench itself writes do not make a commit dirty.
    const changed = git(
      'status',
      '--porcelain',
      '--untracked-files=no',
      '--',
      '.',
      ':!docs/performance.md',
      ':!docs/bench-history.jsonl',
    );
    const dirty = changed !== '';
    return `${git('rev-parse', '--short', 'HEAD')}${dirty ? '-dirty' : ''}`;
  } catch {
    return 'unknown';
  }
}

export function readHistory(file: string): BenchEntry[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as BenchEntry);
}

/** The columns of the table, by figure; a figure an entry lacks is a dash. */
const COLUMNS: Array<[string, string, (v: number, figures: BenchEntry['figures']) => string]> = [
  ['wallSeconds', 'wall s', (v) => v.toFixed(1)],
  ['requests', 'requests', (v) => String(v)],
  ['serverCpuSeconds', 'server CPU s', (v) => v.toFixed(1)],
  ['serverBusyShare', 'server busy', (v) => `${(v * 100).toFixed(1)} %`],
  ['peakRssMB', 'peak RSS MB', (v) => String(v)],
  ['secondsToFirstVerdict', 'first verdict s', (v) => v.toFixed(2)],
  ['killed', 'mutants killed', (v, f) => (f.mutants ? `${v} of ${f.mutants}` : String(v))],
  ['exitCode', 'exit', (v) => String(v)],
];

/**
 * The current figures: the latest entry of each kind, as a Markdown table. Earlier entries stay in the history
 * file (a document says what holds now; the history is the data).
 */
export function figuresTable(entries: BenchEntry[]): string {
  const row = (e: BenchEntry) => {
    const kindTarget = e.target ? `${e.kind}: ${e.target}` : e.kind;
    const cells = COLUMNS.map(([key, , shown]) =>
      e.figures[key] === undefined ? '–' : shown(e.figures[key]!, e.figures),
    );
    return `| ${e.date.slice(0, 10)} | ${e.commit} | ${e.machine.cores} × ${e.machine.cpu} | ${kindTarget} | ${cells.join(' | ')} |`;
  };
  const header = `| date | commit | machine | run | ${COLUMNS.map(([, title]) => title).join(' | ')} |\n|${'---|'.repeat(COLUMNS.length + 4)}`;
  const latest = new Map<string, BenchEntry>();
  for (const e of entries) latest.set(e.kind, e);
  if (entries.length === 0) return 'No bench has been run yet.';
  return ['The latest of each kind of bench:', '', header, ...[...latest.values()].map(row)].join('\n');
}

/** The document with its table of figures replaced (between the markers, which must be there). */
export function withFigures(document: string, table: string): string {
  const start = document.indexOf(START);
  const end = document.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/performance.md has no "${START}" ... "${END}" to write into`);
  return `${document.slice(0, start + START.length)}\n${table}\n${document.slice(end)}`;
}

/** Append an entry to the history and rewrite the document's table from it. */
export function record(repoRoot: string, entry: Omit<BenchEntry, 'date' | 'machine' | 'commit'>): void {
  const full: BenchEntry = { date: new Date().toISOString(), machine: machine(), commit: commitOf(repoRoot), ...entry };
  appendFileSync(historyFile(repoRoot), `${JSON.stringify(full)}\n`);
  const doc = documentFile(repoRoot);
  writeFileSync(doc, withFigures(readFileSync(doc, 'utf8'), figuresTable(readHistory(historyFile(repoRoot)))));
}
