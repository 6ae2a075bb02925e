/**
 * The rate limits of a run's requests (the part of the pacing policy, pacing.ts, that says when a request may
 * start): a user's `--max-rate` over every request, and the rate limits the target itself applies (RFC 6585 429 with
 * `Retry-After`; the RateLimit headers where present), per route family (a path's first segment: the
 * hosted edition limits `flows`, `flow_runs` and `task_runs` per minute).
 *
 * A family starts unpaced. A 429 pauses its group (the families limited within a minute of each other: one
 * budget over several collections) for as long as `Retry-After` says (capped). The group's first 429 paces it
 * at a sixth under the rate its answers were accepted at over the ten seconds before: once a limit's budget
 * is spent, that is the limit's own rate. A later one lowers the pace by a tenth of itself, not to a sixth
 * under the rate accepted then: a paced group meets a 429 only when its pace is over the limit, and what was
 * accepted over ten seconds of a run's changing demand says less of the limit than the pace does (it brought
 * a 33/s limit's pace to 21/s). Every second without a 429 while the pace is spent (its requests start at
 * it) raises it by 1 %, so the run settles just under the limit and meets a 429 every ten seconds or so
 * rather than bouncing off it. A 429 met during a pause lowers nothing. A policy the server states
 * (`RateLimit-Policy: 2000;w=60`) sets the rate at once.
 *
 * The pace falls only while falling helps. A limit's 429s stop once the pace is under it; 429s that come
 * whatever the pace (a budget other clients spend, a server shedding load) do not. So after a fall the group's
 * next answers are judged: where the share of them answered 429 is still half or more of the share before the
 * fall, the 429s are not the pace's, and the group is no longer paced or paused: a 429 holds back only the
 * request that met it, for its `Retry-After` (`ownWaitMs`), and the others go on. Should the share then rise
 * well past where it was (a limit after all), the group is paced again, for good.
 *
 * A request takes a ticket before it waits (`take`) and starts only when `start` says so, once it has its
 * room in flight: a paced group's tickets wait in one line, and starts are held to the pace where they
 * happen (the generic cell rate algorithm: at most a quarter second's worth at once, then one every 1/rate s).
 * A pace kept when turns were handed out instead let requests whose turns came while they waited for room
 * all start together, and sent every request a pause woke to the back of a line of turns seconds long.
 */
import type { Pace, PacingStatus, PacingSummary } from '../../config/pacingStatus.js';

/** The family a request's path belongs to: its first segment (`/flow_runs/filter` → `flow_runs`). */
export const routeFamily = (path: string): string => path.split('/').filter(Boolean)[0] ?? '';

/** The longest a single `Retry-After` is obeyed for; a longer one is waited in turns of this. */
export const RETRY_AFTER_CAP_MS = 60_000;
/** When a 429 names no time: a second, as many servers' windows are. */
const RETRY_AFTER_DEFAULT_MS = 1000;
/** The window the accepted rate is measured over when a family meets its first 429. */
const MEASURE_MS = 10_000;
const DECREASE = 5 / 6;
/** What a later 429 leaves of a paced group's pace. */
const LATER_DECREASE = 0.9;
/** How far ahead of its pace a paced group may start requests (after a quiet time): a quarter second's worth. */
const BURST_MS = 250;
/**
 * Fewer accepted answers than this in the measured window say nothing of a limit's rate: a 429 then (a run
 * that starts while another client has spent the budget, or a second run within the minute) only pauses.
 * Measured from none, the pace would fall to its floor, one request every ten seconds, and take minutes to
 * climb back.
 */
const MEASURABLE_ANSWERS = 10;
const INCREASE_PER_SECOND = 0.01;
/** A pace is spent when this share of it started over the last SPENT_MS: then it is what limits the group. */
const SPENT_SHARE = 0.9;
const SPENT_MS = 1000;
/** The answers after a fall of the pace that say whether it helped. */
const JUDGE_AFTER = 50;
/** The 429s the window before a fall must hold for its share to be compared with: fewer say nothing of it. */
const JUDGE_LIMITED = 3;
/** A share of 429s at least this part of the share before the fall did not fall. */
const NOT_FALLEN = 0.5;
/**
 * Unpaced for 429s that were not the pace's, a group is paced again when the share of its answers refused over
 * the measured window (of JUDGE_AFTER * 2 answers or more) rises over this many times the share found then, and
 * over RISEN_AT_LEAST.
 */
