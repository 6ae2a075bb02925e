/**
 * A profile is the knowledge a document cannot carry: what an operator means, which operations are
 * destructive beyond the run's own objects, and request details a schema does not express.
 */
import type { Database } from '../../config/config.js';
import type { Operation, Schema } from '../../openapi/operations.js';
import type { Answer, RequestToSend, Send } from '../../openapi/request.js';
import type { ApiModel } from '../model.js';
import type { FilterSemantics } from '../oracle.js';
import type { Obj } from '../../openapi/json.js';
import { fitString } from '../../openapi/fitString.js';

/** The run's own objects, as a profile's fixtures and recipes may use them. */
export interface ProfileFixtures {
  object(collectionPath: string, mode: 'shared' | 'fresh'): Promise<Obj>;
  /** Send a request on the run's client (a recipe that needs a token another operation hands out). */
  send(request: RequestToSend): Promise<Answer>;
}

/** Names that carry the run's mark. */
export interface ProfileNames {
  readonly runTag: string;
  name(schema?: Schema): string;
}

/** What a profile's fixtures and recipes are handed (the cases stage's context satisfies it). */
export interface ProfileContext {
  model: ApiModel;
  fixtures: ProfileFixtures;
  safe: ProfileNames;
}

export interface RecipeInput extends ProfileContext {
  op: Operation;
  pathParams: Record<string, unknown>;
  /** The minimal body built from the schema. */
  body: unknown;
}

export interface RecipeOverride {
  body?: unknown;
  query?: Record<string, string | number | boolean>;
}

export interface Safety {
  /** Never send generated bodies: only the profile's scoped recipe, if any. */
  generated: boolean;
  /** Needs a disposable target (its effect reaches beyond the run's own objects). */
  disposableOnly: boolean;
  reason: string;
}

export interface CustomFixture {
  obj: Record<string, unknown>;
  /** The path parameters the object lives under (for its delete path). */
  pathParams?: Record<string, unknown>;
  /** False when deleting the object is not the run's job (a state goes with its run). */
  record: boolean;
}

export interface Profile {
  /** Creators for collections the document offers no create operation for (workers, states). */
  fixtures?: Record<string, (ctx: ProfileContext) => Promise<CustomFixture>>;
  name: string;
  /** Extra body fields or whole bodies for operations whose schema does not say enough to succeed. */
  recipe?: Record<string, (input: RecipeInput) => Promise<RecipeOverride> | RecipeOverride>;
  /** Fixed values for path parameters that name no object (`{view}`). */
  pathValue?(op: Operation, name: string): unknown;
  /** Values for path parameters that another operation hands out (a lease id). */
  asyncPathValue?(ctx: ProfileContext, op: Operation, name: string): Promise<unknown>;
  /**
   * Reads whose answer gathers what other requests put under the object they name (a flow run's graph of its
   * task runs): each such operation reads an object of its own, made once for its requests, so that what it
   * answers does not hang on the order in which the run's other requests reach the shared object.
   */
  readsOwnObject?(op: Operation): boolean;
  /** A value for an identifier that names no object. */
  unknownValue(schema: Schema): string;
  /** Optional body fields that name another object and should be filled (e.g. `flow_run_id` of a task run). */
  optionalReferences?: string[];
  safety(op: Operation): Safety | undefined;
  /** Fields that change by themselves (durations computed from the clock): left out when bodies are compared. */
  volatileFields?: string[];
  /**
   * Fields the server derives from a field a PATCH names (a work pool's status from is_paused): a PATCH of
   * the key may change them. Every other field a PATCH does not name must stay as it was.
   */
  derivedFields?: Record<string, string[]>;
  /** Creates the target documents as upserts, with the fields that identify the object. */
  upserts?: Record<string, string[]>;
  /** The API version header's rules, where the target documents them. */
  version?: { minimum?: string };
  /** Orchestration rules the target documents (Prefect: server/orchestration/core_policy.py). */
  orchestration?: OrchestrationRules;
  /** What filter operators mean, and per-field quirks. */
  filterSemantics?: FilterSemantics;
  /** The key a sort value orders by, for a collection (default: the value's name less _ASC/_DESC). */
  sortKey?(collectionKey: string, value: string): ((obj: Record<string, unknown>) => unknown) | undefined;
  /** The largest limit the target accepts, where the document does not say. */
  maxLimit?: number;
  /** The most bins a history answers with (Prefect: 500, api/run_history.py). */
  historyMaxBins?: number;
  /** The instant of a run its history bins it by (Prefect: `expected_start_time`); the spec names none. */
  historyBinnedBy?: string;
  /** The least history interval, in seconds, where the document says it in words only (Prefect: 1). */
  historyMinIntervalSeconds?: number;
  /** Why an operation cannot reach 2xx on this target, when that is known and not a defect. */
  unreachable?(op: Operation): string | undefined;
  /** Objects the server makes by itself when a request needs them, which a run may have caused. */
  sideEffects?: SideEffect[];
  /**
   * Pairs of collections where a DELETE of an object of the first changes the second, though no field of
   * either names the other (Prefect deletes a deployment's concurrency limit, in /v2/concurrency_limits, with
   * the deployment): model/relations.ts puts them in one group.
   */
  deleteReaches?: ReadonlyArray<readonly [string, string]>;
  /**
   * Body fields naming an object the server makes when none has that name (Prefect: `work_queue_name`):
   * generated values carry the run's mark, so that what the server makes for them is found and deleted.
   */
  namesMadeOnDemand?: string[];
  /**
   * Optional body fields never sent: their value makes the server keep a record that the API cannot delete
   * (so a run would leave it behind, on a shared target too).
   */
  fieldsNeverSent?: string[];
  /**
   * A valid body with what would make the server act by itself, beyond the run's requests, held to the run's
   * own (Prefect: an automation whose trigger matches every event fires on every event, its own firings too).
   */
  restrain?(op: Operation, body: unknown, runTag: string): unknown;
  /** The objects the server made on behalf of the run (named with its tag, or attached to its objects), to delete after it. */
  madeForRun?(send: ProfileSend, run: RunMarks): Promise<Array<{ path: string; template: string }>>;
  /** Operations (by key) that make an object for each name they are given and do not find (MadeForName). */
  madeForNames?: Record<string, MadeForName>;
  /** Which database serves a target given by URL, told by reads whose answers differ between databases. */
  database?(send: Send, operations: ReadonlyArray<Pick<Operation, 'method' | 'path'>>): Promise<DatabaseFinding>;
}

