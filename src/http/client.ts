/**
 * The one HTTP client of a run: a pooled undici agent, a per-request timeout and total deadline, a cap on
 * response bodies, and a recorded, redacted Exchange for every request. When a request starts, how many go at
 * once and whether a refused one goes again is the pacing policy's (pacing/pacing.ts): the client asks it, and
 * keeps count of what is in flight.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { renameSync, writeFileSync } from 'node:fs';
import { Agent, request as undiciRequest } from 'undici';
import { authHeaders } from './auth.js';
import { maskRunTag } from '../config/exchangeLog.js';
import { type Exchange, TIMED_OUT } from './exchange.js';
import { type ExchangeRecorder, exchangeLogRecorder } from './recorders.js';
import { MAX_OVERLAP } from './pacing/overlap.js';
import { Pacing } from './pacing/pacing.js';
import type { Pace } from '../config/pacingStatus.js';
import { routeFamily, type Ticket } from './pacing/rateLimits.js';
import { MAX_ATTEMPTS } from './pacing/serverLoad.js';
import { Redactor } from './redact.js';
import { NOT_RUN, SendingStopped } from './stopped.js';
import { secretsOf } from '../config/config.js';
import type { RequestToSend } from '../openapi/request.js';

export type { Exchange } from './exchange.js';

export interface ClientOptions {
  baseUrl: string;
  apiKey?: string;
  authString?: string;
  versionHeader?: { name: string; value: string };
  timeoutMs: number;
  concurrency: number;
  redactor: Redactor;
  /** Responses larger than this are cut, and reported as truncated. */
  maxBodyBytes?: number;
  /** Where to append one line per exchange: its masked behaviour (behaviour.ts), for `compare`. */
  exchangeLog?: string;
  /** What else each completed exchange is handed to (recorders.ts): the HAR entries of `--report har`. */
  recorders?: ExchangeRecorder[];
  /** Where to write what holds the run back (config/pacingStatus.ts) while it sends, at most once a second. */
  statusFile?: string;
  /** The run's tag, masked in the exchange log. */
  runTag?: string;
  /**
   * Which requests only read (a run adds the document's read POSTs, such as filters); by default those of a
   * safe method (GET, HEAD, OPTIONS). Read-only mode sends nothing else, and after a 503 the rest take turns
   * (pacing/serverLoad.ts).
   */
  isRead?: (request: RequestToSend) => boolean;
  /** Read-only mode: a request that is not a read is never sent (the last line of defence). */
  readOnly?: boolean;
  /** --max-rate: requests per second at most, over the whole run. */
  maxRate?: number;
  /** The wait before the first retry of a 503, doubled before each next one (plus jitter): 100 ms; tests shorten it. */
  retryBackoffMs?: number;
}

/** Thrown for a request read-only mode refused to send; whoever wanted it reports a skip. */
/**
 * An attempt's answer told what came before it (the earlier attempts' statuses and Retry-After values, for
 * contract.headers), and noted for the attempts after it.
 */
function noteAttempt(exchange: Exchange, earlier: number[], retryAfters: string[]): void {
  if (earlier.length) exchange.earlier = [...earlier];
  if (retryAfters.length) exchange.earlierRetryAfter = [...retryAfters];
  earlier.push(exchange.status);
  const retryAfter = exchange.responseHeaders['retry-after'];
  if (retryAfter !== undefined) retryAfters.push(retryAfter);
}

export class BlockedByReadOnly extends Error {}

export { NOT_RUN, SendingStopped };

/**
 * Who sends a request: a check (by its id), or the exercise of operations; and when it began sending, by the
 * thread's monotonic clock (a place among the senders without a counter to keep).
 */
const sender = new AsyncLocalStorage<{ label: string; order: number } & SenderOptions>();
/** Set inside HttpClient.alone: each request of the section goes alone, and no other starts until it ends. */
const aloneSection = new AsyncLocalStorage<boolean>();

