/**
 * Progress during a long run: the time since the run started, the family being checked (of how many), its
 * operations and checks done out of its total, and failures so far. For a person at a terminal, one line
 * rewritten in place; in CI or a pipe, where a rewritten line is noise, a plain line when a family starts
 * and at most every 30 s within one, so that a CI log shows the run alive and where it is. The CLI adds this
 * reporter unless the run is quiet.
 */
import path from 'node:path';
import type { Reporter, TestCase, TestModule, TestSpecification } from 'vitest/node';
import { readWorkerConfig } from '../config/worker.js';
import './taskMeta.js';

/** In CI or a pipe, a line within a family at most this often. */
const PLAIN_EVERY_MS = 30_000;

export default class ProgressReporter implements Reporter {
  private families = 0;
  private familyIndex = 0;
  private family = '';
  private total = 0;
  private done = 0;
  private operations = new Set<string>();
  private operationsDone = new Set<string>();
  private failed = 0;
  private lastDraw = 0;

  private readonly out = process.stderr;
  /** A line rewritten in place (a person at a terminal), or plain lines (CI, a pipe). */
  private readonly inPlace: boolean;
  private readonly startedAt: number;

  constructor() {
    const config = readWorkerConfig();
    this.inPlace = Boolean(this.out.isTTY) && !config?.ci;
    this.startedAt = config?.startedAt ? Date.parse(config.startedAt) : Date.now();
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
    this.operations = new Set(tests.map((t) => t.name.split(' ').slice(1).join(' ')));
    this.operationsDone = new Set();
    this.draw(true);
  }

  onTestCaseResult(test: TestCase): void {
    this.done++;
    this.operationsDone.add(test.name.split(' ').slice(1).join(' '));
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
    const line = `conformance: ${elapsed} s [${this.familyIndex}/${this.families} ${this.family}] operations ${this.operationsDone.size}/${this.operations.size} · checks ${this.done}/${this.total} · ${this.failed} failed so far`;
    if (this.inPlace) this.out.write(`\r\x1b[2K${line.slice(0, (this.out.columns || 120) - 1)}`);
    else this.out.write(`${line}\n`);
  }
}
