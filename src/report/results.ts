/** The shape of `reports/results.json` (design.md's contract; more fields are welcome, none removed). */
import type { Level, ResultStatus } from '../checks/types.js';

export interface RecordedExchange {
  request: { method: string; url: string; headers: Record<string, string>; body?: string };
  response: { status: number; headers: Record<string, string>; body: string; error?: string; truncated: boolean };
  ms: number;
  curl: string;
}

export interface CheckResult {
  id: string;
  family: string;
  level: Level;
  clause: string;
  /** The spec's words for the clause. */
  clauseText?: string;
  title: string;
  operation: string;
  collection: string;
  status: ResultStatus;
  message?: string;
  repro?: string;
  seed?: number;
  path?: string;
  evidence: RecordedExchange[];
  baseline?: { reason: string; expires?: string };
}

export interface OperationSummary {
  method: string;
  path: string;
  exercised: boolean;
  reached2xx: boolean;
  requests: number;
  /** Why the operation was not exercised, or cannot reach 2xx. */
  note?: string;
  /** Requests that needed a retry after 503. */
  retried?: number;
}

export interface RunInfo {
  tool: { name: string; version: string };
  target: { baseUrl: string; openapi: string; apiVersion: string; title?: string; profile: string; managed?: string; label?: string };
  seed: number;
  /** sha256 of the run's sorted, normalised requests: the same for two runs of the same seed. */
  requestSequence?: { sha256: string; requests: number };
  runTag: string;
  runs: number;
  readOnly: boolean;
}

export interface Results extends RunInfo {
  startedAt: string;
  durationMs: number;
  operations: OperationSummary[];
  checks: CheckResult[];
  summary: { passed: number; failed: number; skipped: number; xfail: number; xpass: number; error: number; requests: number; byFamily: Record<string, Record<string, number>>; byLevel: Record<string, Record<string, number>> };
  /** design.md's table: every filter (collection, field, operator) and every sort value, checked or skipped with the reason. */
  coverage?: {
    filters: Array<{ operation?: string; triple: string; checked: number; skipped?: string }>;
    sorts: Array<{ value: string; operation: string; status: ResultStatus; message?: string }>;
  };
  cleanup?: { deleted: number; alreadyGone: number; failed: Array<{ collection: string; id: string; reason: string }>; notDeletable: Array<{ collection: string; id: string }> };
  exitCode?: number;
  errors?: string[];
}

export function summarize(checks: CheckResult[], requests: number): Results['summary'] {
  const summary: Results['summary'] = { passed: 0, failed: 0, skipped: 0, xfail: 0, xpass: 0, error: 0, requests, byFamily: {}, byLevel: {} };
  for (const c of checks) {
    summary[c.status]++;
    (summary.byFamily[c.family] ??= {})[c.status] = (summary.byFamily[c.family][c.status] ?? 0) + 1;
    (summary.byLevel[c.level] ??= {})[c.status] = (summary.byLevel[c.level][c.status] ?? 0) + 1;
  }
  return summary;
}

/** design.md: 0 every MUST passed (baseline applied); 1 a MUST failed, a baselined failure passed, or a check could not be judged. */
export function exitCodeOf(results: Pick<Results, 'checks' | 'errors'>): 0 | 1 {
  const broken = results.checks.some((c) => (c.status === 'failed' && c.level === 'MUST') || c.status === 'xpass' || c.status === 'error');
  return broken || (results.errors?.length ?? 0) > 0 ? 1 : 0;
}
