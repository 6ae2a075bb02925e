/**
 * Family `methods`: the verb semantics of spec §4.1. GET, PUT and DELETE are idempotent; GET takes
 * nothing from the body and changes nothing; DELETE removes exactly its object; PATCH changes only what
 * it names; a method a path does not offer gets 405. Each record names its rule; how each is judged is in
 * methods/ (reads, deletes, writes, notAllowed), beside what the checks share.
 */
import { namedCollection } from '../../model/model.js';
import { defineCheck } from '../core/check.js';
import {
  deleteGoneFromViews,
  deleteOnlyTarget,
  deleteThen404,
  deleteTwice404,
  isDeleteOfObject,
  isDeleteOfObjectInViews,
  isDeleteOfObservableObject,
  isDeleteOfReadableObject,
  prepareDelete,
} from './deletes.js';
import { methods405, methods405Allow, probes405 } from './notAllowed.js';
import { getIgnoresBody, getRepeatable, getSafe } from './reads.js';
import { relatedGroup } from './shared.js';
import { createStored } from './stored.js';
import { patchPartial, putIdempotent, upsert, upsertConcurrent } from './writes.js';

export const methodsChecks = [
  defineCheck({
    id: 'methods.get-repeatable',
    level: 'MUST',
    clause: '4.1 rule 1',
    title: 'MUST answer a repeated GET with the same status and body (GET is idempotent)',
    isolation: 'quiet',
    appliesTo: (op) => op.method === 'GET',
    run: getRepeatable,
  }),
  defineCheck({
    id: 'methods.get-safe',
    level: 'MUST',
    clause: '4.1 rule 1',
    title: 'MUST change nothing on GET: the object and the count of its collection are the same after many GETs',
    isolation: 'quiet',
    appliesTo: (op, ctx) => op.method === 'GET' && namedCollection(ctx.model, op)?.read !== undefined,
    run: getSafe,
  }),
  defineCheck({
    id: 'methods.get-ignores-body',
    level: 'MUST',
    clause: '4.1 rule 2',
    title: 'MUST answer a GET with a request body as it answers one without (GET takes nothing from the body)',
    isolation: 'quiet',
    appliesTo: (op) => op.method === 'GET',
    run: getIgnoresBody,
  }),
  defineCheck({
    id: 'methods.put-idempotent',
    level: 'MUST',
    clause: '4.1 rule 1',
    title: 'MUST leave the same state and answer the same class of status when a PUT is applied twice',
    isolation: 'alone',
    lane: relatedGroup,
    appliesTo: (op) => op.method === 'PUT',
    run: putIdempotent,
  }),
  defineCheck({
    id: 'methods.delete-then-404',
    level: 'MUST',
    clause: '4.1',
    title: 'MUST answer 404 to a GET of an object after its DELETE',
    isolation: 'alone',
    lane: relatedGroup,
    prepare: prepareDelete,
    appliesTo: isDeleteOfReadableObject,
    run: deleteThen404,
  }),
  defineCheck({
    id: 'methods.delete-twice-404',
    level: 'MUST',
    clause: '4.1 rule 1',
    title: 'MUST answer 404 to a second DELETE of the same object',
    isolation: 'alone',
    lane: relatedGroup,
    prepare: prepareDelete,
    appliesTo: isDeleteOfObject,
    run: deleteTwice404,
  }),
  defineCheck({
    id: 'methods.delete-only-target',
    level: 'MUST',
    clause: '4.1',
    title: 'MUST delete only the object named: the collection shrinks by one and other objects remain',
    isolation: 'alone',
    lane: relatedGroup,
    prepare: prepareDelete,
    appliesTo: isDeleteOfObservableObject,
    run: deleteOnlyTarget,
  }),
  defineCheck({
    id: 'methods.delete-gone-from-views',
    level: 'MUST',
    clause: '4.1; 4.3',
    title: "MUST leave a deleted object out of the collection's filter and paginate, and keep the others there",
    isolation: 'alone',
    lane: relatedGroup,
    prepare: prepareDelete,
    appliesTo: isDeleteOfObjectInViews,
    run: deleteGoneFromViews,
  }),
  defineCheck({
    id: 'methods.patch-partial',
    level: 'MUST',
    clause: '4.1',
    title: 'MUST change only the fields a PATCH names, for every field PATCH can change and for the valid request',
    appliesTo: (op, ctx) => op.method === 'PATCH' && namedCollection(ctx.model, op)?.read !== undefined,
    run: patchPartial,
  }),
  defineCheck({
    id: 'methods.create-stored',
    level: 'MUST',
    clause: '4.1 (POST /collection creates a new member)',
    title:
      'MUST store the member a create answers: a GET of it right after agrees with the answer and with the fields the request set',
    appliesTo: (op, ctx) => {
      const c = ctx.model.collectionOf(op);
      return c?.create === op && c.read !== undefined && c.item !== undefined;
    },
    run: createStored,
  }),
  defineCheck({
    id: 'methods.upsert',
    level: 'MAY',
    clause:
      "open: POST need not be idempotent (4.1 rule 1), so an upsert is the target's choice, reported where its profile documents one; 4.1 rule 1; profile (the target documents the upsert)",
    title: 'MAY upsert: a create the target documents as an upsert returns the same object for the same key',
    appliesTo: (op, ctx) => op.key in (ctx.profile.upserts ?? {}),
    run: upsert,
  }),
  defineCheck({
    id: 'methods.upsert-concurrent',
    level: 'SHOULD',
    clause:
      'open: no source says what two upserts of one key sent at once make: a second member is reported, not gated; 4.1 rule 1; profile (the target documents the upsert)',
    title: 'SHOULD make one member of two upserts of the same key sent at once',
    appliesTo: (op, ctx) => op.key in (ctx.profile.upserts ?? {}),
    run: upsertConcurrent,
  }),
  defineCheck({
    id: 'methods.405',
    level: 'SHOULD',
    clause: 'RFC 9110 §9.1; 4.1',
    title: 'SHOULD answer 405 to a method the path does not offer',
    appliesTo: probes405,
    run: methods405,
  }),
  defineCheck({
    id: 'methods.405-allow',
    level: 'MUST',
    clause: 'RFC 9110 §15.5.6; 4.1',
    title:
      'MUST list in Allow, with a 405, every method the path offers, and neither the refused method nor one it refuses',
    appliesTo: probes405,
    run: methods405Allow,
  }),
];
