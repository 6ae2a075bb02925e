/**
 * What a 503 says of the target's load, as a policy: how many requests may be at the server, whether writes
 * take turns, whether a refused request is sent again, after how long, and whether it then goes alone.
 *
 * A 503 says the request was not served (RFC 9110 §15.6.4). Prefect answers it for retryable database errors:
 * on SQLite for a write that lost the database lock to another write, on PostgreSQL for some queries it cannot
 * run whatever the load. So the first calls for fewer requests at once and writes in turn (the server has one
 * writer anyway), and the second for giving up sooner on an operation that answers nothing else.
 */

/**
 * As many attempts as Prefect's own client makes (PREFECT_CLIENT_MAX_RETRIES: 5 retries), with a shorter
 * backoff of 200, 400, 800, 1600 and 3200 ms (plus jitter): Prefect on SQLite answers 503 for a write that
 * lost the database lock, and under concurrent writes the lock can stay taken for a few seconds.
 */
export const MAX_ATTEMPTS = 6;
/**
 * Attempts for a request of an operation one of whose requests was refused with 503 at every attempt: that
 * operation's 503 is its answer more than a passing state (Prefect on PostgreSQL answers 503 for queries it
 * cannot run, whatever the load), and the full backoff (8 s a request, the last attempts alone) would be
 * paid again for each. Three attempts still get through a lock a write lost by chance.
 */
const ATTEMPTS_WHERE_UNAVAILABLE_BEFORE = 3;
/**
 * Attempts for a request whose own values are the likely cause of its 503 (RequestToSend.valuesSuspect): one
 * more gets through a lock lost by chance; more would pay the backoff for an answer that will not change.
 */
export const ATTEMPTS_WHERE_VALUES_SUSPECT = 2;
/**
 * A request refused this many times goes alone: if the server refused it for a lock other requests held
 * (Prefect on SQLite), it then has no rival. Not after two: behind 100 ms a request alone stops every other
 * for two round trips, and a second lost lock is common there.
 */
const ALONE_AFTER = 3;

/** What to do with a request the target refused with 503. */
export type AfterUnavailable = { retryInMs: number } | { giveUp: true };

export class ServerLoad {
  /** How many requests may be at the server at once: the configured concurrency, less while it answers 503. */
  private limit: number;
  /**
   * Set by the target's first 503 (or told by another client of it: pacing.ts, learnWrites): from then on,
   * requests that may write go one at a time at the server (see `writersAtOnce`), reads beside them. Writes
   * in turn do not lose SQLite's lock to each other.
   */
  writesTakeTurns = false;
  /** "METHOD template" of operations one of whose requests was refused with 503 at every attempt. */
  private readonly unavailableBefore = new Set<string>();
  /**
   * The last writes the server served: when each started and when the server was done with it (pacing's
   * clock), and its answer time less what it waited there for the writes before it.
   */
  private readonly writes: Array<{ startedAt: number; doneAt: number; ms: number }> = [];
  /** The answer time three of those writes in four took at most (SPACED_WRITES_DONE). */
  private spacedWriteMs = 0;

  constructor(
    private readonly concurrency: number,
    /** The wait before the first retry, doubled before each next one (plus jitter). */
    private readonly backoffMs = 100,
  ) {
    this.limit = concurrency;
  }

  /** Requests the server may work on at once now. */
  get atServer(): number {
    return this.limit;
  }

  /**
   * How many writes may be in flight at once, for a target `factor` times as far as its own work (pacing/
   * overlap.ts): any number until the first 503, then as many as overlap one at the server; to a `far` one at
   * least two, spaced (writeSpacingMs), so that its heavy reads, which bring the factor near 1, do not leave
   * writes one round trip apart.
   */
  writersAtOnce(factor: number, far = false): number {
    if (!this.writesTakeTurns) return Number.POSITIVE_INFINITY;
    return far ? Math.max(2, Math.floor(factor)) : Math.floor(factor);
  }