/** The database behind a target, as its answers tell it. */
export interface DatabaseFinding {
  /** Undefined when the answers could not tell. */
  database?: Database;
  /** How it was told, or why it could not be. */
  how: string;
}

type ProfileSend = (request: RequestToSend) => Promise<Answer>;

/** What tells the run's objects: its tag, and the ids the ledger recorded, by collection path. */
export interface RunMarks {
  runTag: string;
  ids(collection: string): string[];
}

/**
 * An object the server makes of its own accord (Prefect's `default-agent-pool`, made for a work queue that
 * names no pool). A run that found it absent deletes it afterwards, when nothing but what the server put in
 * it is left, so that it never takes someone else's objects with it.
 */
export interface SideEffect {
  /** Where to read it (200: it exists) and delete it. */
  path: string;
  /** The DELETE's operation template, for reports and counts. */
  template: string;
  why: string;
  /** Whether it holds nothing but what the server made with it and the run's own objects (checked before deleting). */
  isBare(send: ProfileSend, runTag: string): Promise<boolean>;
}

/**
 * Objects a request makes for the names it is given where it finds none of that name (Prefect 2.x and 3.0: an
 * inactive v2 concurrency limit for each name increment or decrement does not find). The names are the
 * request's, generated or not, so no mark of the run's tells them: the answer lists what the request read or
 * made, and cleanup reads each back and deletes those the request made, never one that was there before.
 */
export interface MadeForName {
  /** The request body's field that holds the names. */
  namesField: string;
  /** The template of one object, read and deleted by its id. */
  item: string;
  /** Whether an object, read back after the run, was made by a request the server answered at `answeredAt` (epoch ms, its Date header). */
  madeBy(obj: Obj, answeredAt: number): boolean;
}

/** A UUID that names no object of any run. */
export const UNKNOWN_UUID = '5f0e0c6a-0000-4000-8000-00000000beef';

/** An identifier that names no object: a fixed UUID where the schema says uuid, else a fixed name in a form the schema admits. */
export function unknownIdentifier(schema: Schema): string {
  if ((schema as { format?: string }).format === 'uuid') return UNKNOWN_UUID;
  return (
    fitString('conformance-unknown-0000', schema as { pattern?: string; maxLength?: number }) ??
    'conformance-unknown-0000'
  );
}

export interface OrchestrationRules {
  /** Where the rules are written down, for the checks' clause. */
  source: string;
  /** A repeated PENDING is refused without changing the run. */
  pendingToPendingAborts: boolean;
  /** RUNNING before the scheduled time is deferred; `force` bypasses the rules. */
  runningBeforeScheduledWaits: boolean;
  forceBypasses: boolean;
}
