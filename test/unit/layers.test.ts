/**
 * The one-way flow (docs/layout.md), enforced by dependency-cruiser with the repository's own rules:
 * the source passes them, and the rules catch an import of a later stage and a cycle.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { cruise, type IReporterOutput } from 'dependency-cruiser';
import { moduleHolders, mutations } from './moduleState.js';
import { describe, expect, test } from 'vitest';
import { repoRoot, sources } from './support.js';

const rules = createRequire(import.meta.url)(path.join(repoRoot, '.dependency-cruiser.cjs')) as {
  forbidden: unknown[];
  options: Record<string, unknown>;
};

async function violations(baseDir: string): Promise<string[]> {
  const { tsConfig: _tsConfig, ...options } = rules.options;
  const result: IReporterOutput = await cruise(['src'], {
    ...options,
    validate: true,
    ruleSet: { forbidden: rules.forbidden } as never,
    baseDir,
  });
  const summary = (
    result.output as { summary: { violations: Array<{ rule: { name: string }; from: string; to: string }> } }
  ).summary;
  return summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`);
}

/** A small tree of stages under a temporary src/, with the files given. */
function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'conformance-layers-'));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

describe('the one-way flow', () => {
  test('the source imports no later stage and has no cycle', async () => {
    expect(await violations(repoRoot)).toEqual([]);
  });

  test('an import of a later stage fails the rule (a check importing the engine)', async () => {
    const dir = tree({
      'src/engine/session.ts': 'export interface Session { id: string }\n',
      'src/checks/methods/records.ts':
        "import type { Session } from '../../engine/session.js';\nexport const use = (s: Session) => s.id;\n",
    });
    expect(await violations(dir)).toEqual([
      'checks-imports-downstream: src/checks/methods/records.ts → src/engine/session.ts',
    ]);
  });

  test('the adapters, the supervisor and the commands are stages too: an earlier one importing a later one fails', async () => {
    const dir = tree({
      'src/adapters/vitest/register.ts': 'export const registerSuite = () => 0;\n',
      'src/supervisor/thread.ts': 'export const openThread = () => 1;\n',
      'src/commands/run.ts': 'export const runCommand = () => 2;\n',
      'src/engine/judging.ts':
        "import { registerSuite } from '../adapters/vitest/register.js';\nexport const j = registerSuite();\n",
      'src/adapters/vitest/allureLabels.ts':
        "import { openThread } from '../../supervisor/thread.js';\nexport const s = openThread();\n",
      'src/supervisor/preflight.ts':
        "import { runCommand } from '../commands/run.js';\nexport const p = runCommand();\n",
    });
    expect((await violations(dir)).sort()).toEqual([
      'adapters-imports-downstream: src/adapters/vitest/allureLabels.ts → src/supervisor/thread.ts',
      'engine-imports-downstream: src/engine/judging.ts → src/adapters/vitest/register.ts',
      'supervisor-imports-downstream: src/supervisor/preflight.ts → src/commands/run.ts',
    ]);
  });

  test("the engine knows no test runner: its import of vitest fails, an adapter's passes", async () => {
    const dir = tree({
      'src/engine/judging.ts': "import { test } from 'vitest';\nexport const t = test;\n",
      'src/adapters/vitest/register.ts': "import { test } from 'vitest';\nexport const t = test;\n",
    });
    expect(await violations(dir)).toEqual(['engine-knows-no-test-runner: src/engine/judging.ts → vitest']);
  });

  test('an import of an earlier stage passes', async () => {
    const dir = tree({
      'src/openapi/operations.ts': 'export interface Operation { key: string }\n',
      'src/checks/spec/records.ts':
        "import type { Operation } from '../../openapi/operations.js';\nexport const key = (o: Operation) => o.key;\n",
    });
    expect(await violations(dir)).toEqual([]);
  });

  test('a check sees the client through its context only: a direct import fails, the context passes', async () => {
    const client = 'export interface Exchange { status: number }\n';
    const direct = tree({
      'src/http/client.ts': client,
      'src/checks/methods/records.ts':
        "import type { Exchange } from '../../http/client.js';\nexport const ok = (e: Exchange) => e.status;\n",
    });
    expect(await violations(direct)).toEqual([
      'checks-see-their-context: src/checks/methods/records.ts → src/http/client.ts',
    ]);
    const through = tree({
      'src/http/client.ts': client,
      'src/checks/core/context.ts': "export type { Exchange } from '../../http/client.js';\n",
      'src/checks/methods/records.ts':
        "import type { Exchange } from '../core/context.js';\nexport const ok = (e: Exchange) => e.status;\n",
    });
    expect(await violations(through)).toEqual([]);
  });

  test('a cycle inside one stage fails the rule', async () => {
    const dir = tree({
      'src/openapi/load.ts':
        "import { normalize } from './normalize.js';\nexport type Doc = { a: 1 };\nexport const load = () => normalize;\n",
      'src/openapi/normalize.ts': "import type { Doc } from './load.js';\nexport const normalize = (d: Doc) => d;\n",
    });
    expect((await violations(dir)).some((v) => v.startsWith('no-circular: '))).toBe(true);
  });

  test('a report is built from results alone: its import of the HTTP client fails', async () => {
    const dir = tree({
      'src/http/behaviour.ts': 'export const masked = (t: string) => t;\n',
      'src/report/compare.ts': "import { masked } from '../http/behaviour.js';\nexport const m = masked('x');\n",
    });
    expect(await violations(dir)).toEqual([
      'reports-from-results-alone: src/report/compare.ts → src/http/behaviour.ts',
    ]);
  });
});

