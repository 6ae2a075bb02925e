/** docs/findings.md: the MUST deviations of the shipped baselines, each once with its releases. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { BUILT_IN_CHECKS } from '../../../src/checks/core/registry.js';
import { loadBaseline } from '../../../src/baseline/entries.js';
import { shippedBaselines } from '../../../src/baseline/choice.js';
import { curlOf, findingsMarkdown } from '../../../src/report/findings.js';
import { repoRoot } from '../support.js';

describe('findings', () => {
  test('docs/findings.md is what `conformance baseline findings` writes from the shipped baselines', () => {
    const releases = shippedBaselines(path.join(repoRoot, 'fixtures', 'baselines'), 'prefect').map((b) => ({
      release: b.release,
      baseline: loadBaseline(b.file),
    }));
    expect(readFileSync(path.join(repoRoot, 'docs', 'findings.md'), 'utf8')).toBe(
      findingsMarkdown(releases, BUILT_IN_CHECKS),
    );
  });

  test('a MUST entry named by two releases is one finding with both; SHOULD entries are left out', () => {
    const must = {
      check: 'contract.no-5xx',
      operation: 'POST /flows/',
      kind: 'server-error',
      key: '500 generated',
      reason: 'crashes',
    } as const;
    const should = { ...must, check: 'errors.wrong-content-type', kind: 'input.accepted', key: '200' } as const;
    const md = findingsMarkdown(
      [
        { release: '3.4.25', baseline: { entries: [must, should] } },
        { release: '3.8.8', baseline: { entries: [must] } },
      ],
      BUILT_IN_CHECKS,
    );
    expect(md).toContain('1 deviations of MUST rules');
    expect(md).toContain(
      '| `contract.no-5xx` (4.1; OpenAPI document) | `server-error 500 generated` | POST /flows/ | 3.4.25, 3.8.8 | crashes |',
    );
    expect(md).not.toContain('errors.wrong-content-type');
  });

  test("an entry of a check's variant is a finding of that check, under the variant's id", () => {
    const entry = {
      check: 'sorting.by-value[NAME_ASC]',
      operation: 'POST /flows/filter',
      kind: 'order.violated',
      key: 'NAME_ASC',
      reason: 'unsorted',
    } as const;
    const md = findingsMarkdown([{ release: '3.8.8', baseline: { entries: [entry] } }], BUILT_IN_CHECKS);
    expect(md).toContain('1 deviations of MUST rules');
    expect(md).toContain(
      '| `sorting.by-value[NAME_ASC]` (4.3 rule 6) | `order.violated NAME_ASC` | POST /flows/filter |',
    );
  });

  test('an evidence request of a method, a path and JSON is a curl; placeholders stay words', () => {
    expect(curlOf('POST /flows/filter {"limit":201}')).toBe(
      `curl -sS -X POST "$BASE_URL/flows/filter" -H 'content-type: application/json' -d '{"limit":201}'`,
    );
    expect(curlOf('GET /flows/abc')).toBe('curl -sS -X GET "$BASE_URL/flows/abc"');
    expect(curlOf('GET /flow_runs/<id>/input/<key>')).toBeUndefined();
    expect(curlOf('POST /block_schemas/ {"fields":{...same fields twice...}}')).toBeUndefined();
    expect(curlOf('POST /x {"name":"it\'s"}')).toBe(
      `curl -sS -X POST "$BASE_URL/x" -H 'content-type: application/json' -d '{"name":"it'\\''s"}'`,
    );
  });
});
