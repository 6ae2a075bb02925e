/**
 * Checks grouped by what their messages say: messages that differ only in ids and numbers say the same thing,
 * and a group is shown with real numbers (every member's, where they agree; the values or their range where
 * they do not), never a placeholder a reader takes for a template.
 */
import { UUID } from '../config/exchangeLog.js';

/** A number is a token of its own: digits within a word (charset=utf-8, /v2/) are part of it. */
const NUMBER = /(?<![\w.-])\d+(\.\d+)?(?![\w.-])/g;

/** How much of a message makes a group's key, and how long a group's line may be (cut with an ellipsis). */
const KEY_AT_MOST = 160;
const SHOWN_AT_MOST = 240;

const cut = (text: string) => (text.length > SHOWN_AT_MOST ? `${text.slice(0, SHOWN_AT_MOST - 1)}…` : text);

/** Ids, times and numbers masked: messages that differ only in them say the same thing (a group's key). */
export const shape = (text: string): string => text.replace(UUID, '<id>').replace(NUMBER, 'N').slice(0, KEY_AT_MOST);

/** The values members have in one place: one, two (`415 or 422`), or their range (`3–12`). */
function valuesShown(values: string[]): string {
  const distinct = [...new Set(values)].sort((a, b) => Number(a) - Number(b));
  return distinct.length <= 2 ? distinct.join(' or ') : `${distinct[0]}–${distinct[distinct.length - 1]}`;
}

/**
 * How a group of messages is shown: the first one's text with ids masked, each number every member has in
 * the same place kept (answered 500, limit 200), and each that differs shown as the members' values or range.
 */
export function groupShape(messages: string[]): string {
  const numbers = (text: string) => [...text.replace(UUID, '<id>').matchAll(NUMBER)].map((m) => m[0]);
  const all = messages.map(numbers);
  let i = -1;
  return cut(
    (messages[0] ?? '').replace(UUID, '<id>').replace(NUMBER, () => {
      i++;
      const here = all.map((n) => n[i]).filter((n): n is string => n !== undefined);
      return valuesShown(here);
    }),
  );
}

/** Items grouped by a key, the largest group first (then by key). */
export function groupBy<T>(items: T[], key: (x: T) => string): Array<[string, T[]]> {
  const groups = new Map<string, T[]>();
  for (const x of items) {
    const k = key(x);
    const group = groups.get(k);
    if (group) group.push(x);
    else groups.set(k, [x]);
  }
  return [...groups].sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]));
}

/** The skipped checks by reason, the largest group first, each with its line: what page one's table and the terminal list. */
export function skipReasons<T extends { status: string; message?: string }>(
  checks: readonly T[],
): Array<{ reason: string; checks: T[] }> {
  return groupBy(
    checks.filter((c) => c.status === 'skipped'),
    (c) => shape(c.message ?? ''),
  ).map(([, list]) => ({ reason: groupShape(list.map((c) => c.message ?? '')), checks: list }));
}
