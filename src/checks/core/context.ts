/**
 * What a check may use, and nothing more. `src/engine` implements it; no check imports the engine, the HTTP
 * client or the fixture pool. Every request goes through `send`, which records the exchange and notes
 * what it created for cleanup.
 */
import type { BuiltRequest } from '../../cases/requests.js';
import type { NegativeKind } from '../../cases/negative.js';
import type { EdgeLabel } from '../../cases/edges.js';
import type { Exchange } from '../../http/client.js';
import { SendingStopped } from '../../http/stopped.js';

// What a check may ask of an exchange's answer, beside the exchange itself.
export { timedOut } from '../../http/exchange.js';
import type { Collection, ApiModel } from '../../model/model.js';
import type { Obj } from '../../openapi/json.js';
import type { Profile } from '../../model/profiles/profile.js';
import type { Operation, Schema } from '../../openapi/operations.js';
import type { RequestToSend } from '../../openapi/request.js';
import type { SchemaProblem } from '../../openapi/validators.js';
import type { BuiltCorpus } from '../../resources/corpus.js';

/**
 * What a check sees of the stages before it, through this module only: an exchange, the error a send
 * throws once the run stops sending, and the query corpus.
 */
export type { BuiltCorpus, BuiltRequest, Exchange };
export { SendingStopped };

/**
 * How an exchange of an operation's exercise came about: `recipe` its valid request; `generated` a random valid
 * body; `edge` a valid body with boundary values chosen deterministically (cases/edges.ts); `extreme` one with
 * values past what an implementation must hold (cases/edges.ts EXTREME: a refusal is fair, a crash is not);
 * `negative` an invalid body; `wrong-content-type` the recipe's JSON body sent as text/plain (spec §4.2: a
 * server reads JSON as JSON); `unknown` an identifier that names no object; `unknown-reference` the recipe's
 * body with one reference to another object naming none (a refusal is fair, and so is taking it: the spec does
 * not say whether a server checks references; a crash is not); `server-made` a DELETE of a member the server
 * made itself under the run's own object (a work pool's default queue).
 */
export type ExchangeKind =
  | 'recipe'
  | 'generated'
  | 'edge'
  | 'extreme'
  | 'negative'
  | 'wrong-content-type'
  | 'unknown'
  | 'unknown-reference'
  | 'server-made'
  /** One create sent several times at the same moment under one name (engine/exercise.ts sendAtOnce). */
  | 'at-once'
  /** An action's largest amount sent several times in a row (engine/exercise.ts sendRepeatedAmount). */
  | 'repeated-amount'
  /** A read of what an accepted extreme value made or changed, by id or through its collection (contract.reads-back). */
  | 'read-back';

export interface Sent {
  kind: ExchangeKind;
  negative?: NegativeKind;
  /** For an edge or an extreme body: the label of the values it set (cases/edges.ts). */
  edge?: EdgeLabel;
  detail?: string;
  /**
   * For a generated body: the top-level fields in which the cause lies, those where it differs from the
   * valid request's body. For a random body the server answered with a 5xx, those of the property's shrunk
   * counterexample (every failing random body of an operation is on the way to it); for a baseline's
   * replay, those of its own body; for an edge, the fields it set.
   */
  fields?: string[];
  /** For a baseline's replay: its id (baseline/entries.ts replayId), so that a verify knows which entry it showed. */
  replay?: string;
  exchange: Exchange;
  /**
   * Where the server was still busy through the retries (503, or 503 then a dropped connection) or did not answer
   * in time, that first answer: `exchange` is then the same request sent once more after a pause. Served then,
   * the first was load.
   */
  busyFirst?: Exchange;
  /**
   * The server was busy for the operation, not broken by this request: the operation's valid request, sent beside
   * this one after a pause, was refused (503) or unanswered too, or the operation's requests had stayed so through
   * every pause before (engine/exercise.ts sentPatiently, askedBesideTheValid).
   */
  busyBeside?: true;
}

/** What exercising one operation sent and got. */
export interface OperationRun {
  op: Operation;
  /** Why the operation was not exercised at all. */
  skipped?: string;
  /** Not exercised because the run's budget or deadline was spent first: its checks are not run. */
  notRun?: boolean;
  /** Why the valid request could not reach 2xx, when that is known not to be a defect. */
  unreachable?: string;
  sent: Sent[];
  /** Set when the generated-body property failed: the shrunk counterexample's seed and path. */
  generation?: { seed: number; path?: string; counterexample?: unknown; runs: number };
  /**
   * What the exercise did not send to a target that is not the run's own, because the baseline says it breaks
   * the server for its other clients while it lasts (BaselineEntry.harmsOthers): the check it would show a
   * known deviation of, the edge, and why. That check is not judged on this operation, nor is any entry of
   * another that the edge shows (applyBaseline: causesUnanswered).
   */
  withheld?: Array<{ check: string; reason: string; edge?: string }>;
}

/** The settings of the run that a check's judgement depends on. Never a secret. */
export interface CheckSettings {
  seed: number;
  /** Generated cases per property. */
  runs: number;
  /** The prefix and tag of everything the run creates. */
  runTag: string;
  readOnly: boolean;
  /** The kind of credentials configured, if any. */
  credentials?: 'bearer' | 'basic';
}

export interface CheckContext {
  readonly model: ApiModel;
  readonly profile: Profile;
  readonly settings: CheckSettings;
  /** The valid request of an operation, on the run's own objects. Throws Skip when a prerequisite is missing. */
  validRequest(op: Operation): Promise<BuiltRequest>;
  /** Send a request on the run's one client; what it creates on behalf of `op` is cleaned up after the run. */
  send(request: RequestToSend, op?: Operation): Promise<Exchange>;
  /** An object of the run's: `fresh` for one only the caller uses, `shared` for the collection's common one. Throws Skip. */
  object(collectionPath: string, mode: 'fresh' | 'shared'): Promise<Obj>;
  /** The path that names an object of a collection (its parents' parameters filled from the shared objects). */
  itemPath(collection: Collection, obj: Obj): Promise<string>;
  /** What exercising the operation sent and got (exercised before any check runs). */
  exchangesOf(op: Operation): OperationRun;
  /** A value against a schema of the document: undefined when it matches. */
  validate(schema: Schema, value: unknown): SchemaProblem | undefined;
  /** The run's corpus of the core collections, for the query families. Throws Skip when it cannot be had. */
  corpus(): Promise<BuiltCorpus>;
  /** Note that a filter (collection.field.operator) was checked, or why it could not be. */
  noteFilterCoverage(triple: string, outcome: { checked: number } | { skipped: string }): void;
}
