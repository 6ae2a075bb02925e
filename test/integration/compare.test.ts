/**
 * `compare` on real targets: the suite starts Prefect on SQLite and on PostgreSQL (a fresh database on
 * 127.0.0.1:5432, dropped afterwards), runs both with the same seed, and diffs them; then the live
 * document against the committed copy in fixtures/reference.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import type { Comparison } from '../../src/report/compare.js';
import type { Results } from '../../src/report/results.js';
import { repoRoot, runCli, type CliRun } from '../support/runCli.js';

function conformanceDatabases(): string[] {
  const out = execFileSync(
    'psql',
    [
      '-h',
      '127.0.0.1',
      '-U',
      'postgres',
      '-d',
      'postgres',
      '-Atc',
      "SELECT datname FROM pg_database WHERE datname LIKE 'conformance_%'",
    ],
    { encoding: 'utf8' },
  );
  return out.split('\n').filter(Boolean);
}

/** The last lines of each of the log's last tracebacks: enough to name the server's exception. */
function lastExceptions(log: string): string {
  return log
    .split(/\n(?=\S[^\n]*Encountered exception)/)
    .slice(-3)
    .map((block) => block.split('\n').slice(-6).join('\n'))
    .join('\n---\n');
}

const committedDocument = path.join(repoRoot, 'fixtures', 'reference', 'prefect-openapi.json');

let databasesBefore: string[];
let run: CliRun;
let outDir: string;
let comparison: Comparison;
let postgres: Results;

beforeAll(async () => {
  databasesBefore = conformanceDatabases();
  // --out names the comparison's folder (it wins over CONFORMANCE_OUT, which runCli sets to a folder of its own).
  outDir = mkdtempSync(path.join(os.tmpdir(), 'conformance-compare-'));
  run = await runCli(['compare', 'managed:sqlite', 'managed:postgres', '--out', outDir], {}, 600_000);
  expect(existsSync(path.join(run.outDir, 'compare.json'))).toBe(false);
  comparison = JSON.parse(readFileSync(path.join(outDir, 'compare.json'), 'utf8')) as Comparison;
  postgres = JSON.parse(readFileSync(path.join(outDir, 'compare-b', 'results.json'), 'utf8')) as Results;
});

