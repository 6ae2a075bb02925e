/** The line that shows a verdict again, and the note on a curl line whose object cleanup deleted. */
import { describe, expect, test } from 'vitest';
import { addReplays, DELETED_NOTE, groupReplay, replayLine, shellWord } from '../../../src/report/replayLine.js';
import { checkResult, resultsOf } from '../support.js';

const byUrl = resultsOf([]);

describe('replayLine', () => {
  test('a URL run: its results, the check on the operation, the same target and what the run was allowed there', () => {
    const line = replayLine(
      { ...byUrl, disposable: true },
      'reports/results.json',
      {
        id: 'contract.no-5xx',
        operation: 'PATCH /block_documents/{id}',
        status: 'failed',
      },
      'npx orchestration-api-conformance',
    );
    expect(line).toBe(
      "npx orchestration-api-conformance replay reports/results.json --check contract.no-5xx --operation 'PATCH /block_documents/{id}' --base-url http://x/api --disposable",
    );
  });

  test('a known deviation is replayed with --known; a managed run names its release and database', () => {
    const managed = resultsOf([], {
      target: { ...byUrl.target, managed: 'prefect 3.4.25 on postgres' },
    });
    expect(replayLine(managed, '/tmp/r/results.json', { id: 'sorting.x[NAME_ASC]', status: 'xfail' }, 'c')).toBe(
      "c replay /tmp/r/results.json --check 'sorting.x[NAME_ASC]' --known --prefect-version 3.4.25 --db postgres",
    );
  });

  test('words a shell would split or expand are quoted, quotes within them too', () => {
    expect(shellWord('contract.no-5xx')).toBe('contract.no-5xx');
    expect(shellWord("it's $HOME")).toBe(`'it'\\''s $HOME'`);
  });
});

describe('addReplays', () => {
  test('failures, fixed cases and known deviations get a line; a curl naming a deleted object says so', () => {
    const id = '3cb2dd44-4bde-4660-90d0-cbc73beb603c';
    const failed = { ...checkResult('failed'), repro: `curl -sS -X PATCH 'http://x/api/x/${id}'` };
    const kept = {
      ...checkResult('xfail'),
      repro: "curl -sS -X GET 'http://x/api/x/00000000-0000-4000-8000-000000000000'",
    };
    const results = resultsOf([failed, kept, checkResult('passed')]);
    addReplays(results, 'reports/results.json', new Set([id]));
    const [a, b, c] = results.checks;
    expect(a!.replay).toMatch(
      / replay reports\/results\.json --check x --operation 'GET \/x' --base-url http:\/\/x\/api$/,
    );
    expect(a!.reproNote).toBe(DELETED_NOTE);
    expect(b!.replay).toContain(' --known ');
    expect(b!.reproNote).toBeUndefined();
    expect(c!.replay).toBeUndefined();
    // A group's line replays the check on every operation.
    expect(groupReplay(a!)).toBe(a!.replay!.replace(" --operation 'GET /x'", ''));
  });
});
