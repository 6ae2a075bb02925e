/**
 * Short functions with one job each (docs/layout.md): no function, method or arrow in src/ is longer than
 * FUNCTION_LINES lines, counted from its first line to its last as the parser spans it.
 */
import { parseSync } from '@swc/core';
import { describe, expect, test } from 'vitest';
import { sources } from './support.js';

const FUNCTION_LINES = 80;
const FUNCTION_TYPES = new Set([
  'FunctionDeclaration',
  'FunctionExpression',
  'ArrowFunctionExpression',
  'ClassMethod',
  'MethodProperty',
]);

interface Node {
  type?: string;
  span?: { start: number; end: number };
  identifier?: { value?: string };
  id?: { value?: string };
  key?: { value?: string };
  [field: string]: unknown;
}

/** Every function of a module's text longer than `limit` lines, by the name it is bound to. */
function longFunctions(text: string, limit: number): Array<{ name: string; lines: number }> {
  // swc's spans run on across parses: a first statement of our own marks where this text starts.
  const source = `0;\n${text}`;
  const { body } = parseSync(source, { syntax: 'typescript' }) as unknown as { body: Node[] };
  const base = body[0].span!.start;
  const found: Array<{ name: string; lines: number }> = [];
  const walk = (node: unknown, name: string): void => {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const n of node) walk(n, name);
      return;
    }
    const n = node as Node;
    const named = n.identifier?.value ?? n.id?.value ?? (typeof n.key?.value === 'string' ? n.key.value : undefined);
    const here = named ?? name;
    if (n.type && FUNCTION_TYPES.has(n.type) && n.span) {
      const lines = source.slice(n.span.start - base, n.span.end - base).split('\n').length;
      if (lines > limit) found.push({ name: here, lines });
    }
    for (const [field, value] of Object.entries(n)) if (field !== 'span') walk(value, here);
  };
  walk(body.slice(1), '');
  return found;
}

describe('short functions', () => {
  test(`no function in src/ is over ${FUNCTION_LINES} lines`, () => {
    const long = sources().flatMap(({ file, text }) =>
      longFunctions(text, FUNCTION_LINES).map((f) => `${file} ${f.name}: ${f.lines} lines`),
    );
    expect(long).toEqual([]);
  });

  test('the measure counts a function from its first line to its last, and names it', () => {
    const body = Array.from({ length: 5 }, (_, i) => `  const v${i} = ${i};`).join('\n');
    const text = `export function outer(): void {\n${body}\n  const inner = () => {\n${body}\n  };\n}\n`;
    expect(longFunctions(text, 6)).toEqual([
      { name: 'outer', lines: 14 },
      { name: 'inner', lines: 7 },
    ]);
    expect(longFunctions(text, 14)).toEqual([]);
  });
});
