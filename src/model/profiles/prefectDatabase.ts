/**
 * Which database serves a Prefect target given by URL. Prefect does not say (GET /admin/settings shows its
 * connection URL as asterisks), but its `like_` filter shows it: the filter is SQL `ILIKE '%v%'` with no
 * ESCAPE clause, and PostgreSQL's LIKE reads a backslash as an escape character by default (`\e` is `e`)
 * while SQLite's LIKE has none (`\e` is a backslash, then `e`). Asked of names the server holds (the block
 * types it registers at start, else the user's flows or pools), `like_: "\e"` answers what `like_: "e"`
 * answers on PostgreSQL and nothing on SQLite. Two read POSTs per collection asked; nothing is written.
 */
import type { Operation } from '../../openapi/operations.js';
import { is2xx, type Send } from '../../openapi/request.js';
import type { DatabaseFinding } from './profile.js';

/** Collections whose names Prefect filters with `like_`, the one most likely to hold names first. */
const COLLECTIONS = ['block_types', 'flows', 'work_pools', 'deployments', 'variables'];
const LETTERS = ['e', 'a', 'o'];

/** The objects a filter answered, by id, with their names. */
const named = (json: unknown): Map<string, string> | undefined =>
  Array.isArray(json)
    ? new Map(json.map((o) => [String((o as { id?: unknown }).id), String((o as { name?: unknown }).name)]))
    : undefined;

export async function tellPrefectDatabase(
  send: Send,
  operations: ReadonlyArray<Pick<Operation, 'method' | 'path'>>,
): Promise<DatabaseFinding> {
  const tried: string[] = [];
  for (const collection of COLLECTIONS) {
    const path = `/${collection}/filter`;
    if (!operations.some((op) => op.method === 'POST' && op.path === path)) continue;
    const ask = async (pattern: string) => {
      const answer = await send({
        method: 'POST',
        template: path,
        path,
        json: { [collection]: { name: { like_: pattern } }, limit: 200 },
      });
      return is2xx(answer) ? named(answer.json) : undefined;
    };
    for (const letter of LETTERS) {
      const plain = await ask(letter);
      if (!plain) {
        tried.push(`POST ${path} did not answer a list`);
        break;
      }
      if (plain.size === 0) continue;
      const escaped = await ask(`\\${letter}`);
      const asked = `POST ${path} with like_ "\\${letter}"`;
      if (!escaped || [...escaped.keys()].some((id) => !plain.has(id))) {
        tried.push(`${asked} answered neither as SQLite nor as PostgreSQL would`);
        break;
      }
      // SQLite matches the names holding a backslash and the letter; PostgreSQL every name holding the letter.
      const literal = [...plain.values()].filter((name) => name.toLowerCase().includes(`\\${letter}`)).length;
      if (escaped.size === literal && literal === plain.size) continue;
      if (escaped.size === literal)
        return {
          database: 'sqlite',
          how: `${asked} matched ${escaped.size} of the ${plain.size} names like_ "${letter}" matched: LIKE without an escape character (SQLite)`,
        };
      if (escaped.size === plain.size)
        return {
          database: 'postgres',
          how: `${asked} matched the ${plain.size} names like_ "${letter}" matched: LIKE with a backslash escape (PostgreSQL)`,
        };
      tried.push(`${asked} answered neither as SQLite nor as PostgreSQL would`);
      break;
    }
  }
  return {
    how: tried.length
      ? `the database could not be told: ${tried.join('; ')}`
      : `the database could not be told: no name in ${COLLECTIONS.join(', ')} to filter by`,
  };
}