export interface SenderOptions {
  /**
   * A sender declared to send only reads (checks/core/check.ts: isolation `reads`), which the client holds to, and
   * whose requests let others go first in a rate limit's line (pacing/rateLimits.ts: take).
   */
  readsOnly?: boolean;
  /**
   * The operation the sender works for (`METHOD /path`), whichever operations its requests go to: the
   * exchange log's `for`, so that a request sent to set up another operation's case is told from that case.
   */
  operation?: string;
}

/**
 * Run `fn` with every request it sends, however deep, counted under `label` (the report groups checks by
 * family). Its requests that wait for room go before those of senders begun after it (`slot`): a job's chain
 * of round trips (a PATCH and its read, one after another) is not held behind the requests of every job that
 * began meanwhile, and a phase ends when its work is done rather than when its longest chain gets room.
 */
export function sendingFor<T>(label: string, fn: () => T, options: SenderOptions = {}): T {
  return sender.run({ label, order: performance.now(), ...options }, fn);
}

/**
 * Run `fn` as the current sender, but for no one operation: what it makes the whole run shares (the fixture
 * pool's shared objects), whichever operation's case asked first.
 */
export function forNoOperation<T>(fn: () => T): T {
  const current = sender.getStore();
  if (!current?.operation) return fn();
  const { operation: _forNone, ...rest } = current;
  return sender.run(rest, fn);
}

/** A write sent by a sender declared to send only reads: a defect of the suite's, not a verdict. */
export class WriteByReader extends Error {}

/** The label of the sender the code running now sends for (sendingFor), if any. */
export const currentSender = (): string | undefined => sender.getStore()?.label;

/** A request waiting for room: its sender's place (sendingFor), and what lets it look again. */
interface Waiter {
  order: number;
  wake: () => void;
}
/** Waiters, the earliest sender's first (a stable sort: in the order they came among one sender's). */
const bySenderOrder = (a: Waiter, b: Waiter) => a.order - b.order;

/** The requests of one sender: how many, and the time each took to be answered (its last attempt). */
export interface SenderTimes {
  requests: number;
  ms: number[];
  /** Requests that needed more than one attempt, and the time their earlier attempts took (Exchange.retryMs). */
  retried: number;
  retryMs: number;
}

const RECORD_LIMIT = 64 * 1024;

/**
 * A request body with what differs between two runs of the same seed masked: identifiers, the run's tag
 * (whatever it is, CONFORMANCE_RUN_TAG included) and names, times, and the order of object keys.
 */
export function normalizedBody(request: Pick<RequestToSend, 'json' | 'raw'>, runTag?: string): string {
  const text =
    request.raw ??
    (request.json === undefined
      ? ''
      : JSON.stringify(request.json, (_k, v) =>
          v && typeof v === 'object' && !Array.isArray(v)
            ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)))
            : v,
        ));
  return maskRunTag(text, runTag)
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<uuid>')
    .replace(/conformance-[a-z0-9]+-[a-z0-9]+(-[\w%]+)?/g, '<name>')
    .replace(/\d{4}-\d{2}-\d{2}T[\d:.]+(Z|[+-]\d{2}:\d{2})?/g, '<time>');
}
/** Connection-level failures that say nothing is listening: the target is down, not one operation broken. */
const CONNECTION_REFUSED = /ECONNREFUSED|EHOSTUNREACH|ENETUNREACH|ENOTFOUND/;
const DOWN_AFTER = 3;
/**
 * A target is silent, not slow somewhere, once it has answered nothing for this many requests' times, to
 * requests of two operations at least.
 */
const SILENT_FOR_TIMEOUTS = 3;
export const NOT_SENT = 'not sent:';

/** Why the client stopped sending to the target (HttpClient.down). */
export interface TargetDown {
  /** When it last answered (silent), or was first found down (refused). */
  since: string;
  what: 'has refused connections' | 'has answered nothing';
  /** The last error met. */
  reason: string;
}

/** What a request not sent, and a check not judged, say of a target that is down. */
export const targetDownLine = (down: TargetDown): string =>
  `the target ${down.what} since ${down.since} (${down.reason})`;