const RISEN = 2;
const RISEN_AT_LEAST = 0.2;

/** `Retry-After` (RFC 9110 §10.2.3): seconds, or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** What the RateLimit headers say, in their drafts' spellings: the quota per window, and what is left until when. */
export interface StatedLimit {
  /** Requests per second the policy allows (quota / window). */
  rate?: number;
  remaining?: number;
  /** When the window resets, ms from now. */
  resetMs?: number;
}

const param = (text: string, name: string): number | undefined => {
  const m = new RegExp(`(?:^|[;,\\s])${name}=("?)(\\d+(?:\\.\\d+)?)\\1`).exec(text);
  return m ? Number(m[2]) : undefined;
};

/**
 * `RateLimit-Policy: 100;w=60` or `"default";q=100;w=60`; `RateLimit: limit=100, remaining=5, reset=30` or
 * `"default";r=5;t=30`; `RateLimit-Remaining`/`-Reset` and their `X-` forms. Undefined when none is there.
 */
export function statedLimit(headers: Record<string, string>): StatedLimit | undefined {
  const h = (name: string) => headers[name] ?? headers[`x-${name}`];
  const out: StatedLimit = {};
  const policy = h('ratelimit-policy');
  if (policy) {
    const quota = param(policy, 'q') ?? Number(/^\s*(\d+)/.exec(policy)?.[1] ?? Number.NaN);
    const window = param(policy, 'w');
    if (quota > 0 && window && window > 0) out.rate = quota / window;
  }
  const combined = headers.ratelimit;
  const remaining = combined ? (param(combined, 'r') ?? param(combined, 'remaining')) : undefined;
  const reset = combined ? (param(combined, 't') ?? param(combined, 'reset')) : undefined;
  out.remaining = remaining ?? (h('ratelimit-remaining') ? Number(h('ratelimit-remaining')) : undefined);
  const resetSeconds = reset ?? (h('ratelimit-reset') ? Number(h('ratelimit-reset')) : undefined);
  if (resetSeconds !== undefined && Number.isFinite(resetSeconds)) out.resetMs = resetSeconds * 1000;
  if (out.remaining !== undefined && !Number.isFinite(out.remaining)) out.remaining = undefined;
  return out.rate === undefined && out.remaining === undefined ? undefined : out;
}

/**
 * Families limited together: the hosted edition spends one budget over several collections, so the families
 * that meet 429s within a minute of each other share one pace. A family limited on its own has its own.
 */
interface LimitGroup {
  families: Set<string>;
  /** Requests per second over the group; undefined while no 429 has set it (a pause alone). */
  rate?: number;
  /** When the group's next request would start at its pace (the cell rate algorithm's theoretical time). */
  paceAt: number;
  /** The tickets of its requests waiting to start, in the order they came (while it is paced). */
  line: Ticket[];
  /** Nothing of the group starts before this (a Retry-After, or a window with nothing left). */
  pausedUntil: number;
  /** When the rate last changed. */
  changedAt: number;
  /** When the group last met a 429. */
  limitedAt: number;
  /** When its requests started over the last second: a second without a 429 raises the pace only if it was spent. */
  started: number[];
  /** The pace its first 429 set: it is never lowered under half of it (see `answered`). */
  firstRate?: number;
  /** Its answers since the pace last fell, and the share of 429s before the fall: whether falling helped. */
  sinceFall?: { shareBefore: number; answers: number; limited: number };
  /** Set when its 429s came whatever the pace (the share found then): unpaced, each 429 holds its own request. */
  notThePace?: number;
  /** Set when a group found unpaced was paced again: its 429s are judged the pace's from then on. */
  paceMatters?: boolean;
}

/** How many of the group's requests started over the last SPENT_MS; older starts are dropped. */
function startsWithin(g: LimitGroup, now: number): number {
  while (g.started.length > 0 && g.started[0] < now - SPENT_MS) g.started.shift();
  return g.started.length;
}

