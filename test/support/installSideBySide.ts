/**
 * uv beside pip for the managed installs, each from an empty cache (the suite's venvs, pip's and uv's own caches
 * all in a fresh folder), one after the other in one session, alternating which goes first:
 * - `npm run setup:prefect` (the pinned release), to its end;
 * - `bin/conformance --prefect-version X` for a release the table does not list, up to its first request to the
 *   server it started (the line that names the server's reported version), then stopped.
 * Prints the table, and appends each time, with the machine's cores, to docs/install-history.jsonl.
 *
 * usage: npx tsx test/support/installSideBySide.ts [--unlisted 3.5.0] [--rounds 1]
 */
import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { cleanEnv, repoRoot } from './runCli.js';

const { values } = parseArgs({
  options: { unlisted: { type: 'string', default: '3.5.0' }, rounds: { type: 'string', default: '1' } },
});

type Installer = 'uv' | 'pip';

/** Seconds from the start of the command until `until` matches a line of its output (or it ends), and its exit. */
function timed(
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  until?: RegExp,
): Promise<{ s: number; exit: string }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let seen = '';
    const done = (exit: string) => resolve({ s: Math.round((performance.now() - started) / 100) / 10, exit });
    const watch = (chunk: Buffer) => {
      seen += chunk;
      if (until?.test(seen)) {
        done('first request');
        process.kill(-child.pid!, 'SIGTERM');
      }
    };
    child.stdout.on('data', watch);
    child.stderr.on('data', watch);
    child.on('exit', (code) => {
      if (!until?.test(seen)) {
        if (code !== 0) process.stderr.write(seen.slice(-2000));
        done(`exit ${code}`);
      }
    });
  });
}

/** A fresh, empty set of caches for one measurement. */
function emptyCaches(installer: Installer): { env: NodeJS.ProcessEnv; root: string } {
  const root = mkdtempSync(path.join(os.tmpdir(), `install-${installer}-`));
  const env = cleanEnv({
    CONFORMANCE_CACHE_DIR: path.join(root, 'conformance'),
    CONFORMANCE_INSTALLER: installer,
    PIP_CACHE_DIR: path.join(root, 'pip'),
    UV_CACHE_DIR: path.join(root, 'uv'),
  });
  delete env.CONFORMANCE_QUIET;
  return { env, root };
}

const rows: Array<{ what: string; installer: Installer; s: number; exit: string }> = [];
const measure = async (what: string, installer: Installer, cmd: string, args: string[], until?: RegExp) => {
  const { env, root } = emptyCaches(installer);
  const out = path.join(root, 'reports');
  const { s, exit } = await timed(cmd, [...args, ...(until ? ['--out', out] : [])], env, until);
  rmSync(root, { recursive: true, force: true });
  const row = { what, installer, s, exit };
  rows.push(row);
  process.stdout.write(`${what} with ${installer}: ${s} s (${exit})\n`);
  appendFileSync(
    path.join(repoRoot, 'docs', 'install-history.jsonl'),
    `${JSON.stringify({ at: new Date().toISOString(), cores: os.cpus().length, ...row })}\n`,
  );
};

for (let round = 0; round < Number(values.rounds); round++) {
  const order: Installer[] = round % 2 ? ['uv', 'pip'] : ['pip', 'uv'];
  for (const installer of order)
    await measure('npm run setup:prefect', installer, 'npx', ['tsx', 'src/managed/install.ts']);
  for (const installer of order)
    await measure(
      `--prefect-version ${values.unlisted} to its first request`,
      installer,
      path.join(repoRoot, 'bin', 'conformance'),
      ['--prefect-version', values.unlisted],
      /the server reports /,
    );
}
process.stdout.write('\n| what | installer | seconds | end |\n|---|---|---|---|\n');
for (const r of rows) process.stdout.write(`| ${r.what} | ${r.installer} | ${r.s} | ${r.exit} |\n`);
