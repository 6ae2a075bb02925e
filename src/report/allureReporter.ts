/**
 * allure-vitest's reporter, writing to `<CONFORMANCE_OUT>/allure-results` (a --reporter flag cannot pass
 * options). The labels, links and attachments come from the tests themselves (run/allureLabels.ts).
 */
import path from 'node:path';
import AllureVitestReporter from 'allure-vitest/reporter';

export default class ConformanceAllureReporter extends AllureVitestReporter {
  constructor() {
    super({ resultsDir: path.join(process.env.CONFORMANCE_OUT || 'reports', 'allure-results') });
  }
}