describe('one configuration, handed over', () => {
  test('the configuration provided to vitest is read by the adapter only; the reporters and the engine are handed it', () => {
    const readers = sources()
      .filter(
        ({ file, text }) => /\bPROVIDED_START\b/.test(text) && !/^src\/(adapters\/vitest\/|supervisor\/)/.test(file),
      )
      .map(({ file }) => file);
    expect(readers).toEqual([]);
  });

  test('nothing in src/ writes the environment: what depends on it is resolved into the configuration at the entry', () => {
    const writes = sources().flatMap(({ file, text }) =>
      [
        ...text.matchAll(/process\.env(\.\w+|\[[^\]]+\])\s*=[^=]|delete process\.env|Object\.assign\(process\.env/g),
      ].map((m) => `${file}: ${m[0]}`),
    );
    expect(writes).toEqual([]);
  });

  test('no module of src/ keeps state of its own but the caches docs/design.md names; no table of one is changed', () => {
    const held = sources().flatMap(({ file, text }) =>
      moduleHolders(text)
        .filter((h) => h.kind !== 'literal')
        .map((h) => `\`${file}\` \`${h.name}\``),
    );
    const design = readFileSync(path.join(repoRoot, 'docs', 'design.md'), 'utf8');
    const section = design.slice(design.indexOf('### State a module keeps'), design.indexOf('## Contracts'));
    const named = [...section.matchAll(/^- (`src\/[^`]+` `\w+`)/gm)].map((m) => m[1]);
    expect(held.sort()).toEqual(named.sort());
    // The engine keeps none: what a run keeps is its session.
    expect(held.filter((h) => h.startsWith('`src/engine/'))).toEqual([]);
    const changed = sources().flatMap(({ file, text }) =>
      moduleHolders(text)
        .filter((h) => h.kind === 'literal')
        .flatMap((h) => mutations(text, h.name).map((m) => `${file}: ${m}`)),
    );
    expect(changed).toEqual([]);
  });

  test('what the state rule catches', () => {
    const text =
      'let current: Promise<X> | undefined;\nconst plans = new WeakMap<A, B>();\nconst made = madeOnce(() => 1);\nconst N = 3;\nconst KINDS = new Set([1]) as ReadonlySet<number>;\nexport const LIST = [1];\n';
    expect(moduleHolders(text)).toEqual([
      { name: 'current', kind: 'binding' },
      { name: 'plans', kind: 'cache' },
      { name: 'made', kind: 'cache' },
      { name: 'KINDS', kind: 'literal' },
      { name: 'LIST', kind: 'literal' },
    ]);
    expect(mutations('LIST.push(2); LIST[0] = 3; other.LIST.push(1); LIST.length === 1; TABLE.x = 1', 'LIST')).toEqual([
      'LIST.push(',
      'LIST[0] =',
    ]);
    expect(mutations('TABLE.x = 1; TABLE.y == 2', 'TABLE')).toEqual(['TABLE.x =']);
  });
});
