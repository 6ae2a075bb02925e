/**
 * The GitHub Action (action.yml) and the example workflows of docs/examples: valid by a validator of action
 * and workflow files (action-validator, the schemas GitHub's own editor support uses), and naming only the
 * suite's own settings.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { RUN_OPTIONS, SECRET_VARIABLES } from '../../../src/config/options.js';

const root = path.join(import.meta.dirname, '..', '..', '..');
const validator = path.join(root, 'node_modules', '.bin', 'action-validator');
const validate = (file: string) => spawnSync(validator, [file], { encoding: 'utf8' });
const examples = readdirSync(path.join(root, 'docs', 'examples'))
  .filter((f) => f.startsWith('github-'))
  .map((f) => path.join(root, 'docs', 'examples', f));

describe('the GitHub Action', () => {
  test.each([path.join(root, 'action.yml'), ...examples])('%s is valid', (file) => {
    const r = validate(file);
    expect(r.stdout + r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  test('the validator finds a broken action and a broken workflow', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'action-'));
    const action = readFileSync(path.join(root, 'action.yml'), 'utf8').replace('using: composite', 'using: composit');
    writeFileSync(path.join(dir, 'action.yml'), action);
    expect(validate(path.join(dir, 'action.yml')).status).not.toBe(0);
    const workflow = readFileSync(examples[0], 'utf8').replace('runs-on:', 'run-on:');
    writeFileSync(path.join(dir, 'github-broken.yml'), workflow);
    expect(validate(path.join(dir, 'github-broken.yml')).status).not.toBe(0);
  });

  test("it sets only the suite's own variables, and gives the key only from its input", () => {
    const text = readFileSync(path.join(root, 'action.yml'), 'utf8');
    const known = new Set([...RUN_OPTIONS.map((o) => o.env), ...SECRET_VARIABLES.map((v) => v.env)]);
    const set = [...text.matchAll(/^\s+(CONFORMANCE_[A-Z_]+):/gm)].map((m) => m[1]);
    expect(set.length).toBeGreaterThan(5);
    for (const variable of set) expect(known.has(variable), variable).toBe(true);
    expect(text).toMatch(/CONFORMANCE_API_KEY: \$\{\{ inputs\.api-key \}\}/);
  });

  test("a managed Prefect's venvs are cached under a key of the pinned release and the version table, and npm's folder by the lockfile", () => {
    const text = readFileSync(path.join(root, 'action.yml'), 'utf8');
    expect(text).toMatch(/cache: npm\n\s+cache-dependency-path: \$\{\{ github\.action_path \}\}\/package-lock\.json/);
    // The folder the managed server's venvs are made in (config/worker.ts managedServerSettings, the runner's HOME).
    const cached = /uses: actions\/cache@v4\n\s+with:\n\s+path: (\S+)\n\s+key: (.+)/.exec(text)!;
    expect(cached[1]).toBe('~/.cache/orchestration-conformance');
    expect(cached[2]).toBe(['$', '{{ runner.os }}-python3.11-$', '{{ steps.prefect-key.outputs.key }}'].join(''));
    // The key step, run as the runner runs it: the same table gives the same key, another pin another one.
    const step = text.slice(text.indexOf('      id: prefect-key\n'));
    const script = step
      .slice(step.indexOf('      run: |\n') + '      run: |\n'.length)
      .split('\n')
      .filter((_line, i, all) => all.slice(0, i + 1).every((l) => l.startsWith('        ')))
      .map((line) => line.slice(8))
      .join('\n');
    const keyFor = (table: string) => {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'action-path-'));
      writeFileSync(path.join(dir, 'prefect-versions.json'), table);
      const output = path.join(dir, 'github-output');
      const r = spawnSync('bash', ['-e', '-c', script], {
        env: { ...process.env, GITHUB_ACTION_PATH: dir, GITHUB_OUTPUT: output },
      });
      expect(r.status, String(r.stderr)).toBe(0);
      return readFileSync(output, 'utf8').trim();
    };
    const table = readFileSync(path.join(root, 'prefect-versions.json'), 'utf8');
    const pin = (JSON.parse(table) as { pin: string }).pin;
    const key = keyFor(table);
    expect(key).toMatch(new RegExp(`^key=conformance-prefect-${pin.replace(/\./g, '\\.')}-[0-9a-f]{16}$`));
    expect(keyFor(table)).toBe(key);
    expect(keyFor(table.replace(`"pin": "${pin}"`, '"pin": "3.4.25"'))).toMatch(/^key=conformance-prefect-3\.4\.25-/);
    expect(keyFor(`${table} `)).not.toBe(key);
  });

  test('it takes disposable, and uploads the report folder whatever the verdict', () => {
    const text = readFileSync(path.join(root, 'action.yml'), 'utf8');
    expect(text).toMatch(/CONFORMANCE_DISPOSABLE_TARGET: \$\{\{ inputs\.disposable \}\}/);
    expect(text).toMatch(/- if: always\(\) && inputs\.upload == 'true'[^\n]*\n\s+uses: actions\/upload-artifact@v4/);
    expect(text).toMatch(/path: \$\{\{ steps\.run\.outputs\.reports \}\}/);
  });
});

/** Every text of the repository a user copies a command or a workflow from. */
function copiedTexts(): Array<[string, string]> {
  const docs = path.join(root, 'docs');
  const files = [
    path.join(root, 'README.md'),
    path.join(root, 'action.yml'),
    ...readdirSync(docs)
      .filter((f) => f.endsWith('.md'))
      .map((f) => path.join(docs, f)),
    ...readdirSync(path.join(docs, 'examples')).map((f) => path.join(docs, 'examples', f)),
  ];
  return files.map((file) => [path.relative(root, file), readFileSync(file, 'utf8')]);
}

describe('the CI examples start', () => {
  const table = JSON.parse(readFileSync(path.join(root, 'prefect-versions.json'), 'utf8')) as {
    versions: Record<string, { constraints: string[]; add: string[] }>;
  };

  test('every pip install of a Prefect release carries the pins prefect-versions.json gives it', () => {
    const installs = copiedTexts().flatMap(([file, text]) =>
      [...text.matchAll(/pip install [^\n]*prefect==([\d.]+)[^\n]*/g)].map((m) => ({
        file,
        line: m[0],
        version: m[1]!,
      })),
    );
    expect(installs.length).toBeGreaterThanOrEqual(2);
    for (const { file, line, version } of installs) {
      const pins = table.versions[version];
      expect(pins, `${file}: ${line} (a release prefect-versions.json does not list)`).toBeDefined();
      for (const needed of [...pins!.constraints, ...pins!.add]) expect(line, `${file}: ${line}`).toContain(needed);
    }
  });

  test("a workflow names the suite's Action at a ref it has, and says what to put for a fork or a local copy", () => {
    for (const [file, text] of copiedTexts()) {
      const lines = text.split('\n');
      lines.forEach((line, i) => {
        if (!/uses: orchestration-conformance\/orchestration-api-conformance@/.test(line)) return;
        expect(line, file).toMatch(/@main$/);
        expect(lines.slice(Math.max(0, i - 3), i).join('\n'), file).toMatch(/a fork: .*\n.*\.\/conformance/);
      });
    }
  });
});
