/**
 * Finding the pins of a release the version table does not list: the order of the tries, the module a start
 * names as missing, and the release's own time as the package index says it.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { VersionTable } from '../../../src/managed/prefect.js';
import { indexEntry, missingModule, pinTries } from '../../../src/managed/releasePins.js';

const table: VersionTable = {
  pin: '3.8.8',
  versions: {
    '3.8.8': { constraints: ['fastapi==0.154.0'], add: [], why: 'w' },
    '3.4.25': { constraints: ['fastapi==0.118.0'], add: ['importlib_metadata'], why: 'w' },
    '3.0.11': { constraints: ['pydantic==2.10.6', 'fastapi==0.118.0'], add: [], why: 'w' },
    '2.20.26': { constraints: [], add: [], why: 'w' },
    '3.9.1': { constraints: [], add: [], why: 'w' },
  },
  unavailable: {},
};

describe('the tries for an unlisted release', () => {
  it('as published, then the pins of the listed releases on either side (the older first), then its own time', () => {
    const tries = pinTries('3.6.29', table, '2026-01-02T00:00:00Z');
    expect(tries.map((t) => t.how)).toEqual([
      'as published',
      'with the pins of 3.4.25',
      'with the pins of 3.8.8',
      'with the dependencies of its own time (the package index as of 2026-01-02T00:00:00Z)',
    ]);
    expect(tries[1].pin).toEqual({ prefect: '3.6.29', constraints: ['fastapi==0.118.0'], add: ['importlib_metadata'] });
    expect(tries[3].pin).toEqual({ prefect: '3.6.29', constraints: [], add: [], excludeNewer: '2026-01-02T00:00:00Z' });
  });

  it('a neighbour with no pins, or pins already tried, is no new try; without a date, no try of its own time', () => {
    // 2.19.9: older than every listed release; 2.20.26 has none, which "as published" already is.
    expect(pinTries('2.19.9', table).map((t) => t.how)).toEqual(['as published']);
    expect(pinTries('2.19.9', table, '2024-08-01T00:00:00Z').map((t) => t.how)).toEqual([
      'as published',
      'with the dependencies of its own time (the package index as of 2024-08-01T00:00:00Z)',
    ]);
    expect(pinTries('3.2.15', table).map((t) => t.how)).toEqual([
      'as published',
      'with the pins of 3.0.11',
      'with the pins of 3.4.25',
    ]);
  });
});

describe('what a start says', () => {
  it('names the module it needs and does not declare, a top-level one only', () => {
    expect(
      missingModule(
        "prefect server exited with code 1 | File x | ModuleNotFoundError: No module named 'importlib_metadata'",
      ),
    ).toBe('importlib_metadata');
    // A submodule's package cannot be told from its name: no guess.
    expect(missingModule("ModuleNotFoundError: No module named 'google.protobuf'")).toBeUndefined();
    expect(missingModule("TypeError: 'type' object is not iterable")).toBeUndefined();
  });
});

describe("the index's entry for a release", () => {
  it('says whether it is there, the newest final release, and a day after its earliest file (PEP 691 JSON, PEP 700 upload times)', async () => {
    const files = [
      { filename: 'prefect-3.6.29-py3-none-any.whl', 'upload-time': '2026-03-05T10:20:30.123456Z' },
      { filename: 'prefect-3.6.29.tar.gz', 'upload-time': '2026-03-05T10:19:00Z' },
      { filename: 'prefect-3.6.2-py3-none-any.whl', 'upload-time': '2025-12-01T00:00:00Z' },
      { filename: 'prefect-3.6.290.tar.gz', 'upload-time': '2030-01-01T00:00:00Z' },
      { filename: 'prefect-3.6.3-py3-none-any.whl' },
    ];
    const versions = ['3.6.2', '3.6.3', '3.6.29', '3.6.290', '3.7.0rc1', '3.7.0.dev4'];
    const accepts: string[] = [];
    const index = createServer((req, res) => {
      accepts.push(String(req.headers.accept));
      if (req.url !== '/simple/prefect/') return res.writeHead(404).end();
      res
        .writeHead(200, { 'content-type': 'application/vnd.pypi.simple.v1+json' })
        .end(JSON.stringify({ files, versions }));
    });
    await new Promise<void>((r) => index.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(index.address() as AddressInfo).port}/simple`;
    try {
      expect(await indexEntry('3.6.29', url)).toEqual({
        listed: true,
        newest: '3.6.290',
        publishedAt: '2026-03-06T10:19:00Z',
      });
      expect((await indexEntry('3.6.2', `${url}/`))?.publishedAt).toBe('2025-12-02T00:00:00Z');
      // Listed with no upload time: no own time to install as of.
      expect(await indexEntry('3.6.3', url)).toEqual({ listed: true, newest: '3.6.290' });
      expect(await indexEntry('9.9.9', url)).toEqual({ listed: false, newest: '3.6.290' });
      expect(await indexEntry('3.6.29', `${url}/nothing`)).toBeUndefined();
      expect(accepts[0]).toBe('application/vnd.pypi.simple.v1+json');
    } finally {
      index.close();
    }
  });
});
