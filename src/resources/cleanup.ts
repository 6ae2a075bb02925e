/**
 * Delete exactly what the ledger says the run created, newest first (children before their parents),
 * and say what could not be deleted.
 */
import type { HttpClient } from '../http/client.js';
import type { Results } from '../report/results.js';
import { Ledger } from './ledger.js';

export async function cleanup(client: HttpClient, ledgerFile: string): Promise<NonNullable<Results['cleanup']>> {
  const entries = Ledger.read(ledgerFile).reverse();
  const report: NonNullable<Results['cleanup']> = { deleted: 0, alreadyGone: 0, failed: [], notDeletable: [] };
  for (const entry of entries) {
    if (!entry.deletePath) {
      report.notDeletable.push({ collection: entry.collection, id: entry.id });
      continue;
    }
    const ex = await client.send({ method: 'DELETE', template: entry.deleteTemplate?.replace(/^DELETE /, '') ?? entry.collection, path: entry.deletePath });
    if (ex.status >= 200 && ex.status < 300) report.deleted++;
    // Deleting a parent deletes its children with it; a test may have deleted its own object already.
    else if (ex.status === 404) report.alreadyGone++;
    else report.failed.push({ collection: entry.collection, id: entry.id, reason: ex.status ? `${ex.status}: ${ex.body.slice(0, 200)}` : (ex.error ?? 'no answer') });
  }
  return report;
}
