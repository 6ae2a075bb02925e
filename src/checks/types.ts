/** Checks are data: a stable id, a level from the spec's words, the clause they enforce, and a rule. */
import type { Exchange } from '../http/client.js';
import type { Operation } from '../spec/operations.js';

export type Level = 'MUST' | 'SHOULD' | 'MAY';
export type VerdictStatus = 'passed' | 'failed' | 'skipped';
/** `error`: the check could not be judged, because the target stopped answering. */
export type ResultStatus = VerdictStatus | 'xfail' | 'xpass' | 'error';

export interface Verdict {
  status: VerdictStatus;
  message?: string;
  /** The exchanges that prove a failure (or show a pass). */
  evidence?: Exchange[];
  /** Where generation found the failure: replay with this seed and path. */
  seed?: number;
  path?: string;
}

export interface Check<Ctx> {
  id: string;
  family: string;
  level: Level;
  /** The section of the spec, or of the OpenAPI document, the check enforces. */
  clause: string;
  title: string;
  /** True when the check says something about this operation. */
  appliesTo(op: Operation, ctx: Ctx): boolean;
  run(op: Operation, ctx: Ctx): Promise<Verdict> | Verdict;
}

export const pass = (message?: string, evidence?: Exchange[]): Verdict => ({ status: 'passed', message, evidence });
export const fail = (message: string, evidence: Exchange[] = [], extra: Partial<Verdict> = {}): Verdict => ({ status: 'failed', message, evidence, ...extra });
export const skip = (message: string): Verdict => ({ status: 'skipped', message });
