/**
 * The pace of a run's requests: the one policy the client consults before each attempt and tells after each
 * answer. It joins three things the target's answers say:
 * - its rate limits and the user's --max-rate (rateLimits.ts): when a request may start;
 * - its load, from its 503s (serverLoad.ts): how many requests at the server, writes in turn, retries;
 * - its distance, from its answer times (overlap.ts): how many in flight for each at the server, and how far
 *   apart they start.
 * The client only keeps count of what is in flight and sends.
 */
import type { PacingStatus } from '../../config/pacingStatus.js';
import { Overlap } from './overlap.js';
import type { Pace, PacingSummary } from '../../config/pacingStatus.js';
import { RateLimits, type Ticket } from './rateLimits.js';
import { type AfterUnavailable, ServerLoad } from './serverLoad.js';

/** The answers whose times give the status's median answer time. */
const RECENT_ANSWERS = 200;

/** What the client has in flight when a request asks to start. */
export interface InFlight {
  active: number;
  writing: number;
  /** Requests waiting to go, or going, with nothing else in flight. */
  aloneWanted: number;
}

/** How a request asks to start: alone (nothing else in flight), as a write, or as the first of a race. */
export interface Start {
  alone: boolean;
  write: boolean;
  racing: boolean;
}

export class Pacing {
  private readonly rateLimits: RateLimits;
  private readonly load: ServerLoad;
  private readonly overlap = new Overlap();
  /** When the last write started (pacing's clock). */
  private lastWriteAt = Number.NEGATIVE_INFINITY;
  /** When the last request started (pacing's clock). */
  private lastStartAt = Number.NEGATIVE_INFINITY;
  /** Answers (retries included), and those answered 503, for the status a run's progress reads. */
  private answers = 0;
  private unavailable = 0;
  /** The answer times of the last RECENT_ANSWERS answers served. */
  private readonly recentMs: number[] = [];
  private readonly concurrency: number;

  constructor(options: { concurrency: number; maxRate?: number; retryBackoffMs?: number }) {
    this.rateLimits = new RateLimits({ maxRate: options.maxRate });
    this.concurrency = options.concurrency;
    this.load = new ServerLoad(options.concurrency, options.retryBackoffMs);
  }

  /** A request to `path` takes its place in the pace (rateLimits.ts: rate limits, --max-rate); `yields` lets others go first. */
  take(path: string, yields = false): Ticket {
    return this.rateLimits.take(path, yields);
  }

  /** How long from now until the ticket may try to start; 0 when it may. */
  startWait(ticket: Ticket): number {
    return this.rateLimits.startWait(ticket);
  }

  /** Whether the ticket's request, its room in flight found, starts now (then counted), or waits again. */
  start(ticket: Ticket): boolean {
    return this.rateLimits.start(ticket);
  }

  /** Whether the ticket waits in a rate limit's pace (its request then looks for room first). */
  paced(ticket: Ticket): boolean {
    return ticket.line !== undefined;
  }

  /** A ticket whose request will not start (the run stopped sending): it leaves its line. */
  leave(ticket: Ticket): void {
    this.rateLimits.leave(ticket);
  }

  /** How many requests may be in flight now: those at the server times how far away it is. */
  get inFlightLimit(): number {
    return Math.max(1, Math.floor(this.load.atServer * this.overlap.factor));
  }

  /**
   * Whether a request may start beside what is in flight. Alone, when nothing is; the first attempt of a race,
   * unless a request waits to go alone; any other within the limit, none while one waits to go alone, and a
   * write only while fewer than the writers allowed are in flight and, to a far target, once its turn has come
   * (`writeWaitMs`); to a far target, each once the one before has had its share of the server's time
   * (`startWaitMs`).
   */
  admits(start: Start, now: InFlight): boolean {
    if (start.alone) return now.active === 0;
    if (start.racing) return now.aloneWanted === 0;
    return (
      now.active < this.inFlightLimit &&
      now.aloneWanted === 0 &&
      this.startWaitMs() <= 0 &&
      (!start.write ||
        (now.writing < this.load.writersAtOnce(this.overlap.factor, this.overlap.far) && this.writeWaitMs() <= 0))
    );
  }

  /**
   * How long a write to a far target (or one whose round trips overlap) waits for its turn, from now
   * (serverLoad.ts: writeSpacingMs). A near one with a factor of 1 has one write in flight at a time once
   * writes take turns: it never waits for a time.
   */
  writeWaitMs(): number {
    if (this.overlap.factor < 2 && !this.overlap.far) return 0;
    return this.lastWriteAt + this.load.writeSpacingMs(this.overlap.floorMs) - performance.now();
  }

