/**
 * Family `orchestration`: state changes through `create_flow_run` and `set_state` (spec §3, §4.2, §4.3
 * rule 3), and the transition rules the target's profile documents.
 */
import type { Exchange } from '../http/client.js';
import type { Session } from '../run/session.js';
import type { Operation } from '../spec/operations.js';
import { is2xx, probing, recipe, send, Skip, unexpected, type Obj } from './probe.js';
import { fail, pass, skip, type Check, type Level, type Verdict } from './types.js';

const CREATE_FLOW_RUN = /^POST \/deployments\/\{[^}]+\}\/create_flow_run\/?$/;
const SET_STATE = /^POST \/flow_runs\/\{[^}]+\}\/set_state\/?$/;

const flowRuns = (session: Session) => {
  const c = session.model.collections.get('/flow_runs');
  if (!c?.create || !c.read) throw new Skip('the document has no /flow_runs create and read');
  return c;
};

async function readRun(session: Session, id: unknown): Promise<Exchange> {
  const c = flowRuns(session);
  return send(session, undefined, { method: 'GET', template: c.read!.path, path: c.read!.path.replace(/\{[^}]+\}/, String(id)) });
}

const stateType = (run: Exchange) => ((run.json as Obj | undefined)?.state as Obj | undefined)?.type;

/** A fresh flow run of the run's own flow, in the state given (scheduled a minute ago unless said). */
async function freshRun(session: Session, state: Obj): Promise<Obj> {
  const c = flowRuns(session);
  const flow = await session.pool.object('/flows', 'shared');
  const ex = await send(session, c.create, { method: 'POST', template: c.create!.path, path: c.create!.path, json: { flow_id: flow.id, tags: [session.config.runTag], state } });
  if (!is2xx(ex)) throw new Skip(`cannot create a flow run in state ${state.type}: ${ex.status} ${ex.body.slice(0, 200)}`);
  return ex.json as Obj;
}

async function setState(session: Session, op: Operation, runId: unknown, state: Obj, force = false): Promise<Exchange> {
  const path = op.path.replace(/\{[^}]+\}/, String(runId));
  return send(session, op, { method: 'POST', template: op.path, path, json: { state, force } });
}

const scheduled = (offsetMs: number) => ({ type: 'SCHEDULED', state_details: { scheduled_time: new Date(Date.now() + offsetMs).toISOString() } });

/** One legal path, shared by the checks that look at it. */
const legalPaths = new WeakMap<Session, Promise<{ steps: Array<{ to: string; answer: Exchange; read: Exchange }>; runId: unknown }>>();

function legalPath(session: Session, op: Operation) {
  let p = legalPaths.get(session);
  if (!p) {
    p = (async () => {
      const run = await freshRun(session, scheduled(-60_000));
      const steps = [];
      for (const to of ['PENDING', 'RUNNING', 'COMPLETED']) {
        const answer = await setState(session, op, run.id, { type: to });
        steps.push({ to, answer, read: await readRun(session, run.id) });
      }
      return { steps, runId: run.id };
    })();
    legalPaths.set(session, p);
  }
  return p;
}

function check(id: string, level: Level, clause: string, title: string, pattern: RegExp, run: (op: Operation, session: Session) => Promise<Verdict>): Check<Session> {
  return { id, family: 'orchestration', level, clause, title, appliesTo: (op) => pattern.test(op.key), run: (op, session) => probing(() => run(op, session)) };
}

/** A check of a rule the profile documents; skipped where the profile says nothing. */
function ruleCheck(id: string, rule: 'pendingToPendingAborts' | 'runningBeforeScheduledWaits' | 'forceBypasses', title: string, run: (op: Operation, session: Session) => Promise<Verdict>): Check<Session> {
  return {
    id,
    family: 'orchestration',
    level: 'MUST',
    clause: 'profile',
    title,
    appliesTo: (op) => SET_STATE.test(op.key),
    run: (op, session) => {
      const rules = session.cases.profile.orchestration;
      if (!rules?.[rule]) return skip(`the ${session.cases.profile.name} profile documents no such rule`);
      return probing(() => run(op, session));
    },
  };
}

