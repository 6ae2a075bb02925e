/**
 * How far away the target is, from its answer times: the fastest answer of the last few hundred is the round
 * trip with no work (the network, a gateway), and the mean is the round trip with the server's work and queue.
 * Their ratio says how many requests can be in flight for each the server works on: about 1 for a local
 * server (a 1 ms floor under a 10 ms mean), about 12 for one 100 ms away that works 8 ms a request. The client
 * keeps `concurrency` requests at the server (its `--concurrency` means that), so it keeps `concurrency × factor`
 * in flight: latency hidden, not paid, and a busy server's rising mean brings the factor down again.
 */

/** Answer times remembered. */
const WINDOW = 256;
/** Answers seen before the factor moves from 1. */
const SETTLED = 32;
/** The most requests kept in flight for each the server works on. */
export const MAX_OVERLAP = 8;

export class Overlap {
  private readonly times: number[] = [];
  private sum = 0;
  /** Requests in flight for each at the server: the mean answer time over the part of it that is the server's. */
  factor = 1;

  /** An answer's time (ms), of a request the server served (not refused for load or rate: they say nothing of distance). */
  observe(ms: number): void {
    this.times.push(ms);
    this.sum += ms;
    if (this.times.length > WINDOW) this.sum -= this.times.shift()!;
    if (this.times.length < SETTLED) return;
    const mean = this.sum / this.times.length;
    const floor = Math.min(...this.times);
    // The server's part is never taken as less than a tenth of the mean: a target that answers everything in
    // the same time is far, not idle.
    const serverPart = Math.max(mean - floor, mean / 10);
    this.factor = Math.min(MAX_OVERLAP, Math.max(1, mean / serverPart));
  }
}
