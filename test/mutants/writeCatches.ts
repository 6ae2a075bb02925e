/**
 * Writes each built-in check's `catches` into src/checks/core/planning.json: how many mutants of the kill
 * matrix name it among their killers. Run after a mutant is added or its killers change; a unit test
 * (test/unit/engine/detection.test.ts) fails until it is.
 *
 * usage: npx tsx test/mutants/writeCatches.ts
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkIdOf } from '../../src/checks/core/check.js';
import type { Planning } from '../../src/checks/core/planning.js';
import { contractMutants, gateMutants, queryMutants, verbMutants } from './registry.js';

/** Per check id, the mutants whose killers name it (a mutant counts once for a check however often it names it). */
export function catchesOf(mutants: Array<{ killedBy: string[] }>): Record<string, number> {
  const counted: Record<string, number> = {};
  for (const m of mutants)
    for (const id of new Set(m.killedBy.map((k) => checkIdOf(k.split(' ')[0])))) counted[id] = (counted[id] ?? 0) + 1;
  return Object.fromEntries(Object.entries(counted).sort(([a], [b]) => a.localeCompare(b)));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const file = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../src/checks/core/planning.json');
  const planning = JSON.parse(readFileSync(file, 'utf8')) as Planning;
  planning.catches = catchesOf([...contractMutants, ...verbMutants, ...queryMutants, ...gateMutants]);
  writeFileSync(file, `${JSON.stringify(planning, null, 2)}\n`);
  process.stdout.write(`${file}: catches of ${Object.keys(planning.catches).length} checks\n`);
}
