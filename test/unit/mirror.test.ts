/** Our unit tests mirror src/: each sits in the folder of the source it tests, named for its module or concept. */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { repoRoot } from './support.js';

/** Tests of the whole house rather than of one folder of it. */
const OF_THE_WHOLE = new Set(['layers.test.ts', 'mirror.test.ts', 'installScripts.test.ts', 'functionLength.test.ts']);

test('every unit test file sits in a folder src/ has, and those at the root test a root module or the whole', () => {
  const unit = path.join(repoRoot, 'test', 'unit');
  const files = readdirSync(unit, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.test.ts'));
  const astray = files.filter((f) => {
    const dir = path.dirname(f);
    if (dir !== '.') return !existsSync(path.join(repoRoot, 'src', dir));
    return !OF_THE_WHOLE.has(f) && !existsSync(path.join(repoRoot, 'src', f.replace(/\.test\.ts$/, '.ts')));
  });
  expect(files.length).toBeGreaterThan(50);
  expect(astray).toEqual([]);
});
