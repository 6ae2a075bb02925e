/**
 * allure-vitest's reporter, writing to `<out>/allure-results` (a --reporter flag cannot pass
 * options). The labels, links and attachments come from the tests themselves (adapters/vitest/allureLabels.ts).
 */
import path from 'node:path';
import AllureVitestReporter from 'allure-vitest/reporter';
import { readWorkerConfig } from '../config/worker.js';

export default class ConformanceAllureReporter extends AllureVitestReporter {
  constructor() {
    super({ resultsDir: path.join(readWorkerConfig()?.outDir ?? 'reports', 'allure-results') });
  }
}
