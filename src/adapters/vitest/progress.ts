/**
 * Progress during a long run: the time since the run started, the family being checked (of how many) and its
 * checks done out of its total, the checks judged and the failures so far, the requests answered out of those
 * the run expects to send, and an estimate of the time left at the pace so far. For a person at a terminal, one line
 * rewritten in place; in CI or a pipe, where a rewritten line is noise, a plain line when a family starts
 * and every 15 s within one, whether or not a check ended meanwhile (a run waiting on its requests is drawn
 * too), so that a CI log shows the run alive and where it is. Whenever the run is held back, a line says by
 * what and how much: a rate limit's pace and its 429s, a Retry-After waited out, 429s that come whatever the
 * pace, the server answering 503, the server's own answer time (config/pacingStatus.ts, which the suites'
 * client writes). The CLI adds this reporter unless the run is quiet.
 */
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Reporter, TestCase, TestModule, TestSpecification } from 'vitest/node';
import type { PacingStatus } from '../../config/pacingStatus.js';
import { runFiles } from '../../config/runFolder.js';
import type { ReporterOptions } from '../../config/worker.js';
import './taskMeta.js';

/** In CI or a pipe, a line within a family this often. */
const PLAIN_EVERY_MS = 15_000;
/** How often the reporter looks, whether or not a check ended. */
const TICK_MS = 1000;
/** An answer time this long, as the median of the last answers, holds a run back by itself. */
const SLOW_ANSWER_MS = 1000;

/** Before this many answers, or this long after the first, the pace says too little to estimate from. */
const ESTIMATE_AFTER = { requests: 100, ms: 3_000 };

/**
 * The exchange log as the suites' thread appends to it: how many exchanges were answered, and when the first
 * and the latest were (`at`, the client's clock), so that the pace is the suites' own. Only the bytes added
 * since the last look are read (the log reaches tens of MB).
 */
export class ExchangeLogTail {
  private offset = 0;
  answered = 0;
  firstAt?: number;
  lastAt?: number;
  constructor(private readonly file: string) {}

  update(): this {
    if (!existsSync(this.file)) return this;
    const size = statSync(this.file).size;
    if (size <= this.offset) return this;
    const chunk = Buffer.alloc(Math.min(size - this.offset, 4 << 20));
    const fd = openSync(this.file, 'r');
    let read = 0;
    try {
      read = readSync(fd, chunk, 0, chunk.length, this.offset);
    } finally {
      closeSync(fd);
    }
    // Whole lines only: a line being written is read on the next look.
    const end = chunk.lastIndexOf(0x0a, read - 1);
    if (end < 0) return this;
    const lines = chunk.subarray(0, end).toString('utf8').split('\n');
    this.offset += end + 1;
    this.answered += lines.length;
    this.firstAt ??= atOf(lines[0]);
    this.lastAt = atOf(lines.at(-1)!) ?? this.lastAt;
    return this;
  }

  /** The milliseconds from the first answer to the latest. */
  get spanMs(): number {
    return this.firstAt !== undefined && this.lastAt !== undefined ? this.lastAt - this.firstAt : 0;
  }
}

function atOf(line: string): number | undefined {
  try {
    const at = (JSON.parse(line) as { at?: unknown }).at;
    return typeof at === 'number' ? at : undefined;
  } catch {
    return undefined;
  }
}

/** The time left at the pace so far, or undefined while the pace is not known or the run went past its expectation. */
export function timeLeftMs(answered: number, expected: number | undefined, sinceFirstMs: number): number | undefined {
  if (!expected || answered < ESTIMATE_AFTER.requests || sinceFirstMs < ESTIMATE_AFTER.ms || answered >= expected)
    return undefined;
  return ((expected - answered) * sinceFirstMs) / answered;
}

const count = (n: number) => n.toLocaleString('en-US');

/**
 * What holds the run back, in a line, from the client's status now and at the last line (its counts then):
 * undefined while nothing does.
 */
export function heldBack(
  now: PacingStatus,
  before?: Pick<PacingStatus, 'rateLimited' | 'unavailable'>,
): { line: string; kinds: string[] } | undefined {
  const new429 = now.rateLimited - (before?.rateLimited ?? 0);
  const new503 = now.unavailable - (before?.unavailable ?? 0);
  const parts: string[] = [];
  // What kinds of hold there are, the passing ones left out (a pause of a second, a 429 now and then): a new
  // kind is said at once.
  const kinds: string[] = [];
  if (now.notThePace.length) kinds.push('unpaced');
  else if (now.paces.length) kinds.push('paced');
  if (now.atServer < now.concurrency) kinds.push('503');
  if (now.medianAnswerMs >= SLOW_ANSWER_MS) kinds.push('slow');
  if (now.notThePace.length)
    parts.push(
      `429s whatever the pace on ${someOf(now.notThePace)} (${count(now.rateLimited)} in all, ${count(new429)} since the last line): unpaced, each refused request waits its own Retry-After and the others go on`,
    );
  else if (now.paces.length)
    parts.push(
      `paced at ${now.paces.map((p) => `${p.rate}/s (${someOf(p.families)})`).join(' and ')} after ${count(now.rateLimited)} answer(s) 429${new429 ? `, ${count(new429)} since the last line` : ''}`,
    );
  else if (new429) parts.push(`${count(new429)} answer(s) 429 since the last line`);
  if (now.pausedForMs > 0) parts.push(`waiting out Retry-After (${Math.ceil(now.pausedForMs / 1000)} s left)`);
  if (new503)
    parts.push(
      `the server answered 503 ${count(new503)} time(s) since the last line: ${now.atServer} of ${now.concurrency} requests at it at once, writes in turn`,
    );
  else if (now.atServer < now.concurrency)
    parts.push(`${now.atServer} of ${now.concurrency} requests at the server at once, after its 503s`);
  if (now.medianAnswerMs >= SLOW_ANSWER_MS)
    parts.push(
      `the server's own answer time: ${(now.medianAnswerMs / 1000).toFixed(1)} s (median of the last answers)`,
    );
  return parts.length ? { line: `held back: ${parts.join('; ')}`, kinds } : undefined;
}