  /**
   * How long a request to a far target waits, from now, after the one before started: the server's part of a
   * typical answer over the requests it may work on at once. Those in flight then reach it spread out, about
   * `atServer` at a time, not in the bursts an answer wakes (up to all in flight at once): a server of one
   * process works on a burst's requests interleaved, and a write among them holds SQLite's lock the longer,
   * which widens the writes' spacing (the bench measures the difference: docs/performance.md). A near target's
   * requests are not spaced.
   */
  startWaitMs(): number {
    if (!this.overlap.far) return 0;
    return this.lastStartAt + this.overlap.serverPartMs / this.load.atServer - performance.now();
  }

  /** How long a request waits for its time, from now: its start's, and a write's turn. */
  waitMs(write: boolean): number {
    return Math.max(this.startWaitMs(), write ? this.writeWaitMs() : 0);
  }

  /** A request admitted (`admits`) starts now. */
  started(start: Start): void {
    const now = performance.now();
    this.lastStartAt = now;
    if (start.write) this.lastWriteAt = now;
  }

  /** An answer of a request to `path` (a write or not). Says whether there is now room for more in flight. */
  answered(
    path: string,
    status: number,
    headers: Record<string, string>,
    ms: number,
    { write = false, valuesSuspect = false } = {},
  ): boolean {
    const before = this.inFlightLimit;
    const served = Overlap.served(status);
    if (status !== 0) this.answers++;
    // A 503 to values past what a server must hold is their answer, not a sign of load (RequestToSend.valuesSuspect).
    const load = !(valuesSuspect && status === 503);
    if (status === 503 && load) this.unavailable++;
    if (served) {
      this.recentMs.push(ms);
      if (this.recentMs.length > RECENT_ANSWERS) this.recentMs.shift();
    }
    if (load) this.load.answered(status, served);
    if (served) this.overlap.observe(ms);
    if (served && write) this.load.wrote(ms, performance.now(), this.overlap.floorMs);
    this.rateLimits.answered(path, status, headers);
    return this.inFlightLimit > before;
  }

  /**
   * How long a request answered 429 waits, alone, before it is sent again: its own Retry-After where its
   * family's 429s are not the pace's (rateLimits.ts: ownWaitMs); 0 where its group's pause holds it.
   */
  ownWaitAfter429(path: string, headers: Record<string, string>): number {
    return this.rateLimits.ownWaitMs(path, headers);
  }

  /** Whether a request refused with 503 as `earlier` says goes alone now (never one whose values are suspect). */
  goesAlone(earlier: readonly number[], valuesSuspect = false): boolean {
    return !valuesSuspect && this.load.goesAlone(earlier);
  }

  /** After a 503 of a request of `operation` ("METHOD template"): send it again after a wait, or give up. */
  afterUnavailable(operation: string, earlier: readonly number[], valuesSuspect = false): AfterUnavailable {
    return this.load.afterUnavailable(operation, earlier, this.overlap.floorMs, valuesSuspect);
  }

  /**
   * Answer times another client of the same target saw (the suites', for cleanup's client): this one starts
   * knowing how far the target is.
   */
  learnDistance(answerTimes: number[]): void {
    for (const ms of answerTimes) this.overlap.observe(ms);
  }

  /**
   * What another client of the same target learnt of its writes (the suites', for cleanup's, which sends
   * nothing but deletes): whether they had to take turns, and the answer times of some. This one then starts
   * where that one ended, rather than with a crowd of writes the target refuses (503) and the halving after.
   */
  learnWrites(takeTurns: boolean, answerTimes: number[]): void {
    if (takeTurns) this.load.writesTakeTurns = true;
    for (const ms of answerTimes) this.load.wrote(ms);
  }

  /** The rate limits another client of the target met, paced as it left them (rateLimits.ts: learnPaces). */
  learnPaces(paces: readonly Pace[]): void {
    this.rateLimits.learnPaces(paces);
  }

  /** Whether writes take turns, since the target refused writes that met at it (503). */
  get writesTakeTurns(): boolean {
    return this.load.writesTakeTurns;
  }

  summary(): PacingSummary {
    return this.rateLimits.summary();
  }

  /** What holds the run back now (config/pacingStatus.ts), for its progress. */
  status(): PacingStatus {
    const sorted = [...this.recentMs].sort((a, b) => a - b);
    return {
      at: Date.now(),
      answers: this.answers,
      unavailable: this.unavailable,
      ...this.rateLimits.holding(),
      atServer: Math.floor(this.load.atServer),
      concurrency: this.concurrency,
      medianAnswerMs: Math.round(sorted[Math.floor(sorted.length / 2)] ?? 0),
    };
  }
}