/** A request's place in the pace: taken before it waits for its start, done once it starts or gives up. */
export interface Ticket {
  readonly family: string;
  /** When it was taken: its wait counts from then. */
  readonly takenAt: number;
  /** --max-rate's time for it: it starts no earlier. */
  readonly notBefore: number;
  /** It lets the others go first in its group's line (`take`). */
  readonly yields: boolean;
  /** The line it waits in, once its family's group is paced. */
  line?: Ticket[];
  /**
   * When `startWait` first said it may start: its wait for its turn ends there (what it waits for room in
   * flight after is not the pace's).
   */
  readyAt?: number;
  done: boolean;
}

interface FamilyPace {
  group?: LimitGroup;
  /** When its answers were accepted, over the last MEASURE_MS: what a 429 measures the pace from. */
  accepted: number[];
  /** When its answers were 429, over the last MEASURE_MS: the share a fall of the pace is judged against. */
  refused: number[];
  rateLimited: number;
  waitedMs: number;
}

/** A 429 within this long of another family's joins that family's group. */
const TOGETHER_MS = 60_000;

export class RateLimits {
  private readonly families = new Map<string, FamilyPace>();
  private readonly groups: LimitGroup[] = [];
  /** --max-rate's spacing, over every request. */
  private nextOverallAt = 0;
  private waitedOverallMs = 0;

  constructor(private readonly options: { maxRate?: number; now?: () => number } = {}) {}

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  private family(name: string): FamilyPace {
    let f = this.families.get(name);
    if (!f) {
      f = { accepted: [], refused: [], rateLimited: 0, waitedMs: 0 };
      this.families.set(name, f);
    }
    return f;
  }

  /** The family's group, joined or made: a group limited within the last minute, else one of its own. */
  private groupOf(name: string, f: FamilyPace, now: number): LimitGroup {
    if (f.group) return f.group;
    let g = this.groups.find((group) => now - group.limitedAt < TOGETHER_MS);
    if (!g) {
      g = { families: new Set(), paceAt: 0, line: [], pausedUntil: 0, changedAt: now, limitedAt: now, started: [] };
      this.groups.push(g);
    }
    g.families.add(name);
    f.group = g;
    return g;
  }

  /**
   * The rate a group's answers were accepted at over the measured window (at least over a second); undefined
   * when too few were to tell.
   */
  private acceptedRate(g: LimitGroup, now: number): number | undefined {
    const times = [...g.families].flatMap((name) => this.family(name).accepted).filter((t) => t >= now - MEASURE_MS);
    if (times.length < MEASURABLE_ANSWERS) return undefined;
    return (times.length * 1000) / Math.max(1000, now - Math.min(...times));
  }

  /** The share of the group's answers over the measured window that were 429, and how many were. */
  private refusedShare(g: LimitGroup, now: number): { share: number; refused: number; answers: number } {
    const within = (times: number[]) => times.filter((t) => t >= now - MEASURE_MS).length;
    const families = [...g.families].map((name) => this.family(name));
    const refused = families.reduce((n, f) => n + within(f.refused), 0);
    const answers = refused + families.reduce((n, f) => n + within(f.accepted), 0);
    return { share: answers ? refused / answers : 0, refused, answers };
  }

  /** The pace of a group fell (or was first set): its next answers say whether falling helped. */
  private fell(g: LimitGroup, now: number): void {
    const before = this.refusedShare(g, now);
    g.sinceFall =
      before.refused >= JUDGE_LIMITED && !g.paceMatters
        ? { shareBefore: before.share, answers: 0, limited: 0 }
        : undefined;
  }

  /**
   * Whether the answers since the pace last fell say it did not help: enough of them, and as large a share
   * refused as before the fall, near enough.
   */
  private fallDidNotHelp(g: LimitGroup): boolean {
    const since = g.sinceFall;
    return (
      since !== undefined &&
      since.answers >= JUDGE_AFTER &&
      since.limited >= 2 &&
      since.limited / since.answers >= since.shareBefore * NOT_FALLEN
    );
  }

  /**
   * Paces another client of the target learnt (the suites', for cleanup's client): their families start in one
   * group at that pace, as if its 429 had just been met, rather than meeting the limit again and measuring a
   * pace from the few answers of their first seconds (cleanup's deletes of flows went at 3 a second behind a
   * limit of 20). A group whose 429s came whatever the pace starts so: unpaced, each 429 its request's own,
   * rather than paused at every 429 until it is judged again.
   */
  learnPaces(paces: readonly Pace[]): void {
    const now = this.now();
    for (const { families, rate, notThePace } of paces) {
      if (!(rate > 0 || notThePace !== undefined) || families.some((name) => this.family(name).group)) continue;
      const g: LimitGroup = {
        families: new Set(families),
        ...(notThePace !== undefined ? { notThePace } : { rate, firstRate: rate }),
        paceAt: 0,
        line: [],
        pausedUntil: 0,
        changedAt: now,
        limitedAt: now,
        started: [],
      };
      this.groups.push(g);
      for (const name of families) this.family(name).group = g;
    }
  }

