/**
 * Telling SQLite from PostgreSQL behind a Prefect URL by `like_`: the server's ILIKE '%v%' read by each
 * database's LIKE (PostgreSQL: backslash escapes the next character; SQLite: no escape character).
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { tellPrefectDatabase } from '../../../../src/model/profiles/prefectDatabase.js';
import type { Answer, RequestToSend } from '../../../../src/openapi/request.js';

type Dialect = 'sqlite' | 'postgres';

/** Case-insensitive LIKE as each database reads a pattern. */
function like(dialect: Dialect, value: string, pattern: string): boolean {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (dialect === 'postgres' && c === '\\' && i + 1 < pattern.length) re += literally(pattern[++i]);
    else if (c === '%') re += '.*';
    else if (c === '_') re += '.';
    else re += literally(c);
  }
  return new RegExp(`^${re}$`, 'is').test(value);
}
const literally = (c: string) => c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A Prefect server over these names per collection, on one database. */
function server(dialect: Dialect, names: Record<string, string[]>, log: string[] = []) {
  return async (request: RequestToSend): Promise<Answer> => {
    log.push(`${request.method} ${request.path} ${JSON.stringify(request.json)}`);
    const collection = request.path.split('/')[1];
    const pattern = (request.json as Record<string, { name: { like_: string } }>)[collection].name.like_;
    const rows = (names[collection] ?? []).map((name, i) => ({ id: `${collection}-${i}`, name }));
    const json = rows.filter((r) => like(dialect, r.name, `%${pattern}%`));
    return { status: 200, body: JSON.stringify(json), json };
  };
}

const ALL = ['/block_types/filter', '/flows/filter', '/work_pools/filter', '/deployments/filter', '/variables/filter'];
const operations = ALL.map((path) => ({ method: 'POST', path }));
const BLOCK_TYPES = ['Secret', 'Slack Webhook', 'String', 'JSON', 'Date Time', 'Local File System'];

describe('the database behind a Prefect URL', () => {
  test("a fresh server's block types tell each database, by two reads", async () => {
    for (const dialect of ['sqlite', 'postgres'] as const) {
      const log: string[] = [];
      const found = await tellPrefectDatabase(server(dialect, { block_types: BLOCK_TYPES }, log), operations);
      expect(found.database).toBe(dialect);
      expect(found.how).toMatch(/POST \/block_types\/filter with like_ "\\e"/);
      expect(log).toHaveLength(2);
      expect(log.every((l) => l.startsWith('POST /block_types/filter'))).toBe(true);
    }
  });

  test('without block types, the names of another collection tell it', async () => {
    const names = { flows: ['etl', 'report'] };
    expect((await tellPrefectDatabase(server('postgres', names), operations)).database).toBe('postgres');
    expect((await tellPrefectDatabase(server('sqlite', names), operations)).database).toBe('sqlite');
  });

  test('whatever the names, an answer is never the wrong database', async () => {
    const name = fc.string({ unit: fc.constantFrom('e', 'a', 'o', 'x', '\\', '%', '_', 'E', ' '), maxLength: 8 });
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<Dialect>('sqlite', 'postgres'),
        fc.record({ block_types: fc.array(name, { maxLength: 5 }), flows: fc.array(name, { maxLength: 5 }) }),
        async (dialect, names) => {
          const found = await tellPrefectDatabase(server(dialect, names), operations);
          expect([dialect, undefined]).toContain(found.database);
        },
      ),
    );
  });

  test('no names to filter, or a collection that answers no list: the database is not told, and why', async () => {
    const empty = await tellPrefectDatabase(server('postgres', {}), operations);
    expect(empty).toEqual({
      how: 'the database could not be told: no name in block_types, flows, work_pools, deployments, variables to filter by',
    });
    const refusing = async (): Promise<Answer> => ({ status: 404, body: '' });
    const refused = await tellPrefectDatabase(refusing, operations.slice(0, 1));
    expect(refused.database).toBeUndefined();
    expect(refused.how).toMatch(/POST \/block_types\/filter did not answer a list/);
    // A document without those filters is not asked at all.
    const log: string[] = [];
    expect((await tellPrefectDatabase(server('sqlite', { flows: ['e'] }, log), [])).database).toBeUndefined();
    expect(log).toEqual([]);
  });
});
