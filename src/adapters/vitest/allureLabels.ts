/**
 * What Allure shows of a check: epic = family, feature = collection, story = check id, severity from the
 * level, the level as a tag and a label, the verdict as a label, a link to the clause, and the exchanges
 * that prove a failure as attachments (redacted already).
 */
import * as allure from 'allure-js-commons';
import { clauseAnchor } from '../../checks/core/clauses.js';
import type { Level } from '../../checks/core/check.js';
import type { CheckResult } from '../../report/results.js';

const SEVERITY: Record<Level, string> = {
  MUST: allure.Severity.CRITICAL,
  SHOULD: allure.Severity.NORMAL,
  MAY: allure.Severity.MINOR,
};

export async function labelForAllure(result: CheckResult): Promise<void> {
  await allure.epic(result.family);
  await allure.feature(result.collection);
  await allure.story(result.id);
  await allure.severity(SEVERITY[result.level]);
  // The level and the verdict as results.json has them: Allure's statuses fold xfail into skipped.
  await allure.tag(result.level);
  await allure.label('level', result.level);
  await allure.label('verdict', result.status);
  await allure.label('operation', result.operation);
  await allure.link(clauseAnchor(result.clause) ?? 'openapi.json', `clause ${result.clause}`);
  if (result.message) await allure.description(`${result.title}\n\n${result.message}`);
  for (const [i, ex] of result.evidence.entries())
    await allure.attachment(
      `exchange ${i + 1}: ${ex.request.method} ${ex.response.status}`,
      JSON.stringify(ex, null, 2),
      { contentType: allure.ContentType.JSON },
    );
  if (result.repro) await allure.attachment('curl', result.repro, { contentType: allure.ContentType.TEXT });
}
