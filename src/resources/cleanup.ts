/**
 * Delete exactly what the ledger says the run created, newest first (children before their parents),
 * and say what could not be deleted.
 */
import { is2xx, type Send } from '../openapi/request.js';
import { Ledger } from './ledger.js';

export interface CleanupSummary {
  deleted: number;
  alreadyGone: number;
  failed: Array<{ collection: string; id: string; reason: string }>;
  notDeletable: Array<{ collection: string; id: string }>;
}

export async function cleanup(send: Send, ledgerFile: string): Promise<CleanupSummary> {
  const entries = Ledger.read(ledgerFile).reverse();
  const report: CleanupSummary = { deleted: 0, alreadyGone: 0, failed: [], notDeletable: [] };
  for (const entry of entries) {
    if (!entry.deletePath) {
      report.notDeletable.push({ collection: entry.collection, id: entry.id });
      continue;
    }
    const answer = await send({
      method: 'DELETE',
      template: entry.deleteTemplate?.replace(/^DELETE /, '') ?? entry.collection,
      path: entry.deletePath,
    });
    if (is2xx(answer)) report.deleted++;
    // Deleting a parent deletes its children with it; a test may have deleted its own object already.
    else if (answer.status === 404) report.alreadyGone++;
    else
      report.failed.push({
        collection: entry.collection,
        id: entry.id,
        reason: answer.status ? `${answer.status}: ${answer.body.slice(0, 200)}` : (answer.error ?? 'no answer'),
      });
  }
  return report;
}
