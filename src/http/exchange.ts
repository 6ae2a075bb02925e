/** One exchange as the client recorded it: the request sent, the answer (or why none came), redacted. */
import type { Answer } from '../openapi/request.js';

export interface Exchange extends Answer {
  seq: number;
  method: string;
  template: string;
  url: string;
  requestHeaders: Record<string, string>;
  requestBody?: string;
  status: number;
  responseHeaders: Record<string, string>;
  contentType: string;
  /** The body as text, capped at the recording limit. */
  body: string;
  /** Parsed JSON when the body is JSON, else undefined; `parseError` says why it is not. */
  json?: unknown;
  parseError?: string;
  bodyBytes: number;
  truncated: boolean;
  /** Set when no complete response arrived: refused, reset, timed out. status is then 0. */
  error?: string;
  ms: number;
  attempts: number;
  /** Statuses of the earlier attempts of the same request (0: no answer), oldest first. */
  earlier?: number[];
  /** The Retry-After values the earlier attempts' answers sent (a 429, a 503), oldest first, where any did. */
  earlierRetryAfter?: string[];
  /**
   * With earlier attempts: the time from when the request was asked for to this attempt's start (the refused
   * attempts, the backoff, the waits for a turn and a slot), which `ms` (this attempt's) leaves out.
   */
  retryMs?: number;
}

/**
 * An error that says no answer came within the request's time (undici's headers, body or connect timeout): one
 * operation may be that slow, or the whole target hung.
 */
export const TIMED_OUT = /timeout/i;

/** No answer within the run's timeout: a server too busy to answer in time, or one the request hung. */
export const timedOut = (ex: Pick<Exchange, 'status' | 'error'>): boolean =>
  ex.status === 0 && TIMED_OUT.test(ex.error ?? '');