/** How often the status a run's progress reads is written, at most. */
const STATUS_EVERY_MS = 1000;
/** The response half of an exchange that got no answer. */
const noAnswer = () => ({ status: 0, responseHeaders: {}, contentType: '', body: '', bodyBytes: 0, truncated: false });

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** A request of a safe method (RFC 9110 §9.2.1): it does not change the server's state. */
const safeMethod = (request: Pick<RequestToSend, 'method'>) => SAFE_METHODS.has(request.method.toUpperCase());

export class HttpClient {
  private readonly agent: Agent;
  /** For retries after a dropped socket: every request gets a connection of its own, closed after it. */
  private readonly freshAgent: Agent;
  private active = 0;
  /** Requests waiting for their turn (pacing/rateLimits.ts): they hold no slot, and their judgements wait on them. */
  waitingForTurn = 0;
  /** Called when there is room for more work: a request went to wait for its turn, or the limit rose. */
  onRoom?: () => void;
  /** Called with a route family (pacing/rateLimits.ts: routeFamily) each time one of its requests is answered 429. */
  onLimited?: (routeFamily: string) => void;
  /** Requests waiting to go, or going, with nothing else in flight. */
  private aloneWanted = 0;
  /** The end of the last section asked for by `alone`: sections follow one another, never overlap. */
  private aloneChain: Promise<void> = Promise.resolve();
  /** Requests in flight that may write: all but `isRead`'s, and those refused before the data (refusedBeforeData). */
  private writing = 0;
  private readonly waiting: Waiter[] = [];
  /**
   * Requests waiting for room whose time in a rate limit's pace has come: they look for room before the
   * others. The limit's budget is what bounds the run then, and a request no limit holds can go at any time,
   * while a paced one queued behind hundreds of them would leave that budget unspent.
   */
  private readonly waitingPaced: Waiter[] = [];
  private admissionTimer?: ReturnType<typeof setTimeout>;
  private seq = 0;
  requestCount = 0;
  /** One normalised line per exchange: what the run asked for, whatever the ids, names and clock. */
  readonly signatures: string[] = [];
  /** "METHOD template" → requests sent (retries included), and how many needed a retry after 503. */
  readonly perOperation = new Map<string, { requests: number; retried: number }>();

  /** Length of the base URL's path ("/api"), cut from exchange paths in the exchange log. */
  private readonly basePathLength: number;
  /** When the client was made: exchange log times count from it. */
  private readonly createdAt = performance.now();
  private readonly recorders: ExchangeRecorder[];
  /** Requests and their times by sender (sendingFor's label; `other` outside any). */
  readonly bySender = new Map<string, SenderTimes>();
  /** When the status for the run's progress was last written (writeStatus). */
  private statusWrittenAt = 0;
  /** Set once the run stops sending: why (a budget or deadline spent). */
  private stoppedBecause?: string;
  /** From this time on, requests are answered with no answer, not sent: why. */
  private quietAfter?: { at: number; reason: string };

  private readonly isRead: (request: RequestToSend) => boolean;
  /** When each request may start, how many go at once, whether a refused one goes again (pacing/pacing.ts). */
  readonly pacing: Pacing;
  /** The waits for a turn now: each ends at once when the run stops sending. */
  private readonly sleepers = new Set<() => void>();

  constructor(readonly options: ClientOptions) {
    this.isRead = options.isRead ?? safeMethod;
    this.pacing = new Pacing({
      concurrency: options.concurrency,
      maxRate: options.maxRate,
      retryBackoffMs: options.retryBackoffMs,
    });
    this.basePathLength = new URL(options.baseUrl).pathname.replace(/\/$/, '').length;
    this.recorders = [
      ...(options.exchangeLog ? [exchangeLogRecorder(options.exchangeLog, this.basePathLength, options.runTag)] : []),
      ...(options.recorders ?? []),
    ];
    this.agent = new Agent({
      connections: options.concurrency * MAX_OVERLAP,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      connectTimeout: Math.min(options.timeoutMs, 10000),
      // Below uvicorn's 5 s keep-alive: a socket the server is about to close is never reused.
      keepAliveTimeout: 2000,
      keepAliveMaxTimeout: 4000,
    });
    this.freshAgent = new Agent({
      connections: options.concurrency * MAX_OVERLAP,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      pipelining: 0,
    });
  }

