/** What a run recorded in its ledger and left on the target: the proof that its cleanup deleted everything. */
import { readFileSync } from 'node:fs';
import { isEntry, type LedgerEntry, type LedgerLine } from '../../src/resources/ledger.js';

/** The run's ledger (its `.run/ledger.jsonl`), and each recorded object the target still holds, with its status. */
export async function objectsLeft(
  base: string,
  ledgerFile: string,
): Promise<{ ledger: LedgerEntry[]; left: string[] }> {
  // Read strictly, not as cleanup reads it (Ledger.read skips a cut line): an object cleanup could not see fails here.
  // The lines that say the run deleted an object itself (Ledger.recordDeleted) name no object of their own.
  const ledger = readFileSync(ledgerFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as LedgerLine)
    .filter(isEntry);
  const left: string[] = [];
  for (const entry of ledger.filter((e) => e.deletePath)) {
    let res = await fetch(`${base}${entry.deletePath}`);
    // Schedules and workers have no GET of their own: a second DELETE says whether they still exist.
    if (res.status === 405) res = await fetch(`${base}${entry.deletePath}`, { method: 'DELETE' });
    if (res.status !== 404) left.push(`${entry.deletePath} → ${res.status}`);
  }
  return { ledger, left };
}
