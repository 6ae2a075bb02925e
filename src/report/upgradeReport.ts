/**
 * `conformance upgrade`'s part of a report: per collection of the corpus, the objects written through the first
 * release, read back through the second after its migration, lost, and the fields that changed; the fields not
 * compared, and why.
 */
import { esc } from './escape.js';
import type { CollectionSurvival, UpgradeReport } from './results.js';

const shown = (value: unknown) => (value === undefined ? 'absent' : JSON.stringify(value)).slice(0, 120);

/** The heading line of the upgrade: which releases, which database, and the migration's time. */
const headline = (u: UpgradeReport) =>
  `upgrade: prefect ${u.from} → ${u.to} on ${u.database}; \`${u.migration.command}\` took ${u.migration.seconds} s`;

/** What was not compared anywhere, once: a field and why, over every collection that masked it. */
function maskedFields(u: UpgradeReport): string[] {
  const byField = new Map<string, { why: string; collections: string[] }>();
  for (const c of u.collections)
    for (const m of c.masked) {
      const row = byField.get(`${m.field} ${m.why}`) ?? { why: m.why, collections: [] };
      row.collections.push(c.collection);
      byField.set(`${m.field} ${m.why}`, row);
    }
  return [...byField].map(([key, { why, collections }]) => `${key.split(' ')[0]} (${why}): ${collections.join(', ')}`);
}

const changeLine = (c: CollectionSurvival, f: CollectionSurvival['changed'][number]) =>
  `${f.excusedBy ? 'known' : 'CHANGED'} ${c.collection} ${f.id} ${f.field}: ${shown(f.before)} → ${shown(f.after)}${f.excusedBy ? ` (baseline: ${f.excusedBy})` : ''}`;

const lossLine = (c: CollectionSurvival, l: CollectionSurvival['lost'][number]) =>
  `${l.excusedBy ? 'known' : 'LOST'} ${c.collection} ${l.id}: ${l.how}${l.excusedBy ? ` (baseline: ${l.excusedBy})` : ''}`;

/** The terminal's lines. */
export function upgradeLines(u: UpgradeReport): string[] {
  const lines = [headline(u)];
  for (const c of u.collections)
    lines.push(
      `  ${c.collection.padEnd(22)} ${c.written} written, ${c.readBack} read back, ${c.lost.length} lost, ${c.changed.length} field(s) changed${c.dropped.length ? `; not in ${u.to}'s document: ${c.dropped.join(', ')}` : ''}`,
    );
  if (u.absent.length) lines.push(`  not in ${u.from}'s document, not written: ${u.absent.join(', ')}`);
  for (const m of maskedFields(u)) lines.push(`  masked: ${m}`);
  for (const c of u.collections) {
    for (const l of c.lost) lines.push(lossLine(c, l));
    for (const f of c.changed) lines.push(changeLine(c, f));
  }
  return lines;
}

/** The HTML section. */
export function upgradeHtml(u: UpgradeReport): string {
  const rows = u.collections
    .map(
      (c) =>
        `<tr><td>${esc(c.collection)}</td><td>${c.written}</td><td>${c.readBack}</td><td>${c.lost.length}</td><td>${c.changed.length}</td><td>${esc(c.dropped.join(', '))}</td></tr>`,
    )
    .join('');
  const details = u.collections.flatMap((c) => [
    ...c.lost.map((l) => lossLine(c, l)),
    ...c.changed.map((f) => changeLine(c, f)),
  ]);
  return `<h2 id="upgrade">Upgrade: ${esc(u.from)} → ${esc(u.to)} on ${esc(u.database)}</h2>
<p>${esc(headline(u))}</p>
<table data-testid="upgrade"><thead><tr><th>collection</th><th>written</th><th>read back</th><th>lost</th><th>fields changed</th><th>not in ${esc(u.to)}'s document</th></tr></thead><tbody>${rows}</tbody></table>
${u.absent.length ? `<p>Not in ${esc(u.from)}'s document, not written: ${esc(u.absent.join(', '))}</p>` : ''}
<p>Masked (not compared): ${esc(maskedFields(u).join('; ') || 'none')}</p>
${details.length ? `<ul data-testid="upgrade-failures">${details.map((d) => `<li>${esc(d)}</li>`).join('')}</ul>` : ''}`;
}
