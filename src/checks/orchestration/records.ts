/**
 * Family `orchestration`: state changes through `create_flow_run` and `set_state` (spec §3, §4.2, §4.3
 * rule 3), the transition rules the target's profile documents, and the views of a flow run that its task
 * runs make (its graph) kept whole by every kind of task input the document allows. Each record names its
 * rule; how each is judged is in orchestration/, beside what the checks share (flowRuns.ts).
 */
import { defineCheck } from '../core/check.js';
import {
  createFromEmptyBody,
  createInStateGiven,
  createOnUnknownDeployment,
  createRefusesTextPlain,
} from './createFlowRun.js';
import { isCreateFlowRun, isSetState } from './flowRuns.js';
import { forceBypasses, pendingRaceOneWins, pendingTwiceAborts, runningEarlyWaits } from './rules.js';
import { failedFoundByFilter, historyInOrder, legalPathAccepted, setStateShape } from './setState.js';
import { isFlowRunView, taskInputKinds, viewsAnyTaskInput } from './taskInputs.js';

export const orchestrationChecks = [
  defineCheck({
    id: 'orchestration.create-flow-run-empty',
    level: 'MUST',
    clause: '4.2',
    title: 'MUST create a flow run of the deployment from an empty body {}',
    appliesTo: isCreateFlowRun,
    run: createFromEmptyBody,
  }),
  defineCheck({
    id: 'orchestration.create-flow-run-state',
    level: 'MUST',
    clause: '4.2',
    title: 'MUST create the flow run in the state the body gives',
    appliesTo: isCreateFlowRun,
    run: createInStateGiven,
  }),
  defineCheck({
    id: 'orchestration.create-flow-run-content-type',
    level: 'MUST',
    clause: '4.2',
    title: 'MUST refuse create_flow_run without a JSON content type (the spec requires the header)',
    appliesTo: isCreateFlowRun,
    run: createRefusesTextPlain,
  }),
  defineCheck({
    id: 'orchestration.create-flow-run-unknown',
    level: 'MUST',
    clause: '4.2',
    title: 'MUST answer 404 to create_flow_run on a deployment that does not exist',
    appliesTo: isCreateFlowRun,
    run: createOnUnknownDeployment,
  }),
  defineCheck({
    id: 'orchestration.set-state-shape',
    level: 'MUST',
    clause: '4.2; OpenAPI document',
    title: 'MUST answer set_state with every field its document requires ({status, state, details} on Prefect)',
    appliesTo: isSetState,
    run: setStateShape,
  }),
  defineCheck({
    id: 'orchestration.set-state-legal-path',
    level: 'MUST',
    clause: '3',
    title: 'MUST accept SCHEDULED → PENDING → RUNNING → COMPLETED, and the run is in each state after',
    appliesTo: isSetState,
    run: legalPathAccepted,
  }),
  defineCheck({
    id: 'orchestration.history-in-order',
    level: 'MUST',
    clause: '3',
    title: "MUST record the accepted transitions in order in the run's state history",
    appliesTo: isSetState,
    run: historyInOrder,
  }),
  defineCheck({
    id: 'orchestration.failed-found-by-filter',
    level: 'MUST',
    clause: '4.3 rule 3',
    title: 'MUST find a FAILED run by flow_runs.state.type.any_ [FAILED], and only then',
    appliesTo: isSetState,
    run: failedFoundByFilter,
  }),
  defineCheck({
    id: 'orchestration.pending-twice-aborts',
    level: 'MUST',
    clause: 'profile',
    title: 'MUST refuse PENDING → PENDING (ABORT) and leave the run as it was',
    appliesTo: isSetState,
    run: pendingTwiceAborts,
  }),
  defineCheck({
    id: 'orchestration.pending-race-one-wins',
    level: 'MUST',
    clause: 'profile',
    title: 'MUST accept one of two PENDING proposals sent at once on a SCHEDULED run, and ABORT the other',
    appliesTo: isSetState,
    run: pendingRaceOneWins,
  }),
  defineCheck({
    id: 'orchestration.running-early-waits',
    level: 'MUST',
    clause: 'profile',
    title: 'MUST defer RUNNING before the scheduled time (WAIT) and leave the run as it was',
    appliesTo: isSetState,
    run: runningEarlyWaits,
  }),
  defineCheck({
    id: 'orchestration.force-bypasses',
    level: 'MUST',
    clause: 'profile',
    title: 'MUST accept with force a transition the rules would defer',
    appliesTo: isSetState,
    run: forceBypasses,
  }),
  defineCheck({
    id: 'orchestration.views-any-task-input',
    level: 'MUST',
    clause: '4.1; OpenAPI document',
    title:
      "MUST answer a flow run's views (its graph) as before once a task run of it takes an input of any documented kind",
    appliesTo: isFlowRunView,
    variants: (_op, ctx) => [...taskInputKinds(ctx).keys()].sort(),
    run: viewsAnyTaskInput,
  }),
];
