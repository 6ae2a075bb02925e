/**
 * The expected-failures file: one entry per known deviation of a target, with its evidence. A baselined
 * failure is `xfail`; a baselined check that passes is `xpass`, and fails the run (the baseline is stale).
 */
import { readFileSync } from 'node:fs';
import { UsageError } from '../config/config.js';
import type { ResultStatus, VerdictStatus } from '../checks/types.js';

export interface BaselineEntry {
  /** The check id, e.g. `contract.success-status-documented`. */
  check: string;
  /** The operation key ("POST /flows/"), or "*" for a deviation of every operation that shows it. */
  operation: string;
  reason: string;
  evidence?: { request?: string; response?: string };
  /**
   * A body that shows the deviation, sent on every run beside the generated ones, so that a deviation
   * found by generation is reproduced whatever the seed (and an entry that stops failing is noticed).
   */
  replay?: Replay;
  /** The deviation shows only sometimes (it depends on timing): a pass is not reported as xpass. */
  intermittent?: boolean;
  /** The entry applies only to a target whose label (CONFORMANCE_TARGET_LABEL, set by the managed launcher) contains this, e.g. "sqlite". */
  onlyOn?: string;
  /** After this date (YYYY-MM-DD) the entry no longer excuses anything. */
  expires?: string;
}

export interface Replay {
  kind: 'generated' | 'negative';
  negative?: 'wrong-type' | 'missing-required' | 'extra-property' | 'out-of-range' | 'malformed-json';
  /** The whole body to send. */
  json?: unknown;
  /** Fields laid over the run's own valid body (which names the run's own objects). */
  overlay?: Record<string, unknown>;
  /** How many times to send it (a duplicate shows what a first request cannot). */
  repeat?: number;
}

export interface Baseline {
  target?: string;
  entries: BaselineEntry[];
}

export function loadBaseline(file: string | undefined): Baseline {
  if (!file) return { entries: [] };
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new UsageError(`cannot read baseline ${file}: ${(e as Error).message.split('\n')[0]}`);
  }
  const entries = (data as Baseline | null)?.entries;
  if (!Array.isArray(entries) || entries.some((e) => typeof e?.check !== 'string' || typeof e?.operation !== 'string' || typeof e?.reason !== 'string'))
    throw new UsageError(`baseline ${file} must be {"entries": [{"check", "operation", "reason", ...}]}`);
  return data as Baseline;
}

/** Keep the entries that apply to this target (`onlyOn` against the target's label). */
export function forTarget(baseline: Baseline, label: string | undefined): Baseline {
  return { ...baseline, entries: baseline.entries.filter((e) => !e.onlyOn || (label ?? '').includes(e.onlyOn)) };
}

export function findEntry(baseline: Baseline, check: string, operation: string): BaselineEntry | undefined {
  return baseline.entries.find((e) => e.check === check && (e.operation === operation || e.operation === '*'));
}

export function isExpired(entry: BaselineEntry, today = new Date()): boolean {
  return entry.expires !== undefined && entry.expires < today.toISOString().slice(0, 10);
}

/** A verdict with the baseline applied. */
export function applyBaseline(status: VerdictStatus, entry: BaselineEntry | undefined): ResultStatus {
  if (!entry || isExpired(entry)) return status;
  if (status === 'failed') return 'xfail';
  // An entry for every operation ("*") excuses failures where they show, and says nothing elsewhere.
  if (status === 'passed' && entry.operation !== '*' && !entry.intermittent) return 'xpass';
  return status;
}

export function replaysFor(baseline: Baseline, operation: string): Replay[] {
  return baseline.entries.filter((e) => e.operation === operation && e.replay && !isExpired(e)).map((e) => e.replay!);
}
