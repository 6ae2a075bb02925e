/** The bench's history and the table of figures it writes into docs/performance.md. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { type BenchEntry, figuresTable, historyFile, readHistory, withFigures } from '../../../src/bench/history.js';
import { repoRoot } from '../support.js';

const entry = (kind: string, wallSeconds: number, extra: BenchEntry['figures'] = {}): BenchEntry => ({
  date: '2026-11-25T20:00:00.000Z',
  machine: { cpu: 'Some CPU', cores: 2, memoryGiB: 24, node: 'v20.20.2' },
  commit: 'abc1234',
  kind,
  figures: { wallSeconds, ...extra },
});

describe("the bench's table of figures", () => {
  test('the latest of each kind only, a dash where a figure is absent: earlier runs stay in the history file', () => {
    const table = figuresTable([
      entry('default', 40),
      entry('budget 30', 45),
      entry('default', 38, { serverBusyShare: 0.823 }),
      entry('kills, budget 30', 41, { killed: 44, mutants: 47 }),
    ]);
    expect(table).toContain('| 38.0 |');
    expect(table).not.toContain('| 40.0 |');
    expect(table).toContain('| 44 of 47 |');
    expect(table).toContain('82.3 %');
    expect(table).toContain('45.0');
    expect(table).toMatch(/\| – \|/);
    expect(table.split('\n').filter((l) => l.startsWith('| 20'))).toHaveLength(3);
  });

  test("is written between the document's markers, and refused where they are missing", () => {
    const doc = readFileSync(path.join(repoRoot, 'docs', 'performance.md'), 'utf8');
    const written = withFigures(doc, 'THE TABLE');
    expect(written).toContain('THE TABLE');
    expect(withFigures(written, 'ANOTHER')).not.toContain('THE TABLE');
    expect(() => withFigures('# no markers', 'x')).toThrow(/has no/);
  });
});

describe('docs/performance.md', () => {
  test('is a short account, its table the one the bench writes from its history', () => {
    const doc = readFileSync(path.join(repoRoot, 'docs', 'performance.md'), 'utf8');
    expect(doc.split('\n').length).toBeLessThanOrEqual(200);
    expect(withFigures(doc, figuresTable(readHistory(historyFile(repoRoot))))).toBe(doc);
  });
});