  /**
   * A request to `path` takes its place: in its group's line when the group is paced, after --max-rate's
   * spacing. One that `yields` takes its place behind every other request's, and lets those that come later go
   * before it: a read nothing waits for (a query family's, pulled forward to spend what the others leave of
   * the limit) rather than the exercise whose end the next checks wait for, or a chain of round trips.
   */
  take(path: string, yields = false): Ticket {
    const now = this.now();
    let notBefore = now;
    if (this.options.maxRate) {
      notBefore = Math.max(now, this.nextOverallAt);
      this.nextOverallAt = notBefore + 1000 / this.options.maxRate;
    }
    const ticket: Ticket = { family: routeFamily(path), takenAt: now, notBefore, yields, done: false };
    this.groupOfTicket(ticket);
    return ticket;
  }

  /** The ticket's group, if its family has one; a ticket taken before its group was paced joins its line now. */
  private groupOfTicket(ticket: Ticket): LimitGroup | undefined {
    const g = this.families.get(ticket.family)?.group;
    if (g?.rate && !ticket.line) {
      ticket.line = g.line;
      const before = ticket.yields ? -1 : g.line.findIndex((t) => t.yields);
      if (before < 0) g.line.push(ticket);
      else g.line.splice(before, 0, ticket);
    }
    return g;
  }

  /**
   * How long from now until the ticket may start, as far as can be told: its group's pause, its place in the
   * line at the group's pace, --max-rate. 0 when it may try to start (`start` says for sure).
   */
  startWait(ticket: Ticket): number {
    const now = this.now();
    let at = ticket.notBefore;
    const g = this.groupOfTicket(ticket);
    if (g) {
      at = Math.max(at, g.pausedUntil);
      if (g.rate) at = Math.max(at, g.paceAt - BURST_MS) + (g.line.indexOf(ticket) * 1000) / g.rate;
    }
    if (at <= now) ticket.readyAt ??= now;
    return Math.max(0, at - now);
  }

  /**
   * Whether the request may start now, its room in flight found: its group is not paused, and a paced group's
   * starts keep its pace. When it may, its start is counted and the ticket is done.
   */
  start(ticket: Ticket): boolean {
    const now = this.now();
    if (now < ticket.notBefore) return false;
    const g = this.groupOfTicket(ticket);
    if (g && now < g.pausedUntil) return false;
    if (g?.rate) {
      if (now < g.paceAt - BURST_MS) return false;
      g.paceAt = Math.max(g.paceAt, now) + 1000 / g.rate;
      g.started.push(now);
      startsWithin(g, now);
    }
    if (g) this.family(ticket.family).waitedMs += (ticket.readyAt ?? now) - ticket.takenAt;
    else this.waitedOverallMs += ticket.notBefore - ticket.takenAt;
    this.leave(ticket);
    return true;
  }

  /** A ticket whose request starts, or gives up waiting (the run stopped sending): it leaves its line. */
  leave(ticket: Ticket): void {
    if (ticket.done) return;
    ticket.done = true;
    const i = ticket.line?.indexOf(ticket) ?? -1;
    if (i >= 0) ticket.line!.splice(i, 1);
  }

  /** An answer of a request to `path`: a 429 pauses and paces its group; a stated limit sets the pace. */
  answered(path: string, status: number, headers: Record<string, string>): void {
    const now = this.now();
    const name = routeFamily(path);
    const f = this.family(name);
    const stated = statedLimit(headers);
    if (f.group?.sinceFall && status !== 0) {
      f.group.sinceFall.answers++;
      if (status === 429) f.group.sinceFall.limited++;
    }
    if (stated?.rate) {
      const g = this.groupOf(name, f, now);
      g.rate = stated.rate;
      g.changedAt = now;
    }
    if (stated?.remaining === 0 && stated.resetMs !== undefined) {
      const g = this.groupOf(name, f, now);
      g.pausedUntil = Math.max(g.pausedUntil, now + Math.min(stated.resetMs, RETRY_AFTER_CAP_MS));
    }
    if (status === 429) this.refused(name, f, headers, stated, now);
    else if (status !== 0) this.accepted(f, stated, now);
  }

