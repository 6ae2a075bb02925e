/**
 * In GitHub Actions, vitest's own reporter turns each failed check into an annotation on the run. Its job
 * summary is off: the step summary is our summary.md (written by the CLI), which counts verdicts as every
 * other report does, where vitest's would count test cases.
 */
import { GithubActionsReporter } from 'vitest/reporters';

export default class Annotations extends GithubActionsReporter {
  constructor() {
    super({ jobSummary: { enabled: false } });
  }
}