  /**
   * Run `fn` with the target to itself: once what is in flight has ended, its requests go one at a time and no
   * other request starts until it returns. For a request that leaves, until it is undone, an object its
   * collection cannot serve (a baseline's `harmsOthers`): no other request of the run meets it meanwhile.
   */
  async alone<T>(fn: () => Promise<T>): Promise<T> {
    const before = this.aloneChain;
    let release!: () => void;
    this.aloneChain = new Promise((r) => {
      release = r;
    });
    await before;
    this.aloneWanted++;
    try {
      return await aloneSection.run(true, fn);
    } finally {
      this.aloneWanted--;
      this.wake();
      release();
    }
  }

  /** Run `fn` in a slot, once the pacing policy admits it beside what is in flight. */
  private async slot<T>(fn: () => Promise<T>, alone = false, write = false, racing = false, paced = false): Promise<T> {
    if (alone) this.aloneWanted++;
    const start = { alone, write, racing };
    // Outside any sender (cleanup's client), every request is of one: they look again in the order they came.
    const order = sender.getStore()?.order ?? 0;
    while (!this.pacing.admits(start, { active: this.active, writing: this.writing, aloneWanted: this.aloneWanted })) {
      // A request may wait for a time rather than for an answer (pacing.ts: waitMs): one timer looks again then.
      const wait = this.pacing.waitMs(write);
      if (wait > 0 && !this.admissionTimer)
        this.admissionTimer = setTimeout(() => {
          this.admissionTimer = undefined;
          this.wake();
        }, Math.ceil(wait));
      await new Promise<void>((wake) => (paced ? this.waitingPaced : this.waiting).push({ order, wake }));
    }
    this.pacing.started(start);
    this.active++;
    if (write) this.writing++;
    try {
      return await fn();
    } finally {
      this.active--;
      if (write) this.writing--;
      if (alone) this.aloneWanted--;
      this.wake();
    }
  }

  /**
   * Every waiter looks again (each waits anew unless there is room for it): those paced by a rate limit
   * first, then the others, each in the order their senders began (sendingFor).
   */
  private wake(): void {
    const paced = this.waitingPaced.splice(0).sort(bySenderOrder);
    const others = this.waiting.splice(0).sort(bySenderOrder);
    for (const waiter of [...paced, ...others]) waiter.wake();
  }

  /**
   * Answer times another client of the same target saw (the suites', for cleanup's client): it starts
   * knowing how far the target is, rather than with one request in flight for each at the server until its
   * own answers say (behind 100 ms, cleanup's first seconds).
   */
  learnDistance(answerTimes: number[]): void {
    this.pacing.learnDistance(answerTimes);
  }

  /** What another client of the target learnt of its writes (pacing.ts: learnWrites). */
  learnWrites(takeTurns: boolean, answerTimes: number[]): void {
    this.pacing.learnWrites(takeTurns, answerTimes);
  }

  /** The rate limits another client of the target met, and its paces (pacing/rateLimits.ts: learnPaces). */
  learnPaces(paces: readonly Pace[]): void {
    this.pacing.learnPaces(paces);
  }

  /** How many requests may be in flight now (the scheduler keeps twice as many judgements going). */
  get inFlightLimit(): number {
    return this.pacing.inFlightLimit;
  }

  url(request: Pick<RequestToSend, 'path' | 'query'>): string {
    const url = new URL(this.options.baseUrl.replace(/\/$/, '') + request.path);
    for (const [k, v] of Object.entries(request.query ?? {})) url.searchParams.set(k, String(v));
    return url.toString();
  }

  /**
   * Set when the target stopped taking connections (refused, unreachable) several times in a row with no
   * answer since: a killed server; or answered nothing within the timeout, to requests of more than one
   * operation, for several timeouts' length: a hung one, which still takes connections. While it is down,
   * requests are not sent but answered at once with no answer, except one probe a second, so that the rest
   * of a run takes seconds rather than its timeouts.
   */
  down?: TargetDown;
  private refusedInARow = 0;
  private lastProbe = 0;
  /** Since the last answer: when it came, and the operations whose requests timed out. */
  private lastAnswerAt = Date.now();
  private timedOut = new Set<string>();