  /**
   * An answer: a 503 halves the requests at the server, so that the retry is not met by the same crowd, and
   * they grow back by one for every four answers the server served. Says whether there is room for more.
   */
  answered(status: number, served: boolean): boolean {
    if (status === 503) {
      this.limit = Math.max(1, this.limit / 2);
      this.writesTakeTurns = true;
      return false;
    }
    if (!served) return false;
    const before = this.limit;
    this.limit = Math.min(this.concurrency, this.limit + 0.25);
    return this.limit > before;
  }

  /**
   * A write the server served, answered `ms` after it started, now (pacing's clock), from a target `floorMs`
   * away: what a write costs it, with the way there and back. The server takes writes one at a time (SQLite
   * has one writer): a write that reached it while an earlier one held the lock waited for that one, and the
   * wait is the earlier write's time, not its own. So its own time starts where the earlier writes' ended at
   * the server (their answers, less the way back; the same whether the way is paid there or back). Counted
   * whole, the waits of the writes that won a round of 503s widened the spacing for the next 64 writes, several
   * times the writes' own time.
   */
  wrote(ms: number, now = performance.now(), floorMs = 0): void {
    const startedAt = now - ms;
    const earlierDone = this.writes.reduce(
      (latest, w) => (w.startedAt < startedAt ? Math.max(latest, w.doneAt) : latest),
      startedAt,
    );
    // Until the way there and back is known (floorMs 0: too few answers, or times told by another client),
    // an earlier answer says nothing of when the server was done, and the answer time counts whole.
    this.writes.push({ startedAt, doneAt: now - floorMs, ms: floorMs > 0 ? now - earlierDone : ms });
    if (this.writes.length > WRITES_MEASURED) this.writes.shift();
    // Once per write served, not once per look: a waiting write looks again on every answer.
    const sorted = this.writes.map((w) => w.ms).sort((x, y) => x - y);
    this.spacedWriteMs = sorted[Math.floor(sorted.length * SPACED_WRITES_DONE)];
  }

  /**
   * How long after one write the next may start, for a target whose round trip with no work is `floorMs`: once
   * writes take turns, the time at the server (answer time less that round trip) that three writes in four
   * take. Writes in flight to a far target then reach it about one at a time, as they would from one client
   * beside it; sent together they would meet at the server, and all but one lose SQLite's lock (a 503, and a
   * backoff of hundreds of milliseconds). Spacing by every write's time would pay the slowest write's time for
   * each; by the median, half the writes would still meet the next. 0 before the first 503, and until a few
   * writes are measured.
   */
  writeSpacingMs(floorMs: number): number {
    if (!this.writesTakeTurns || this.writes.length < WRITES_MEASURED / 8) return 0;
    return Math.max(0, this.spacedWriteMs - floorMs);
  }

  /** Whether a request that was refused with 503 as the `earlier` statuses say goes alone now. */
  goesAlone(earlier: readonly number[]): boolean {
    return refusals(earlier) >= ALONE_AFTER;
  }

  /**
   * After a request of `operation` was refused with 503 (its statuses so far in `earlier`, this one last):
   * wait and send it again, or give up and take the 503 as its answer. The way to a target `floorMs` away is
   * part of the wait: a retry reaches it that much later anyway.
   */
  afterUnavailable(
    operation: string,
    earlier: readonly number[],
    floorMs = 0,
    valuesSuspect = false,
  ): AfterUnavailable {
    const unavailable = refusals(earlier);
    const attempts = valuesSuspect
      ? ATTEMPTS_WHERE_VALUES_SUSPECT
      : this.unavailableBefore.has(operation)
        ? ATTEMPTS_WHERE_UNAVAILABLE_BEFORE
        : MAX_ATTEMPTS;
    if (unavailable >= attempts) {
      // A request refused for its own values says nothing of what its operation answers to others.
      if (!valuesSuspect) this.unavailableBefore.add(operation);
      return { giveUp: true };
    }
    // Jitter, so that requests that lost the lock together do not retry together.
    return { retryInMs: Math.max(0, this.backoffMs * 2 ** unavailable * (1 + Math.random() / 2) - floorMs) };
  }
}

/** Writes measured for their time at the server. */
const WRITES_MEASURED = 64;
/** The share of writes done at the server before the next is sent (writeSpacingMs). */
const SPACED_WRITES_DONE = 0.75;

const refusals = (statuses: readonly number[]) => statuses.filter((status) => status === 503).length;
