/**
 * The vitest adapter: a family of checks as vitest tests, one per (check, operation, variant), named by the
 * reported id, so that vitest's runner, sharding and reporters serve us. Each test awaits its verdict from the
 * engine (engine/judging.ts); the result, with the baseline applied, travels to the reporters in the test's
 * meta, and the test's outcome is its JUnit outcome.
 */
import { afterAll, assert, inject, test } from 'vitest';
import { reportedId, type Family } from '../../checks/core/check.js';
import { skip } from '../../checks/core/verdict.js';
import { exerciseBesideFamily, familyCases, readyForFamily, result } from '../../engine/judging.js';
import { createSession, type Session } from '../../engine/session.js';
import { junitOutcomeOf } from '../../report/junit.js';
import './taskMeta.js';
import { PROVIDED_START } from './provided.js';
import { labelForAllure } from './allureLabels.js';

/**
 * The run's one session in this worker thread, by its run folder (a cache: made when the first family asks,
 * then the same for every family; vitest runs the suite files in one thread, without isolation).
 */
const sessions = new Map<string, Promise<Session>>();

function getSession(): Promise<Session> {
  const start = inject(PROVIDED_START);
  if (!start) throw new Error('the conformance suites run inside `npm run conformance`, which configures them');
  const made = sessions.get(start.runDir) ?? createSession(start);
  sessions.set(start.runDir, made);
  return made;
}

export function registerFamily(session: Session, family: Family): void {
  // Every suite file carries the run's view of operations and target, so that shards merge whole.
  // biome-ignore lint/correctness/noEmptyPattern: vitest hands a hook its context first, as a pattern it can read
  afterAll(({}, suite) => {
    suite.meta.operations = session.operationSummaries();
    suite.meta.runInfo = session.runInfo();
    const coverage = session.filterCoverage(family);
    if (coverage.length > 0) suite.meta.filterCoverage = coverage;
  });
  const { cases, verdictOf } = familyCases(session, family);
  if (cases.length === 0) {
    // vitest calls a file without tests an error; this family simply has nothing to say about these operations.
    test.skip(`${family}: no check applies to the operations of this run`, () => {});
    return;
  }
  for (const c of cases) {
    const { check, op, variant } = c;
    test(`${reportedId(check, variant)} ${op.key}`, async ({ task, skip: skipTest }) => {
      const j = await verdictOf(c);
      // vitest runs a file's tests one after another without leaving the microtask queue: a turn of the
      // event loop lets the answers to the next family's requests in, and its next requests out.
      await new Promise((r) => setImmediate(r));
      session.noteVerdict();
      const r =
        'notRun' in j
          ? { ...result(session, check, op, variant, skip(j.notRun)), notRun: true }
          : { ...result(session, check, op, variant, j.verdict), ms: j.ms };
      task.meta.conformance = r;
      await labelForAllure(r);
      // The test's outcome is the verdict's JUnit outcome (report/junit.ts), so that Allure counts as junit.xml
      // does, and both as the gate: a failure the gate counts or an xpass fails (an assertion: Allure's
      // "failed"), a SHOULD or MAY failure passes with its warning in its description and `verdict: failed`
      // label, an xfail is skipped with its reason, a check the target stopped answering for is broken.
      const outcome = junitOutcomeOf(r.status, check.level, session.config.gateShould);
      if (outcome === 'skipped')
        skipTest(r.status === 'xfail' ? `XFAIL (baseline: ${r.baseline!.reason}): ${r.message}` : r.message);
      if (outcome === 'error') throw new Error(r.message);
      if (outcome === 'failure')
        assert.fail(
          r.status === 'xpass'
            ? `a baselined failure passed: update the baseline (${r.baseline!.reason}): ${r.message}`
            : `[${check.level}] ${check.title}\n${r.message}\n${r.repro ?? ''}`,
        );
    });
  }
}

/** The family's checks as vitest tests, once the engine is ready for them. */
async function registerWhenReady(session: Session, family: Family): Promise<void> {
  await readyForFamily(session, family);
  registerFamily(session, family);
  exerciseBesideFamily(session, family);
}

/** A suite file's one line: its family's checks as vitest tests. */
export async function registerSuite(family: Family): Promise<void> {
  await registerWhenReady(await getSession(), family);
}

/**
 * The one line of the file of the families a run declares in its own modules (`--check-modules`), each
 * registered as a built-in family is, after them. The run's vitest runs the file only when the run has modules
 * (suitesConfig.ts).
 */
export async function registerDeclaredSuites(): Promise<void> {
  const session = await getSession();
  for (const family of session.checks.declaredFamilies()) await registerWhenReady(session, family);
}
