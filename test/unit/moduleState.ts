/**
 * What a module keeps at its top level, read with swc's parser: the bindings that hold state (a `let` or `var`;
 * a const made an empty Map, Set, WeakMap or WeakSet, or a `madeOnce` cache), and the const tables (arrays,
 * objects, collections made with their entries), which hold state only where the module changes them.
 */
import { parseSync } from '@swc/core';

type Init = { type: string; callee?: { type?: string; value?: string }; expression?: Init; arguments?: unknown[] };
type Declarator = { id: { type: string; value?: string }; init?: Init };
type Item = { type: string; kind?: string; declarations?: Declarator[]; declaration?: Item };

export interface Holder {
  name: string;
  /** `let`/`var`: a binding; `cache`: a collection or a madeOnce; `literal`: a const array or object. */
  kind: 'binding' | 'cache' | 'literal';
}

/** The expression under `as`/`satisfies` wrappers. */
const bare = (init: Init | undefined): Init | undefined =>
  init && /^Ts(As|Satisfies|ConstAssertion)Expression$/.test(init.type) ? bare(init.expression) : init;

export function moduleHolders(text: string): Holder[] {
  const { body } = parseSync(text, { syntax: 'typescript' }) as unknown as { body: Item[] };
  return body
    .map((item) => (item.type === 'ExportDeclaration' ? item.declaration! : item))
    .filter((item) => item.type === 'VariableDeclaration')
    .flatMap((item) =>
      item.declarations!.flatMap((d): Holder[] => {
        const name = d.id.value ?? d.id.type;
        if (item.kind !== 'const') return [{ name, kind: 'binding' }];
        const init = bare(d.init);
        // Made empty, it is filled as the module runs: a cache. Made with its entries, it is a table.
        if (init?.type === 'NewExpression' && /^(Map|Set|WeakMap|WeakSet)$/.test(init.callee?.value ?? ''))
          return [{ name, kind: init.arguments?.length ? 'literal' : 'cache' }];
        if (init?.type === 'CallExpression' && init.callee?.value === 'madeOnce') return [{ name, kind: 'cache' }];
        if (init?.type === 'ArrayExpression' || init?.type === 'ObjectExpression') return [{ name, kind: 'literal' }];
        return [];
      }),
    );
}

/** Where a module changes one of its top-level arrays, objects or sets: a call that mutates it, or an assignment into it. */
export function mutations(text: string, name: string): string[] {
  const n = name.replace(/[$]/g, '\\$');
  const pattern = new RegExp(
    `(?<![\\w.])${n}(\\.(push|splice|pop|shift|unshift|sort|reverse|fill|copyWithin|add|delete|clear|set)\\(|\\.length\\s*=(?!=)|\\[[^\\]]*\\]\\s*=(?!=)|\\.\\w+\\s*=(?!=))`,
    'g',
  );
  return [...text.matchAll(pattern)].map((m) => m[0]);
}
