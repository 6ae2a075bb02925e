/**
 * allure-vitest's reporter, writing to `<out>/allure-results` (the run's folder, from the options the CLI
 * hands it). The labels, links and attachments come from the tests themselves (adapters/vitest/allureLabels.ts).
 */
import path from 'node:path';
import AllureVitestReporter from 'allure-vitest/reporter';
import type { ReporterOptions } from '../../config/worker.js';

export default class ConformanceAllureReporter extends AllureVitestReporter {
  constructor({ start }: ReporterOptions = {}) {
    super({ resultsDir: path.join(start?.outDir ?? 'reports', 'allure-results') });
  }
}
