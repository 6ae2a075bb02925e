/**
 * A quiet install: npm (11.16 on) warns at `npm ci` of every dependency whose install script package.json's
 * allowScripts does not cover, and a newcomer cannot tell whether the install broke. Each is declared there.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';

const root = path.join(import.meta.dirname, '..', '..');
const read = (file: string) => JSON.parse(readFileSync(path.join(root, file), 'utf8'));

test("every dependency with an install script is in package.json's allowScripts", () => {
  const lock = read('package-lock.json') as { packages: Record<string, { hasInstallScript?: boolean }> };
  const allowed = (read('package.json') as { allowScripts?: Record<string, boolean> }).allowScripts ?? {};
  const withScripts = Object.entries(lock.packages)
    .filter(([, p]) => p.hasInstallScript)
    .map(([where]) => where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length));
  expect(withScripts.length).toBeGreaterThan(0);
  for (const name of withScripts) expect(allowed[name], name).toBe(true);
});