  private noteConnection(exchange: Exchange): void {
    if (exchange.status !== 0) {
      this.refusedInARow = 0;
      this.timedOut.clear();
      this.lastAnswerAt = Date.now();
      this.down = undefined;
      return;
    }
    const error = exchange.error ?? '';
    if (CONNECTION_REFUSED.test(error)) {
      if (++this.refusedInARow >= DOWN_AFTER && !this.down)
        this.down = { since: new Date().toISOString(), what: 'has refused connections', reason: error };
      return;
    }
    if (!TIMED_OUT.test(error)) return;
    this.timedOut.add(`${exchange.method} ${exchange.template}`);
    const silentMs = Date.now() - this.lastAnswerAt;
    if (this.timedOut.size >= 2 && silentMs >= SILENT_FOR_TIMEOUTS * this.options.timeoutMs && !this.down)
      this.down = {
        since: new Date(this.lastAnswerAt).toISOString(),
        what: 'has answered nothing',
        reason: `requests of ${this.timedOut.size} operations timed out, the last ${error}`,
      };
  }

  /** From now on every request is refused with SendingStopped (requests in flight finish). */
  stopSending(reason: string): void {
    this.stoppedBecause ??= reason;
    for (const wake of this.sleepers) wake();
  }

  /**
   * From `at` on, every request is answered at once with no answer (`not sent: <reason>`) instead of being
   * sent; unlike stopSending, nothing is thrown: for cleanup, whose time is bounded but which reports what it
   * could not delete rather than stopping.
   */
  answerNothingAfter(at: number, reason: string): void {
    this.quietAfter = { at, reason };
  }

  /** Whether requests are now answered with no answer, not sent (answerNothingAfter). */
  private quietNow(): boolean {
    return this.quietAfter !== undefined && Date.now() >= this.quietAfter.at;
  }

  async send(request: RequestToSend): Promise<Exchange> {
    if (this.options.readOnly && !this.isRead(request))
      throw new BlockedByReadOnly(
        `read-only mode: ${request.method} ${request.template} changes state and was not sent`,
      );
    if (this.stoppedBecause) throw new SendingStopped(`${NOT_RUN} ${this.stoppedBecause}`);
    let exchange: Exchange;
    if (this.quietNow()) exchange = this.notSent(request, this.quietAfter!.reason);
    else if (this.down && Date.now() - this.lastProbe < 1000)
      exchange = this.notSent(request, targetDownLine(this.down));
    else {
      if (this.down) this.lastProbe = Date.now();
      exchange = await this.sendWithRetry(request);
      this.noteConnection(exchange);
    }
    this.signatures.push(`${request.method} ${request.template} ${normalizedBody(request, this.options.runTag)}`);
    const key = `${exchange.method} ${exchange.template}`;
    const counts = this.perOperation.get(key) ?? { requests: 0, retried: 0 };
    counts.requests += exchange.attempts;
    if (exchange.attempts > 1) counts.retried++;
    this.perOperation.set(key, counts);
    const from = sender.getStore();
    const label = from?.label ?? 'other';
    const times = this.bySender.get(label) ?? { requests: 0, ms: [], retried: 0, retryMs: 0 };
    times.requests += exchange.attempts;
    times.ms.push(exchange.ms);
    if (exchange.retryMs !== undefined) {
      times.retried++;
      times.retryMs += exchange.retryMs;
    }
    this.bySender.set(label, times);
    // When it was answered (ms since the client was made) and who sent it: the benchmark's timeline.
    const sentBy = { label, operation: from?.operation, at: Math.round(performance.now() - this.createdAt) };
    for (const recorder of this.recorders) recorder.record(exchange, request, sentBy);
    return exchange;
  }

