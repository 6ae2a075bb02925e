/**
 * Progress during a long run: the time since the run started, the family being checked (of how many) and its
 * checks done out of its total, the checks judged and the failures so far, the requests answered out of those
 * the run expects to send, and an estimate of the time left at the pace so far. For a person at a terminal, one line
 * rewritten in place; in CI or a pipe, where a rewritten line is noise, a plain line when a family starts
 * and at most every 30 s within one, so that a CI log shows the run alive and where it is. The CLI adds this
 * reporter unless the run is quiet.
 */
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Reporter, TestCase, TestModule, TestSpecification } from 'vitest/node';
import { readWorkerConfig, runFiles } from '../config/worker.js';
import './taskMeta.js';

/** In CI or a pipe, a line within a family at most this often. */
const PLAIN_EVERY_MS = 30_000;

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

  private readonly out = process.stderr;
  /** A line rewritten in place (a person at a terminal), or plain lines (CI, a pipe). */
  private readonly inPlace: boolean;
  private readonly startedAt: number;

  constructor() {
    const config = readWorkerConfig();
    this.inPlace = Boolean(this.out.isTTY) && !config?.ci;
    this.startedAt = config?.startedAt ? Date.parse(config.startedAt) : Date.now();
    if (config?.runDir) {
      const files = runFiles(config.runDir);
      this.log = new ExchangeLogTail(files.exchanges);
      this.expectedFile = files.expectedExchanges;
    }
  }

  onTestRunStart(specifications: ReadonlyArray<TestSpecification>): void {
    this.families = specifications.length;
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
    if (this.inPlace) this.out.write('\r\x1b[2K');
  }

  private draw(force: boolean): void {
    const now = Date.now();
    if (!force && now - this.lastDraw < (this.inPlace ? 200 : PLAIN_EVERY_MS)) return;
    this.lastDraw = now;
    const elapsed = Math.round((now - this.startedAt) / 1000);
    const parts = [
      `conformance: ${elapsed} s [${this.familyIndex}/${this.families} ${this.family}] ${count(this.done)}/${count(this.total)} checks`,
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
    if (this.inPlace) this.out.write(`\r\x1b[2K${line.slice(0, (this.out.columns || 120) - 1)}`);
    else this.out.write(`${line}\n`);
  }
}
