import { describe, expect, test } from 'vitest';
import { apiRoot, candidateRoots, notTheRoot, probeReads } from '../../../src/http/apiRoot.js';
import { UsageError } from '../../../src/config/errors.js';

const operations = [
  { method: 'POST', path: '/flows/filter' },
  { method: 'GET', path: '/flows/{id}' },
  { method: 'GET', path: '/ui/settings' },
  { method: 'GET', path: '/version' },
  { method: 'GET', path: '/health' },
];

/** A server whose API is served under `root` only: every other path answers 404. */
const servedUnder = (root: string) => async (url: string) => (new URL(url).pathname.startsWith(`${root}/`) ? 200 : 404);

describe('apiRoot', () => {
  test('asks the parameterless reads, health and version first', () => {
    expect(probeReads(operations)).toEqual(['/version', '/health', '/ui/settings']);
  });

  test('is not the root only when two reads at least all answered 404', () => {
    expect(notTheRoot([{ path: '/health', status: 404 }])).toBe(false);
    expect(
      notTheRoot([
        { path: '/health', status: 404 },
        { path: '/version', status: 200 },
      ]),
    ).toBe(false);
    expect(
      notTheRoot([
        { path: '/health', status: 404 },
        { path: '/version', status: 404 },
      ]),
    ).toBe(true);
  });

  test('a read with no answer says nothing: the others decide', () => {
    const unanswered = { path: '/hello', status: 0 };
    expect(notTheRoot([{ path: '/health', status: 404 }, { path: '/version', status: 404 }, unanswered])).toBe(true);
    expect(notTheRoot([{ path: '/health', status: 404 }, unanswered])).toBe(false);
  });

  test('a read not answered is asked once more before it counts as no answer', async () => {
    const asked = new Map<string, number>();
    // The server is busy with its first answer to each read, then answers as a server whose API is under /api.
    const busyFirst = async (url: string) => {
      asked.set(url, (asked.get(url) ?? 0) + 1);
      return asked.get(url) === 1 && url.endsWith('/health') ? 0 : servedUnder('/api')(url);
    };
    const root = await apiRoot('http://h:1', operations, [], busyFirst);
    expect(root.baseUrl).toBe('http://h:1/api');
    expect(asked.get('http://h:1/health')).toBe(2);
    expect(asked.get('http://h:1/version')).toBe(1);
  });

  test("tries the document's server paths, then /api, none the base already ends with", () => {
    expect(candidateRoots('http://h:1', ['/api', 'https://x.example/v2/'])).toEqual(['/api', '/v2']);
    expect(candidateRoots('http://h:1/api', ['/api'])).toEqual([]);
    expect(candidateRoots('http://h:1', [])).toEqual(['/api']);
  });

  test('the base URL at the root stays as given, with nothing said', async () => {
    expect(await apiRoot('http://h:1/api', operations, ['/api'], servedUnder('/api'))).toEqual({
      baseUrl: 'http://h:1/api',
    });
  });

  test('a base URL without the path the API answers at moves there, and says why', async () => {
    const root = await apiRoot('http://h:1', operations, [], servedUnder('/api'));
    expect(root.baseUrl).toBe('http://h:1/api');
    expect(root.moved).toMatch(
      /^http:\/\/h:1 is not the API's root \(GET \/version, GET \/health, GET \/ui\/settings answered 404 there\)/,
    );
  });

  test("no path under it answers: bad input naming the document's server path", async () => {
    const nowhere = async () => 404;
    await expect(apiRoot('http://h:1/x', operations, ['/v1'], nowhere)).rejects.toThrow(UsageError);
    await expect(apiRoot('http://h:1/x', operations, ['/v1'], nowhere)).rejects.toThrow(
      /the document serves its API at \/v1\): did you mean http:\/\/h:1\/x\/v1\?$/,
    );
  });
});
