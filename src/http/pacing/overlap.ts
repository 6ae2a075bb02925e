/**
 * How far away the target is, from its answer times: the fastest answer of the last few hundred is the round
 * trip with no work (the network, a gateway), and the median is the round trip of a typical request with the
 * server's work and queue. Their ratio says how many requests can be in flight for each the server works on:
 * about 1 for a local server (a 1 ms floor under a 5 ms median), about 12 for one 100 ms away that works 8 ms
 * a request. The client keeps `concurrency` requests at the server (its `--concurrency` means that), so it
 * keeps `concurrency × factor` in flight: latency hidden, not paid, and a busy server's rising median brings
 * the factor down again. The median, not the mean: a few slow writes (SQLite's lock) say nothing of distance.
 */

/** Answer times remembered. */
export const WINDOW = 256;
/** Answers seen before the factor moves from 1. */
export const SETTLED = 32;
/** The most requests kept in flight for each the server works on. */
export const MAX_OVERLAP = 8;
/** Below this factor a near target's work is most of each answer, and the factor stays 1. */
const NEAR = 2;
/**
 * A target whose fastest answer takes this long or more is far (a network or a gateway between): its round
 * trips are worth overlapping even while its heavy answers bring the factor below NEAR, and its writes are
 * spaced rather than sent one after another (pacing.ts).
 */
export const FAR_FLOOR_MS = 20;

export class Overlap {
  private readonly times: number[] = [];
  private seen = 0;
  /** Requests in flight for each at the server: the median answer time over the part of it that is the server's. */
  factor = 1;
  /** The fastest answer of the window: the round trip with no work (0 until enough answers are seen). */
  floorMs = 0;
  /** The server's part of the median answer: its work and queue for a typical request (0 until enough are seen). */
  serverPartMs = 0;

  /** Whether an answer's status says anything of distance: served, not refused for load or rate, not lost. */
  static served(status: number): boolean {
    return status !== 0 && status !== 429 && status !== 503;
  }

  /** An answer's time (ms), of a request the server served (not refused for load or rate: they say nothing of distance). */
  observe(ms: number): void {
    this.times.push(ms);
    if (this.times.length > WINDOW) this.times.shift();
    // Sorting the window is cheap, but not needed for every answer.
    if (++this.seen < SETTLED || this.seen % 8 !== 0) return;
    const sorted = [...this.times].sort((a, b) => a - b);
    const median = sorted[sorted.length >> 1];
    this.floorMs = sorted[0];
    // The server's part is never taken as less than a tenth of the median: a target that answers everything
    // in the same time is far, not idle.
    const serverPart = Math.max(median - sorted[0], median / 10);
    this.serverPartMs = serverPart;
    const factor = median / Math.max(serverPart, Number.EPSILON);
    // A near target's factor snaps to 1; a far one's follows its answers down to 1: behind 100 ms, a phase of
    // heavy reads (a median of 220 ms) left it at 1, with four requests in flight and writes one round trip
    // apart, while the server worked on half of what it could.
    this.factor = factor < NEAR && !this.far ? 1 : Math.max(1, Math.min(MAX_OVERLAP, factor));
  }

  /** Whether the target is far (FAR_FLOOR_MS), once enough answers are seen. */
  get far(): boolean {
    return this.floorMs >= FAR_FLOOR_MS;
  }
}
