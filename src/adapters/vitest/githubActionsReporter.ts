/**
 * In GitHub Actions, vitest's own reporter turns each failed check into an error annotation on the run: the
 * failures the gate counts (report/junit.ts: a SHOULD or MAY failure passes its test). Those it does not count
 * become warning annotations here, so that they stay on the run's page without marking it red. Its job
 * summary is off: the step summary is our summary.md (written by the CLI), which counts verdicts as every
 * other report does, where vitest's would count test cases.
 */
import { GithubActionsReporter } from 'vitest/reporters';
import type { ReporterOptions } from '../../config/worker.js';
import { gates } from '../../report/results.js';
import './taskMeta.js';

/** A workflow command's message: newlines and the characters GitHub reads as syntax escaped, as vitest does. */
const escaped = (text: string) => text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');

export default class Annotations extends GithubActionsReporter {
  private readonly gateShould: boolean;

  constructor({ start }: ReporterOptions = {}) {
    super({ jobSummary: { enabled: false } });
    this.gateShould = start?.gateShould ?? false;
  }

  override onTestRunEnd(...args: Parameters<GithubActionsReporter['onTestRunEnd']>): void {
    super.onTestRunEnd(...args);
    const [testModules] = args;
    for (const module of testModules)
      for (const test of module.children.allTests()) {
        const r = test.meta().conformance;
        if (r?.status !== 'failed' || gates(r.level, this.gateShould)) continue;
        process.stdout.write(
          `::warning title=${escaped(`[${r.level}] ${r.id} ${r.operation}`).replace(/[:,]/g, ' ')}::${escaped(`${r.title}\n${r.message ?? ''}`)}\n`,
        );
      }
  }
}