describe('compare managed:sqlite managed:postgres', () => {
  test('the PostgreSQL run is clean with the baseline, and its database is dropped afterwards', () => {
    expect(run.stderr).toBe('');
    expect(postgres.target.managed).toContain('postgres');
    const serverLog = path.join(outDir, 'compare-b', 'server.log');
    expect(
      postgres.checks
        .filter((c) => (c.status === 'failed' && c.level === 'MUST') || c.status === 'xpass')
        .map((c) => `${c.id} ${c.operation}: ${c.message}`),
      // A server error's traceback is in the server's log: show its last exceptions with the failure.
      existsSync(serverLog) ? lastExceptions(readFileSync(serverLog, 'utf8')) : 'no server.log',
    ).toEqual([]);
    expect(postgres.exitCode).toBe(0);
    expect(postgres.operations.filter((o) => o.reached2xx).length / postgres.operations.length).toBeGreaterThanOrEqual(
      0.95,
    );
    expect(conformanceDatabases()).toEqual(databasesBefore);
  });

  test('baseline verify on the PostgreSQL run: every entry of the pinned baseline reproduced (or intermittent); only SQLite entries not judged', () => {
    const from = path.join(outDir, 'compare-b', 'results.json');
    // Exit 1 (a throw here) when an entry is stale: not reproduced and not intermittent, or shown otherwise.
    const out = execFileSync(path.join(repoRoot, 'bin', 'conformance'), ['baseline', 'verify', '--from', from], {
      encoding: 'utf8',
    });
    expect(out).toMatch(
      /: \d+ entries, \d+ reproduced, 0 different, \d+ not reproduced, \d+ not judged by this run\n$/,
    );
    const verified = JSON.parse(readFileSync(path.join(outDir, 'compare-b', 'baseline-verify.json'), 'utf8')) as Array<{
      outcome: string;
      intermittent: boolean;
    }>;
    expect(verified.filter((v) => v.outcome === 'not reproduced' && !v.intermittent)).toEqual([]);
    const baseline = JSON.parse(readFileSync(path.join(repoRoot, postgres.baseline!.file!), 'utf8')) as {
      entries: Array<{ onlyOn?: string }>;
    };
    const elsewhere = baseline.entries.filter((e) => e.onlyOn && e.onlyOn !== 'postgres').length;
    expect(verified.filter((v) => v.outcome === 'not judged')).toHaveLength(elsewhere);
  });

  test('writes compare.html, compare.md and compare.json; the documents are the same', () => {
    for (const file of ['compare.html', 'compare.md', 'compare.json'])
      expect(existsSync(path.join(outDir, file)), file).toBe(true);
    expect(comparison.a.target).toContain('sqlite');
    expect(comparison.b.target).toContain('postgres');
    expect(comparison.drift!.changes).toEqual([]);
  });

  test('the verdict diff shows the real NULL-order difference of sorts: the same verdict, nulls first on one side and last on the other', () => {
    const nullOrder = comparison.verdicts!.changes.filter(
      (v) => v.kind === 'same verdict, different message' && v.id.startsWith('sorting.'),
    );
    expect(nullOrder.length).toBeGreaterThan(0);
    for (const v of nullOrder) {
      expect(v.a!.message).toMatch(/nulls (first|last)/);
      expect(v.b!.message).toMatch(/nulls (first|last)/);
      expect(v.a!.message!.match(/nulls (first|last)/)![1]).not.toBe(v.b!.message!.match(/nulls (first|last)/)![1]);
    }
    // Nothing from ids or timestamps: every other message difference is a real one.
    const others = comparison.verdicts!.changes.filter(
      (v) => v.kind === 'same verdict, different message' && !v.id.startsWith('sorting.'),
    );
    for (const v of others)
      expect(`${v.a!.message} ${v.b!.message}`).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-|\d{4}-\d{2}-\d{2}T/);
  });

  test('the behaviour diff shows the NULL order as an order difference on a sort over a nullable field, matched on the same generated requests', () => {
    const b = comparison.behaviour!;
    expect(b.matched).toBeGreaterThan(1000);
    const order = b.differences.filter((d) => d.kind === 'order');
    const nullableSorts = comparison
      .verdicts!.changes.filter((v) => v.kind === 'same verdict, different message' && v.id.startsWith('sorting.'))
      .map((v) => /\[(.+)\]$/.exec(v.id)?.[1] ?? v.id.replace('sorting.', ''));
    expect(order.some((d) => nullableSorts.some((value) => d.request.includes(`"sort":"${value}"`)))).toBe(true);
    expect(readFileSync(path.join(outDir, 'compare.md'), 'utf8')).toMatch(/\| order \|/);
  });
});

describe('compare the committed document with the live one', () => {
  test('classifies the drift: operations added, breaking and non-breaking schema changes', async () => {
    const live = path.join(outDir, 'compare-a', '.run', 'openapi.json');
    const doc = await runCli(['compare', committedDocument, live]);
    expect(doc.stderr).toBe('');
    const c = JSON.parse(readFileSync(path.join(doc.outDir, 'compare.json'), 'utf8')) as Comparison;
    expect(c.verdicts).toBeUndefined();
    const added = c.drift!.changes.filter((x) => x.kind === 'operation added');
    const served = JSON.parse(readFileSync(live, 'utf8')) as { paths: Record<string, object> };
    const committed = JSON.parse(readFileSync(committedDocument, 'utf8')) as { paths: Record<string, object> };
    const expectedAdded = Object.entries(served.paths).flatMap(([p, item]) =>
      Object.keys(item)
        .filter((m) => !(committed.paths[p] as Record<string, unknown> | undefined)?.[m])
        .map((m) => `${m.toUpperCase()} ${p}`),
    );
    expect(added.map((x) => x.operation).sort()).toEqual(expectedAdded.sort());
    expect(c.drift!.changes.every((x) => typeof x.breaking === 'boolean')).toBe(true);
    // A breaking change makes compare exit 1, so that it can gate an upgrade.
    expect(doc.code).toBe(c.drift!.changes.some((x) => x.breaking) ? 1 : 0);
    expect(readFileSync(path.join(doc.outDir, 'compare.md'), 'utf8')).toContain('## 1. Document drift');
  });
});