  /**
   * Send, and send again while the answer says the request was not served: a 429 until the target's limit
   * allows, a 503 as the pacing policy says (pacing/serverLoad.ts), a dropped connection once, on a fresh one
   * (the stale keep-alive case below).
   */
  private async sendWithRetry(request: RequestToSend): Promise<Exchange> {
    let attempt = 0;
    let freshConnection = false;
    const earlier: number[] = [];
    const retryAfters: string[] = [];
    const firstStarted = performance.now();
    // A request refused before the data (a body validation refuses, a method not offered) takes no database
    // lock on a conforming server: it goes beside a write.
    const write = !this.isRead(request) && !request.refusedBeforeData;
    const operation = `${request.method.toUpperCase()} ${request.template}`;
    const from = sender.getStore();
    if (from?.readsOnly && !this.isRead(request))
      throw new WriteByReader(`${from.label} is declared to send only reads, but sent ${operation}`);
    // Its place in the pace (pacing/rateLimits.ts), taken anew for each attempt; given up if it never starts.
    const yields = from?.readsOnly === true;
    let ticket = this.pacing.take(request.path, yields);
    try {
      for (;;) {
        attempt++;
        if (ticket.done) ticket = this.pacing.take(request.path, yields);
        await this.untilStart(ticket);
        // Each attempt takes a slot of its own, and a retry's backoff holds none: after a 503 the retries too
        // wait for the fewer slots there are.
        const alone = aloneSection.getStore() === true || this.pacing.goesAlone(earlier, request.valuesSuspect);
        // The time is looked at again once the request has its slot: many wait for one side by side (cleanup's
        // deletes), and a request whose turn came after the time ran out is not sent.
        // The pace is kept where requests start: one whose time came while it waited for its slot may find the
        // pace spent by others that did too; it gives the slot back and waits again.
        const exchange = await this.slot(
          async () => {
            if (this.quietNow()) return this.notSent(request, this.quietAfter!.reason);
            return this.pacing.start(ticket) ? this.sendOnce(request, attempt, freshConnection) : undefined;
          },
          alone,
          write,
          request.racing === true && attempt === 1,
          this.pacing.paced(ticket),
        );
        if (exchange === undefined) {
          attempt--;
          continue;
        }
        if (exchange.attempts === 0) return exchange;
        const told = { write, valuesSuspect: request.valuesSuspect };
        if (this.pacing.answered(request.path, exchange.status, exchange.responseHeaders, exchange.ms, told))
          this.onRoom?.();
        this.writeStatus();
        this.wake();
        const started = performance.now() - exchange.ms;
        if (attempt > 1) exchange.retryMs = Math.round(started - firstStarted);
        noteAttempt(exchange, earlier, retryAfters);
        // A 429 (RFC 6585) says the request was not served, whatever its method: it is sent again once the
        // target's limit allows, as many times as it takes within the run's time, and never judged.
        if (exchange.status === 429) {
          this.onLimited?.(routeFamily(request.path));
          const own = this.pacing.ownWaitAfter429(request.path, exchange.responseHeaders);
          if (own > 0) await this.waitForTurn(own);
          continue;
        }
        // uvicorn closes a keep-alive socket after an unhandled exception without `Connection: close`;
        // the next request on it dies unread. One retry on a new, unshared connection is safe for any
        // method; a second drop is the server's, and is reported.
        const droppedUnread = exchange.status === 0 && /ECONNRESET|UND_ERR_SOCKET/.test(exchange.error ?? '');
        if (droppedUnread && !freshConnection && attempt < MAX_ATTEMPTS) {
          freshConnection = true;
          continue;
        }
        if (exchange.status !== 503) return exchange;
        const next = this.pacing.afterUnavailable(operation, earlier, request.valuesSuspect);
        if ('giveUp' in next) return exchange;
        await new Promise((r) => setTimeout(r, next.retryInMs));
      }
    } finally {
      this.pacing.leave(ticket);
    }
  }

