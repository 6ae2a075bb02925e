/**
 * A base URL without the path the API is served at (Prefect's root, its API at `/api`): the run finds the API's
 * root and says so, or names it and exits 2, before any check, rather than judging every request's 404.
 */
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { laneBaseUrl } from '../support/lane.js';
import { repoRoot, runCli } from '../support/runCli.js';

const serverRoot = () => laneBaseUrl().replace(/\/api$/, '');

describe("the API's root", () => {
  test('a base URL at the server root runs against its /api, and says so', async () => {
    const run = await runCli(['--read-only', '--operations', '^GET /health$'], {
      CONFORMANCE_BASE_URL: serverRoot(),
      CONFORMANCE_QUIET: '',
    });
    expect(run.stderr).toContain(
      `conformance: ${serverRoot()} is not the API's root (GET /health, GET /version, GET /admin/version, GET /hello answered 404 there); they answer at ${serverRoot()}/api: the run is against it`,
    );
    expect(run.code).toBe(0);
    expect(run.results?.target.baseUrl).toBe(`${serverRoot()}/api`);
    expect(run.results?.summary.failed).toBe(0);
  });

  test('a path under which nothing answers: one line naming the likely root, exit 2', async () => {
    const document = path.join(repoRoot, 'fixtures', 'reference', 'prefect-openapi.json');
    const run = await runCli(['--document', document, '--read-only'], { CONFORMANCE_BASE_URL: `${serverRoot()}/nope` });
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        new RegExp(
          `^conformance: ${serverRoot()}/nope is not the API's root: the document's GET /health, .* all answered 404 there: did you mean ${serverRoot()}/nope/api\\?$`,
        ),
      ),
    ]);
    expect(run.results).toBeUndefined();
  });
});
