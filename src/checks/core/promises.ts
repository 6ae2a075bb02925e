/**
 * The promises of spec §4.1 (its table of verb meanings and its rules), each with the checks that hold it,
 * or why none does yet. docs/checks.md lists them; a unit test keeps every id here in the registry.
 */
import type { CheckId } from './check.js';

export interface Promise41 {
  promise: string;
  heldBy: CheckId[];
  /** What no check holds yet, or how a check decides, where a reader needs it. */
  note?: string;
}

export const PROMISES_4_1: readonly Promise41[] = [
  {
    promise: '`POST /collection` creates a new member',
    heldBy: ['methods.create-stored', 'contract.reaches-2xx'],
  },
  {
    promise: '`GET /collection/:id` returns one member by id',
    heldBy: ['methods.create-stored', 'contract.unknown-id-404', 'contract.success-schema'],
  },
  {
    promise: '`GET /collection` lists all members',
    heldBy: ['filters.oracle', 'pagination.windows', 'aggregates.count-agrees'],
  },
  {
    promise: '`DELETE /collection/:id` deletes one member, from every view',
    heldBy: ['methods.delete-then-404', 'methods.delete-only-target', 'methods.delete-gone-from-views'],
    note: "by id (a GET), by count, and in the collection's filter and paginate by id, where they select by id",
  },
  {
    promise: '`PUT /collection/:id` creates or replaces one member',
    heldBy: ['methods.put-idempotent'],
  },
  {
    promise: '`PATCH /collection/:id` partially updates one member',
    heldBy: ['methods.patch-partial'],
    note: "each field PATCH can change, one PATCH each, and the valid request. The fields the server maintains, which may change: `updated` and the profile's volatile fields; those two reads with no write between answer differently; those the profile says it derives from the named field (a work queue's status from is_paused)",
  },
  {
    promise: 'rule 1: GET, PUT and DELETE are idempotent',
    heldBy: ['methods.get-repeatable', 'methods.get-safe', 'methods.put-idempotent', 'methods.delete-twice-404'],
  },
  {
    promise: 'rule 2: GET requests take no information from the request body',
    heldBy: ['methods.get-ignores-body'],
  },
];