  /**
   * What holds the run back, written for its progress (config/pacingStatus.ts): at most once a second, whole
   * (written beside and renamed), so that the reader never sees half of it.
   */
  private writeStatus(): void {
    const file = this.options.statusFile;
    const now = Date.now();
    if (!file || now - this.statusWrittenAt < STATUS_EVERY_MS) return;
    this.statusWrittenAt = now;
    try {
      writeFileSync(`${file}.new`, JSON.stringify(this.pacing.status()));
      renameSync(`${file}.new`, file);
    } catch {
      // The run folder went away (the run is ending): progress only misses a line.
    }
  }

  /**
   * Wait until the ticket may try to start (pacing/rateLimits.ts). A 429 met by another request meanwhile
   * pauses its family again: the request waits for that too. When the run stops sending, the wait ends with
   * SendingStopped.
   */
  private async untilStart(ticket: Ticket): Promise<void> {
    for (;;) {
      const wait = this.pacing.startWait(ticket);
      if (wait <= 0) return;
      await this.waitForTurn(wait);
    }
  }

  /** A wait for a turn: the scheduler is told, as a request waiting so holds no room in flight. */
  private async waitForTurn(ms: number): Promise<void> {
    this.waitingForTurn++;
    this.onRoom?.();
    try {
      await this.sleep(ms);
    } finally {
      this.waitingForTurn--;
    }
  }

  private async sleep(ms: number): Promise<void> {
    if (!this.stoppedBecause)
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.sleepers.delete(done);
          resolve();
        };
        const timer = setTimeout(done, ms);
        this.sleepers.add(done);
      });
    if (this.stoppedBecause) throw new SendingStopped(`${NOT_RUN} ${this.stoppedBecause}`);
  }

  /** The request's headers (accept, the version header, credentials, its own) and body, as they go on the wire. */
  private wire(request: RequestToSend): { headers: Record<string, string>; body?: string } {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.options.versionHeader) headers[this.options.versionHeader.name] = this.options.versionHeader.value;
    if (!request.withoutAuth) Object.assign(headers, authHeaders(this.options));
    let body: string | undefined;
    if (request.raw !== undefined) body = request.raw;
    else if (request.json !== undefined) {
      body = JSON.stringify(request.json);
      headers['content-type'] = 'application/json';
    }
    Object.assign(headers, request.headers ?? {});
    // An empty value is a header the request leaves out (a check sending without the version header).
    for (const [k, v] of Object.entries(headers)) if (v === '') delete headers[k];
    return { headers, body };
  }

  private async sendOnce(request: RequestToSend, attempts: number, freshConnection = false): Promise<Exchange> {
    const url = this.url(request);
    const { headers, body } = this.wire(request);
    const started = performance.now();
    const redact = this.options.redactor;
    const base = {
      seq: ++this.seq,
      method: request.method,
      template: request.template,
      url: redact.text(url),
      requestHeaders: redact.headers(headers),
      requestBody:
        body === undefined ? undefined : redact.text(body.length > RECORD_LIMIT ? body.slice(0, RECORD_LIMIT) : body),
      attempts,
    };
    this.requestCount++;
    const deadline = AbortSignal.timeout(this.options.timeoutMs * 2);
    try {
      const res = await undiciRequest(url, {
        method: request.method as 'GET',
        headers,
        body,
        dispatcher: freshConnection ? this.freshAgent : this.agent,
        signal: deadline,
        reset: freshConnection,
      });
      const responseHeaders: Record<string, string> = {};
      for (const [k, v] of Object.entries(res.headers))
        responseHeaders[k] = Array.isArray(v) ? v.join(', ') : String(v ?? '');
      const max = this.options.maxBodyBytes ?? 8 * 1024 * 1024;
      const { text, bodyBytes, truncated } = await bodyUpTo(res.body, max);
      const contentType = responseHeaders['content-type'] ?? '';
      const { json, parseError } = truncated
        ? { json: undefined, parseError: `body larger than ${max} bytes` }
        : parsed(text);
      return {
        ...base,
        status: res.statusCode,
        responseHeaders: redact.headers(responseHeaders),
        contentType,
        body: redact.text(text.length > RECORD_LIMIT ? text.slice(0, RECORD_LIMIT) : text),
        json,
        parseError,
        bodyBytes,
        truncated,
        ms: Math.round(performance.now() - started),
      };
    } catch (e) {
      const err = e as Error & { code?: string };
      return {
        ...base,
        ...noAnswer(),
        error: redact.text(`${err.code ?? err.name}: ${err.message}`),
        ms: Math.round(performance.now() - started),
      };
    }
  }

  private notSent(request: RequestToSend, why: string): Exchange {
    return {
      seq: ++this.seq,
      method: request.method,
      template: request.template,
      url: this.options.redactor.text(this.url(request)),
      requestHeaders: {},
      requestBody: request.json !== undefined ? this.options.redactor.text(JSON.stringify(request.json)) : request.raw,
      ...noAnswer(),
      error: `${NOT_SENT} ${why}`,
      ms: 0,
      attempts: 0,
    };
  }

  /**
   * A shell line that repeats the exchange; secrets are already redacted in the exchange. With `baseUrl`, the
   * URL starts with "$BASE_URL" instead: the line of a managed server, whose port is gone after the run,
   * repeats against whichever server the reader starts.
   */
  static curl(exchange: Pick<Exchange, 'method' | 'url' | 'requestHeaders' | 'requestBody'>, baseUrl?: string): string {
    const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
    const url =
      baseUrl && exchange.url.startsWith(baseUrl)
        ? `"$BASE_URL"${q(exchange.url.slice(baseUrl.length))}`
        : q(exchange.url);
    const parts = ['curl', '-sS', '-X', exchange.method, url];
    for (const [k, v] of Object.entries(exchange.requestHeaders))
      if (k !== 'accept') parts.push(...curlHeader(k, v, q));
    if (exchange.requestBody !== undefined) parts.push('--data-raw', q(exchange.requestBody));
    return parts.join(' ');
  }

  async close(): Promise<void> {
    clearTimeout(this.admissionTimer);
    await Promise.all([this.agent.close(), this.freshAgent.close()]);
  }
}