  /**
   * An answer that was not a 429. Every second without a 429 the pace rises a little: a limit that was raised, or
   * set low, is found again. Only while the pace is spent (requests started at it over the last second): a second
   * without a 429 at less than the pace says nothing of the limit, and a pace raised through the quiet end of the
   * suites, or while requests waited for room in flight rather than for the pace, sent cleanup's deletes into the
   * limit at once.
   */
  private accepted(f: FamilyPace, stated: StatedLimit | undefined, now: number): void {
    f.accepted.push(now);
    while (f.accepted.length && f.accepted[0] < now - MEASURE_MS) f.accepted.shift();
    const g = f.group;
    if (!g?.rate || stated?.rate || now <= g.changedAt) return;
    if (startsWithin(g, now) >= (SPENT_SHARE * g.rate * SPENT_MS) / 1000)
      g.rate *= (1 + INCREASE_PER_SECOND) ** ((now - g.changedAt) / 1000);
    g.changedAt = now;
  }

  /** A 429: the group paused for its Retry-After, and paced, or judged not the pace's (notThePace). */
  private refused(
    name: string,
    f: FamilyPace,
    headers: Record<string, string>,
    stated: StatedLimit | undefined,
    now: number,
  ): void {
    f.rateLimited++;
    f.refused.push(now);
    while (f.refused.length && f.refused[0] < now - MEASURE_MS) f.refused.shift();
    const joins = f.group === undefined;
    const g = this.groupOf(name, f, now);
    if (g.notThePace !== undefined && !stated?.rate) {
      g.limitedAt = now;
      if (!this.refusedAgainAsALimit(g, now)) return;
    }
    // A family joining a group whose fall is being judged: its 429 is one of the answers judged.
    if (joins && g.sinceFall) {
      g.sinceFall.answers++;
      g.sinceFall.limited++;
    }
    if (this.fallDidNotHelp(g) && !stated?.rate) {
      // The share refused did not fall with the pace: the 429s are not the pace's. Unpaced and unpaused, the
      // group's requests go on; the one that met a 429 waits its own Retry-After (ownWaitMs). Judged at any
      // 429, in a pause too: paused at every 429, a group refused a share whatever its pace crawls.
      g.notThePace = g.sinceFall!.limited / g.sinceFall!.answers;
      g.sinceFall = undefined;
      g.rate = undefined;
      g.pausedUntil = now;
      g.changedAt = now;
      return;
    }
    const wait = Math.min(retryAfterMs(headers['retry-after'], now) ?? RETRY_AFTER_DEFAULT_MS, RETRY_AFTER_CAP_MS);
    const inPause = now < g.pausedUntil;
    g.pausedUntil = Math.max(g.pausedUntil, now + wait);
    g.limitedAt = now;
    if (stated?.rate || (inPause && !joins)) return;
    this.paceLower(g, joins, now);
  }

  /**
   * A 429 outside a pause, or a family that joins the group (it spent the group's budget too): the group was
   * sent faster than its limit. Unpaced, or with a family more, its pace becomes a little under the rate the
   * group's answers were accepted at just before (the limit's own rate, once its budget was spent); paced, a
   * tenth under itself. A family that joins while a fall is judged waits for the judgement. Never under half
   * the pace the first 429 set: a server that refuses a share of requests whatever their rate (a throttle, not a
   * limit) would otherwise have the pace fall with every 429, towards nothing.
   */
  private paceLower(g: LimitGroup, joins: boolean, now: number): void {
    if (g.rate === undefined || (joins && !g.sinceFall)) {
      const accepted = this.acceptedRate(g, now);
      if (accepted === undefined) return;
      g.rate = Math.max(0.1, accepted * DECREASE);
    } else if (g.sinceFall && g.sinceFall.answers < JUDGE_AFTER) return;
    else g.rate *= LATER_DECREASE;
    g.firstRate ??= g.rate;
    g.rate = Math.max(g.rate, g.firstRate / 2);
    g.changedAt = now;
    this.fell(g, now);
  }