export const orchestrationChecks: Array<Check<Session>> = [
  check('orchestration.create-flow-run-empty', 'MUST', '4.2', 'MUST create a flow run of the deployment from an empty body {}', CREATE_FLOW_RUN, async (op, session) => {
    const built = await recipe(session, op);
    const ex = await send(session, op, { ...built.spec, json: {} });
    if (!is2xx(ex)) return unexpected('create_flow_run with {}', ex);
    const run = ex.json as Obj;
    const deploymentId = built.pathParams[Object.keys(built.pathParams)[0]];
    if (run.deployment_id !== deploymentId) return fail(`the new run's deployment_id is ${run.deployment_id}, not ${deploymentId}`, [ex]);
    const read = await readRun(session, run.id);
    return read.status === 200 ? pass() : fail(`the new run cannot be read back: ${read.status}`, [ex, read]);
  }),
  check('orchestration.create-flow-run-state', 'MUST', '4.2', 'MUST create the flow run in the state the body gives', CREATE_FLOW_RUN, async (op, session) => {
    const built = await recipe(session, op);
    const plain = await send(session, op, { ...built.spec, json: {} });
    const defaultType = (plain.json as Obj | undefined)?.state && ((plain.json as Obj).state as Obj).type;
    const wanted = defaultType === 'PENDING' ? 'SCHEDULED' : 'PENDING';
    const ex = await send(session, op, { ...built.spec, json: { state: { type: wanted } } });
    if (!is2xx(ex)) return unexpected(`create_flow_run with state ${wanted}`, ex);
    const read = await readRun(session, (ex.json as Obj).id);
    return stateType(read) === wanted ? pass(`created in ${wanted} (the default is ${defaultType})`) : fail(`asked for ${wanted}, the run is in ${stateType(read)}`, [ex, read]);
  }),
  check('orchestration.create-flow-run-content-type', 'MUST', '4.2', 'MUST refuse create_flow_run without a JSON content type (the spec requires the header)', CREATE_FLOW_RUN, async (op, session) => {
    const built = await recipe(session, op);
    const ex = await send(session, op, { ...built.spec, json: undefined, raw: '{}', headers: { 'content-type': 'text/plain' } });
    return ex.status >= 400 && ex.status < 500 ? pass(`answered ${ex.status}`) : fail(`a text/plain body answered ${ex.status || ex.error}`, [ex]);
  }),
  check('orchestration.create-flow-run-unknown', 'MUST', '4.2', 'MUST answer 404 to create_flow_run on a deployment that does not exist', CREATE_FLOW_RUN, async (op, session) => {
    const path = op.path.replace(/\{[^}]+\}/, '5f0e0c6a-0000-4000-8000-00000000beef');
    const ex = await send(session, op, { method: 'POST', template: op.path, path, json: {} });
    return ex.status === 404 ? pass() : fail(`answered ${ex.status || ex.error}`, [ex]);
  }),
  check('orchestration.set-state-shape', 'MUST', '4.2; OpenAPI document', 'MUST answer set_state with {status, state, details}', SET_STATE, async (op, session) => {
    const { steps } = await legalPath(session, op);
    const bad = steps.find((s) => !s.answer.json || !['status', 'state', 'details'].every((k) => k in (s.answer.json as Obj)));
    return bad ? fail(`set_state to ${bad.to} answered without status, state and details`, [bad.answer]) : pass();
  }),
  check('orchestration.set-state-legal-path', 'MUST', '3', 'MUST accept SCHEDULED → PENDING → RUNNING → COMPLETED, and the run is in each state after', SET_STATE, async (op, session) => {
    const { steps } = await legalPath(session, op);
    for (const s of steps) {
      if (!is2xx(s.answer) || (s.answer.json as Obj)?.status !== 'ACCEPT') return fail(`set_state to ${s.to} answered ${s.answer.status} ${JSON.stringify((s.answer.json as Obj)?.status)}`, [s.answer]);
      if (stateType(s.read) !== s.to) return fail(`set_state to ${s.to} was accepted, but the run is in ${stateType(s.read)}`, [s.answer, s.read]);
    }
    return pass();
  }),
  check('orchestration.history-in-order', 'MUST', '3', 'MUST record the accepted transitions in order in the run\'s state history', SET_STATE, async (op, session) => {
    const history = session.model.operations.find((o) => o.method === 'GET' && /^\/flow_run_states\/?$/.test(o.path));
    if (!history) return skip('the document has no state history of a flow run');
    const { steps, runId } = await legalPath(session, op);
    const ex = await send(session, undefined, { method: 'GET', template: history.path, path: history.path, query: { flow_run_id: String(runId) } });
    if (!is2xx(ex) || !Array.isArray(ex.json)) return unexpected('the state history', ex);
    const types = (ex.json as Obj[]).sort((a, b) => String(a.timestamp).localeCompare(String(b.timestamp))).map((s) => s.type);
    const expected = steps.map((s) => s.to);
    return JSON.stringify(types.slice(-expected.length)) === JSON.stringify(expected) ? pass(types.join(' → ')) : fail(`history is ${types.join(' → ')}; expected it to end ${expected.join(' → ')}`, [ex]);
  }),
  check('orchestration.failed-found-by-filter', 'MUST', '4.3 rule 3', 'MUST find a FAILED run by flow_runs.state.type.any_ [FAILED], and only then', SET_STATE, async (op, session) => {
    const run = await freshRun(session, scheduled(-60_000));
    for (const to of ['PENDING', 'RUNNING']) await setState(session, op, run.id, { type: to });
    const failed = await setState(session, op, run.id, { type: 'FAILED' }, true);
    if (!is2xx(failed)) return unexpected('set_state to FAILED', failed);
    const filter = session.model.collections.get('/flow_runs')?.filter;
    if (!filter) return skip('no /flow_runs/filter');
    const ids = async (types: string[]) => {
      const ex = await send(session, undefined, { method: 'POST', template: filter.path, path: filter.path, json: { flow_runs: { id: { any_: [run.id] }, state: { type: { any_: types } } } } });
      return { ex, ids: Array.isArray(ex.json) ? (ex.json as Obj[]).map((r) => r.id) : [] };
    };
    const [hit, miss] = [await ids(['FAILED']), await ids(['COMPLETED'])];
    if (!hit.ids.includes(run.id)) return fail('the FAILED run is not found by state.type.any_ [FAILED]', [failed, hit.ex]);
    return miss.ids.length === 0 ? pass() : fail('the FAILED run is also found by state.type.any_ [COMPLETED]', [miss.ex]);
  }),
  ruleCheck('orchestration.pending-twice-aborts', 'pendingToPendingAborts', 'MUST refuse PENDING → PENDING (ABORT) and leave the run as it was', async (op, session) => {
    const run = await freshRun(session, scheduled(-60_000));
    await setState(session, op, run.id, { type: 'PENDING' });
    const before = await readRun(session, run.id);
    const again = await setState(session, op, run.id, { type: 'PENDING' });
    const after = await readRun(session, run.id);
    if ((again.json as Obj)?.status !== 'ABORT') return fail(`PENDING → PENDING answered ${JSON.stringify((again.json as Obj)?.status)}`, [again]);
    return (before.json as Obj)?.state_id === (after.json as Obj)?.state_id ? pass() : fail('the ABORTed transition changed the run\'s state', [again, after]);
  }),
  ruleCheck('orchestration.running-early-waits', 'runningBeforeScheduledWaits', 'MUST defer RUNNING before the scheduled time (WAIT) and leave the run as it was', async (op, session) => {
    const run = await freshRun(session, scheduled(3_600_000));
    const answer = await setState(session, op, run.id, { type: 'RUNNING' });
    const after = await readRun(session, run.id);
    if ((answer.json as Obj)?.status !== 'WAIT') return fail(`RUNNING an hour early answered ${JSON.stringify((answer.json as Obj)?.status)}`, [answer]);
    return stateType(after) === 'SCHEDULED' ? pass() : fail(`after WAIT the run is in ${stateType(after)}`, [answer, after]);
  }),
  ruleCheck('orchestration.force-bypasses', 'forceBypasses', 'MUST accept with force a transition the rules would defer', async (op, session) => {
    const run = await freshRun(session, scheduled(3_600_000));
    const answer = await setState(session, op, run.id, { type: 'RUNNING' }, true);
    const after = await readRun(session, run.id);
    if ((answer.json as Obj)?.status !== 'ACCEPT') return fail(`a forced RUNNING an hour early answered ${JSON.stringify((answer.json as Obj)?.status)}`, [answer]);
    return stateType(after) === 'RUNNING' ? pass() : fail(`after a forced ACCEPT the run is in ${stateType(after)}`, [answer, after]);
  }),
];

