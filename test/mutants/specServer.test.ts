/**
 * The kill matrix in front of the second implementation (support/specServer.ts): a server that is not Prefect,
 * judged from its document and the spec alone, breaks one behaviour per mutant behind the fault-injecting proxy,
 * and each family of checks catches at least one of them; the unmutated proxy gives no failure. Most mutants are
 * the Prefect matrix's own (their paths are the spec's); the version header and the key are this server's.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BUILT_IN_FAMILIES, checkIdOf, familyOf } from '../../src/checks/core/check.js';
import { exitCodeOf } from '../../src/report/results.js';
import { type CliRun, failedChecks, runCli } from '../support/runCli.js';
import { type RunningProxy, startProxy } from '../support/proxy.js';
import { type RunningSpecServer, startSpecServer } from '../support/specServer.js';
import {
  contractMutants,
  filterServedWithoutKey,
  gateMutants,
  malformedVersionAccepted,
  type MutantCase,
  queryMutants,
  verbMutants,
} from './registry.js';

const KEY = 'spec-server-key-0002';

/** The Prefect matrix's mutants whose operations the second implementation has under the same paths. */
const REUSED = [
  'contract-500-on-filter',
  'gate-405-without-allow',
  'filters-related-ignored',
  'sorting-name-asc-reversed',
  'pagination-limit-ignored',
  'aggregates-count-off-by-one',
  'orchestration-accept-without-change',
  'errors-500-for-malformed-id',
  'spec-get-with-body',
];

const ownMutants: MutantCase[] = [
  {
    mutant: malformedVersionAccepted('spec-server-version-malformed-accepted', 'x-service-api-version'),
    operations: '^POST /flows/filter$',
    killedBy: ['versioning.malformed-refused POST /flows/filter'],
  },
  {
    mutant: filterServedWithoutKey('spec-server-auth-bypassed', KEY),
    operations: '^POST /flows/filter$',
    killedBy: ['auth.required POST /flows/filter'],
  },
];

const all = [...contractMutants, ...verbMutants, ...queryMutants, ...gateMutants];
const mutants: MutantCase[] = [...REUSED.map((id) => all.find((m) => m.mutant.id === id)!), ...ownMutants];

let server: RunningSpecServer;
let proxy: RunningProxy;

/** A run of the mutant's operations (and, for a mutant, only the checks that must catch it) through the proxy. */
function runThroughProxy(operations: string, killedBy?: string[]): Promise<CliRun> {
  const checks = killedBy && [...new Set(killedBy.map((k) => checkIdOf(k.slice(0, k.indexOf(' ')))))].join(',');
  return runCli([], {
    CONFORMANCE_BASE_URL: proxy.baseUrl,
    CONFORMANCE_DISPOSABLE_TARGET: '1',
    CONFORMANCE_API_KEY: KEY,
    CONFORMANCE_OPERATIONS: operations,
    ...(checks ? { CONFORMANCE_CHECKS: checks } : {}),
  });
}

beforeAll(async () => {
  server = await startSpecServer({ apiKey: KEY });
  proxy = await startProxy(server.baseUrl);
});

afterAll(async () => {
  await proxy?.close();
  await server?.stop();
});

describe('kill matrix in front of the second implementation', () => {
  test('every family has a mutant here', () => {
    const families = new Set(mutants.flatMap((m) => m.killedBy.map((k) => familyOf(checkIdOf(k.split(' ')[0])))));
    expect([...families].sort()).toEqual([...BUILT_IN_FAMILIES].sort());
  });

  test('the unmutated proxy gives no failure', async () => {
    proxy.setMutant(undefined);
    const run = await runThroughProxy([...new Set(mutants.map((m) => m.operations))].join('|'));
    expect(failedChecks(run.results), server.log()).toEqual([]);
    expect(run.results?.checks.length).toBeGreaterThan(0);
    expect(run.code).toBe(0);
  });

  for (const m of mutants) {
    test(`${m.mutant.id} is killed by ${m.killedBy.join(', ')}`, async () => {
      proxy.setMutant(m.mutant);
      const run = await runThroughProxy(m.operations, m.killedBy);
      proxy.setMutant(undefined);
      expect(failedChecks(run.results), run.stderr).toEqual(expect.arrayContaining(m.killedBy));
      // The exit code follows the verdicts: 1 where a MUST failed; a SHOULD's failure is a warning.
      expect(run.code).toBe(exitCodeOf(run.results!));
      if (run.results!.checks.some((c) => m.killedBy.includes(`${c.id} ${c.operation}`) && c.level === 'MUST'))
        expect(run.code).toBe(1);
    });
  }
});