  /**
   * A 429 of a group found unpaced: whether the share of its answers refused over the measured window has
   * risen well past the share found then (a limit the pace does matter to, after all). Then it is paced again,
   * for good, and the 429 is taken as any other.
   */
  private refusedAgainAsALimit(g: LimitGroup, now: number): boolean {
    const recent = this.refusedShare(g, now);
    if (recent.answers < JUDGE_AFTER * 2) return false;
    if (recent.share < Math.max(RISEN_AT_LEAST, g.notThePace! * RISEN)) return false;
    g.notThePace = undefined;
    g.paceMatters = true;
    g.sinceFall = undefined;
    g.pausedUntil = now;
    return true;
  }

  /**
   * How long the request that met this 429 waits before it is sent again, where its group's 429s are not the
   * pace's: its own `Retry-After` (capped). 0 where the group's pause holds it (as any other of the group).
   */
  ownWaitMs(path: string, headers: Record<string, string>): number {
    const f = this.families.get(routeFamily(path));
    if (f?.group?.notThePace === undefined) return 0;
    const wait = Math.min(
      retryAfterMs(headers['retry-after'], this.now()) ?? RETRY_AFTER_DEFAULT_MS,
      RETRY_AFTER_CAP_MS,
    );
    f.waitedMs += wait;
    return wait;
  }

  /** What holds the run back now: the paces, the longest pause left, the families unpaced for 429s not the pace's. */
  holding(): Pick<PacingStatus, 'rateLimited' | 'paces' | 'pausedForMs' | 'notThePace'> {
    const now = this.now();
    let rateLimited = 0;
    for (const f of this.families.values()) rateLimited += f.rateLimited;
    return {
      rateLimited,
      paces: this.groups.flatMap((g) =>
        g.rate ? [{ families: [...g.families], rate: Number(g.rate.toFixed(2)) }] : [],
      ),
      pausedForMs: Math.max(0, ...this.groups.map((g) => g.pausedUntil - now)),
      notThePace: this.groups.flatMap((g) => (g.notThePace !== undefined ? [...g.families] : [])),
    };
  }

  summary(): PacingSummary {
    const byFamily: PacingSummary['byFamily'] = {};
    let rateLimited = 0;
    let waitedMs = this.waitedOverallMs;
    for (const [name, f] of this.families) {
      rateLimited += f.rateLimited;
      waitedMs += f.waitedMs;
      const rate = f.group?.rate;
      if (f.rateLimited || f.waitedMs || rate)
        byFamily[name] = {
          rateLimited: f.rateLimited,
          waitedMs: Math.round(f.waitedMs),
          ...(rate ? { rate: Number(rate.toFixed(2)) } : {}),
          ...(f.group?.notThePace !== undefined ? { notThePace: true } : {}),
        };
    }
    const paces = this.groups.flatMap((g): Pace[] =>
      g.rate
        ? [{ families: [...g.families], rate: g.rate }]
        : g.notThePace !== undefined
          ? [{ families: [...g.families], rate: 0, notThePace: g.notThePace }]
          : [],
    );
    return {
      rateLimited,
      waitedMs: Math.round(waitedMs),
      byFamily,
      ...(this.options.maxRate ? { maxRate: this.options.maxRate } : {}),
      ...(paces.length ? { paces } : {}),
    };
  }
}

/** Two summaries as one (the suites' client and cleanup's). */
export function joinedPacing(a: PacingSummary, b: PacingSummary): PacingSummary {
  const byFamily: PacingSummary['byFamily'] = { ...a.byFamily };
  for (const [name, f] of Object.entries(b.byFamily)) {
    const seen = byFamily[name];
    byFamily[name] = seen
      ? {
          rateLimited: seen.rateLimited + f.rateLimited,
          waitedMs: seen.waitedMs + f.waitedMs,
          rate: f.rate ?? seen.rate,
          ...(f.notThePace || seen.notThePace ? { notThePace: true } : {}),
        }
      : f;
  }
  const paces = b.paces ?? a.paces;
  return {
    rateLimited: a.rateLimited + b.rateLimited,
    waitedMs: a.waitedMs + b.waitedMs,
    byFamily,
    ...(a.maxRate ? { maxRate: a.maxRate } : {}),
    ...(paces ? { paces } : {}),
  };
}
