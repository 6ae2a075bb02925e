/**
 * Progress on a terminal during a long run: the family being checked, its operations and checks done out
 * of its total, and failures so far, on one line rewritten in place. The CLI adds this reporter only when
 * stderr is a TTY and the run is not in CI, so that logs and CI output stay quiet.
 */
import path from 'node:path';
import type { Reporter, TestCase, TestModule, TestSpecification } from 'vitest/node';
import './taskMeta.js';

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
    this.out.write('\r\x1b[2K');
  }

  private draw(force: boolean): void {
    const now = Date.now();
    if (!force && now - this.lastDraw < 200) return;
    this.lastDraw = now;
    const line = `conformance: [${this.familyIndex}/${this.families} ${this.family}] operations ${this.operationsDone.size}/${this.operations.size} · checks ${this.done}/${this.total} · ${this.failed} failed so far`;
    this.out.write(`\r\x1b[2K${line.slice(0, (this.out.columns || 120) - 1)}`);
  }
}