/**
 * A header of a curl line. The run's credentials, redacted in the exchange, are written as a reference to the
 * variable that holds them (double-quoted, so the shell expands it), so that the line works once it is exported.
 */
function curlHeader(name: string, value: string, quote: (s: string) => string): string[] {
  if (/^authorization$/i.test(name) && value === 'Bearer ***') return ['-H', `"${name}: Bearer $CONFORMANCE_API_KEY"`];
  if (/^authorization$/i.test(name) && value === 'Basic ***') return ['-u', '"$CONFORMANCE_AUTH_STRING"'];
  return ['-H', quote(`${name}: ${value}`)];
}

/**
 * The supervising CLI's own client, before the suites (supervisor/preflight.ts) and after them (cleanup): four
 * requests at a time, the credentials' secrets redacted, recorded by the recorders it is given only.
 */
export function supervisorClient(target: {
  baseUrl: string;
  apiKey?: string;
  authString?: string;
  timeoutMs: number;
  maxRate?: number;
  recorders?: ExchangeRecorder[];
}): HttpClient {
  return new HttpClient({ ...target, concurrency: 4, redactor: new Redactor(secretsOf(target)) });
}

/** A response body read up to `max` bytes: past it, the rest is dropped and the body marked truncated. */
async function bodyUpTo(
  stream: AsyncIterable<Buffer> & { destroy(): void },
  max: number,
): Promise<{ text: string; bodyBytes: number; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let bodyBytes = 0;
  for await (const chunk of stream) {
    bodyBytes += chunk.length;
    if (bodyBytes > max) {
      stream.destroy();
      return { text: Buffer.concat(chunks).toString('utf8'), bodyBytes, truncated: true };
    }
    chunks.push(chunk);
  }
  return { text: Buffer.concat(chunks).toString('utf8'), bodyBytes, truncated: false };
}

/** A body's JSON, or why it is not JSON (an empty body is neither). */
function parsed(text: string): { json?: unknown; parseError?: string } {
  if (text.length === 0) return {};
  try {
    return { json: JSON.parse(text) };
  } catch (e) {
    return { parseError: (e as Error).message };
  }
}