/** Route families, the first few by name. */
const someOf = (families: string[]) =>
  families.length > 4 ? `${families.slice(0, 3).join(', ')} and ${families.length - 3} more` : families.join(', ');

function readStatus(file: string | undefined): PacingStatus | undefined {
  if (!file || !existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as PacingStatus;
  } catch {
    return undefined;
  }
}

/** A family's checks: their number as it starts, then how many of them are judged (`1,200/2,394 checks`). */
export const familyChecks = (judged: number, total: number): string =>
  judged === 0 ? `${count(total)} checks` : `${count(judged)}/${count(total)} checks`;

export default class ProgressReporter implements Reporter {
  private families = 0;
  private familyIndex = 0;
  private family = '';
  private total = 0;
  private done = 0;
  private failed = 0;
  private judged = 0;
  private lastDraw = 0;
  private readonly log?: ExchangeLogTail;
  private readonly expectedFile?: string;
  private expected?: number;
  private readonly statusFile?: string;
  /** The client's counts at the last line, and the kinds of hold said so far. */
  private heldAt?: Pick<PacingStatus, 'rateLimited' | 'unavailable'>;
  private readonly kindsSaid = new Set<string>();
  private timer?: ReturnType<typeof setInterval>;

  private readonly out = process.stderr;
  /** A line rewritten in place (a person at a terminal), or plain lines (CI, a pipe). */
  private readonly inPlace: boolean;
  private readonly startedAt: number;

  constructor({ start: config }: ReporterOptions = {}) {
    this.inPlace = Boolean(this.out.isTTY) && !config?.ci;
    this.startedAt = config?.startedAt ? Date.parse(config.startedAt) : Date.now();
    if (config?.runDir) {
      const files = runFiles(config.runDir);
      this.log = new ExchangeLogTail(files.exchanges);
      this.expectedFile = files.expectedExchanges;
      this.statusFile = files.pacingStatus;
    }
  }

  onTestRunStart(specifications: ReadonlyArray<TestSpecification>): void {
    this.families = specifications.length;
    // A run waiting on its requests ends no check: it is drawn all the same, once its first family started.
    this.timer = setInterval(() => this.familyIndex > 0 && this.draw(false, true), TICK_MS);
    this.timer.unref();
  }

  onTestModuleCollected(module: TestModule): void {
    this.familyIndex++;
    this.family = path.basename(module.moduleId).replace(/\.test\.ts$/, '');
    const tests = [...module.children.allTests()];
    this.total = tests.length;
    this.done = 0;
    this.draw(true);
  }

  onTestCaseResult(test: TestCase): void {
    this.done++;
    this.judged++;
    const status = test.meta().conformance?.status;
    if (status === 'failed' || status === 'xpass' || status === 'error') this.failed++;
    this.draw(false);
  }

  onTestRunEnd(): void {
    clearInterval(this.timer);
    if (this.inPlace) this.out.write('\r\x1b[2K');
  }

  /**
   * A line, when one is due (`force`, or the time since the last), or on the timer's `tick` when a kind of hold
   * not said before appeared. The client's status is read only then: not on every check that ends.
   */
  private draw(force: boolean, tick = false): void {
    const now = Date.now();
    const due = force || now - this.lastDraw >= (this.inPlace ? 200 : PLAIN_EVERY_MS);
    if (!due && !tick) return;
    const status = readStatus(this.statusFile);
    const hold = status && heldBack(status, this.heldAt);
    const held = hold?.line;
    // A kind of hold not said before is said at once; one that goes on, with each line.
    const newKinds = hold?.kinds.filter((k) => !this.kindsSaid.has(k)) ?? [];
    const newHold = newKinds.length > 0;
    if (!due && !newHold) return;
    this.lastDraw = now;
    for (const k of newKinds) this.kindsSaid.add(k);
    if (status) this.heldAt = { rateLimited: status.rateLimited, unavailable: status.unavailable };
    const elapsed = Math.round((now - this.startedAt) / 1000);
    const parts = [
      `conformance: ${elapsed} s [${this.familyIndex}/${this.families} ${this.family}] ${familyChecks(this.done, this.total)}`,
      `${count(this.judged)} judged, ${count(this.failed)} failed`,
    ];
    const answered = this.log?.update().answered ?? 0;
    if (this.log && answered > 0) {
      if (this.expected === undefined && this.expectedFile && existsSync(this.expectedFile))
        this.expected = Number(readFileSync(this.expectedFile, 'utf8')) || undefined;
      parts.push(`${count(answered)}${this.expected ? ` of ~${count(this.expected)}` : ''} requests`);
      const left = timeLeftMs(answered, this.expected, this.log.spanMs);
      if (left !== undefined) parts.push(`about ${Math.max(1, Math.round(left / 1000))} s left`);
    }
    const line = parts.join(' · ');
    if (this.inPlace) {
      // A hold is kept above the line drawn in place: a person reads why the run is slow.
      if (held && newHold) this.out.write(`\r\x1b[2Kconformance: ${held}\n`);
      this.out.write(`\r\x1b[2K${line.slice(0, (this.out.columns || 120) - 1)}`);
    } else this.out.write(`${line}\n${held ? `conformance: ${held}\n` : ''}`);
  }
}
