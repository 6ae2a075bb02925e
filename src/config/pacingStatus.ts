/**
 * What holds a run back, as the suites' client sees it: written by the client to the run folder while it sends
 * (http/client.ts), read by the progress reporter in the CLI's process (report/progress.ts), which says it in a
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
