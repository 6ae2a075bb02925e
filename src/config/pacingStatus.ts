/**
 * What holds a run back, as the suites' client sees it: written by the client to the run folder while it sends
 * (http/client.ts), read by the progress reporter in the CLI's process (adapters/vitest/progress.ts), which says it in a
 * line. Counts are over the whole run so far; the reader tells what changed between two of its lines.
 */
export interface PacingStatus {
  /** When it was written (epoch ms). */
  at: number;
  /** Answers so far (retries included), and those answered 429 and 503. */
  answers: number;
  rateLimited: number;
  unavailable: number;
  /** The groups paced by a rate limit: their route families and requests a second. */
  paces: Array<{ families: string[]; rate: number }>;
  /** The longest a group is still paused for (a Retry-After, a window with nothing left), ms. */
  pausedForMs: number;
  /** Families whose 429s came whatever the pace: unpaced, each refused request waits its own Retry-After. */
  notThePace: string[];
  /** Requests the server may work on at once now (fewer after 503s), of the configured concurrency. */
  atServer: number;
  concurrency: number;
  /** The median answer time of the last answers, ms. */
  medianAnswerMs: number;
}

/** What the run's pacing came to, as results.json gives it (http/pacing/rateLimits.ts makes it). */
export interface PacingSummary {
  /** Answers 429, over the whole run. */
  rateLimited: number;
  /** Time requests spent waiting for their turn (a pause, a pace, --max-rate), summed over requests. */
  waitedMs: number;
  /** By route family: 429s, the time its requests waited, and the rate its group was paced at last (requests/s). */
  byFamily: Record<string, { rateLimited: number; waitedMs: number; rate?: number; notThePace?: boolean }>;
  /** --max-rate, when given. */
  maxRate?: number;
  /** The groups paced when the summary was made: what another client of the target starts from (`learnPaces`). */
  paces?: Pace[];
}

/**
 * A paced group: the route families limited together, and the pace they were at (requests/s); or, with
 * `notThePace` (the share of answers refused then), a group whose 429s came whatever the pace, unpaced.
 */
export interface Pace {
  families: string[];
  rate: number;
  notThePace?: number;
}
