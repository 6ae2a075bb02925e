/**
 * Family `contract`: what the target's own document promises about every operation. Each check judges the
 * exchanges of the kinds it looks at, one at a time (contract/eachExchange.ts), with its judge
 * (contract/judges.ts); it holds for an operation when every one passes, and each distinct (kind, key) of
 * failure is reported once.
 */
import type { NegativeKind } from '../../cases/negative.js';
import { isReadOperation } from '../../model/model.js';
import { defineCheck } from '../core/check.js';
import { defaultVariants, documentedDefaults, prepareDefaultRead, readDefault, writeDefault } from './defaults.js';
import { causeOf, eachExchange, every, negative, ofKinds } from './eachExchange.js';
import { judgeHeaders } from './headers.js';
import {
  judgeAvailable,
  judgeContentType,
  judgeErrorSchema,
  judgeInvalidRefused,
  judgeNo5xx,
  judgeReaches2xx,
  judgeReadBack,
  judgeSuccessSchema,
  judgeSuccessStatusDocumented,
  judgeUnknownId404,
  judgeValidInputAccepted,
} from './judges.js';

const DOCUMENT = 'OpenAPI document';
const DEFAULT_ASSUMED = `${DOCUMENT}: a parameter's or a body property's default is the value the server assumes where the request leaves it out`;

function invalidInputCheck(kind: NegativeKind, title: `MUST ${string}`) {
  return defineCheck({
    id: `contract.invalid-${kind}`,
    level: 'MUST',
    clause: DOCUMENT,
    title,
    ...eachExchange(judgeInvalidRefused, { looksAt: negative(kind) }),
  });
}

export const contractChecks = [
  defineCheck({
    id: 'contract.no-5xx',
    level: 'MUST',
    clause: '4.1; OpenAPI document',
    title: 'MUST answer every request, valid or not, without a server error or a broken connection',
    ...eachExchange(judgeNo5xx, { looksAt: every, judgesUnavailable: true }),
  }),
  defineCheck({
    id: 'contract.reads-back',
    level: 'MUST',
    clause: '4.1; OpenAPI document',
    title:
      'MUST serve back what it accepted: the object an extreme value made or changed reads, by id and through its collection, without a server error',
    ...eachExchange(judgeReadBack, {
      looksAt: ofKinds('read-back'),
      judgesUnavailable: true,
      withheldAs: 'contract.reads-back',
      shownBy: { looksAt: ofKinds('extreme'), cause: (s) => `read-back ${causeOf(s)}` },
    }),
  }),
  // 503 is the server saying "not now" (Prefect: a retryable database error); the client retried it with
  // backoff. Still unavailable after that is worth knowing, but is load, not a broken contract.
  defineCheck({
    id: 'contract.available',
    level: 'SHOULD',
    clause:
      'open: a 503 is a server saying "not now", which no source forbids, and one that outlasts the retries is load: reported, not gated; 4.1',
    title: 'SHOULD not stay unavailable (503) through bounded retries',
    ...eachExchange(judgeAvailable, { looksAt: every, judgesUnavailable: true }),
  }),
  defineCheck({
    id: 'contract.success-status-documented',
    level: 'MUST',
    clause: DOCUMENT,
    title: 'MUST answer success with a status code the operation documents',
    ...eachExchange(judgeSuccessStatusDocumented, { looksAt: every }),
  }),
  defineCheck({
    id: 'contract.content-type',
    level: 'MUST',
    clause: DOCUMENT,
    title:
      'MUST answer with the documented content type: parsable JSON where JSON is documented, no body where none is',
    ...eachExchange(judgeContentType, { looksAt: every }),
  }),
  defineCheck({
    id: 'contract.headers',
    level: 'MUST',
    clause: 'RFC 9110 §2.2; OpenAPI document',
    title:
      'MUST send each header in the grammar its RFC gives (Retry-After a number or an HTTP-date, Location a URI reference), and each header the document requires for the status, as it declares it',
    ...eachExchange(judgeHeaders, { looksAt: every }),
  }),
  defineCheck({
    id: 'contract.success-schema',
    level: 'MUST',
    clause: DOCUMENT,
    title: 'MUST answer success with a body that matches the documented response schema',
    ...eachExchange(judgeSuccessSchema, {
      looksAt: every,
    }),
  }),
  defineCheck({
    id: 'contract.error-schema',
    level: 'MUST',
    clause: DOCUMENT,
    title: 'MUST answer a documented error status with a body that matches its documented schema',
    ...eachExchange(judgeErrorSchema, {
      looksAt: every,
    }),
  }),
  defineCheck({
    id: 'contract.valid-input-accepted',
    level: 'MUST',
    clause: DOCUMENT,
    title: 'MUST accept valid input, or refuse it with a documented 4xx, 404 or 409',
    ...eachExchange(judgeValidInputAccepted, { looksAt: ofKinds('recipe', 'generated', 'edge'), asks2xx: true }),
  }),
  invalidInputCheck('malformed-json', 'MUST refuse a malformed JSON body with a 4xx'),
  invalidInputCheck('wrong-type', 'MUST refuse a body with a value of the wrong type with a 4xx'),
  invalidInputCheck('missing-required', 'MUST refuse a body without a required property with a 4xx'),
  invalidInputCheck('extra-property', 'MUST refuse an undeclared property where the schema forbids one with a 4xx'),
  invalidInputCheck(
    'out-of-range',
    'MUST refuse a value its schema does not take (past a documented bound, or null where the field has no null) with a 4xx',
  ),
  defineCheck({
    id: 'contract.unknown-id-404',
    level: 'MUST',
    clause: '4.1',
    title: 'MUST answer 404 for an identifier that names no object',
    ...eachExchange(judgeUnknownId404, { looksAt: ofKinds('unknown') }),
  }),
  defineCheck({
    id: 'contract.default-read',
    level: 'MUST',
    clause: DEFAULT_ASSUMED,
    title:
      'MUST answer a read that leaves out a field with a documented default as it answers the read with the default stated',
    // The three answers are compared: no write beside them.
    isolation: 'quiet',
    prepare: prepareDefaultRead,
    appliesTo: (op, ctx) => isReadOperation(op) && documentedDefaults(ctx, op).length > 0,
    variants: defaultVariants,
    run: readDefault,
  }),
  defineCheck({
    id: 'contract.default-write',
    level: 'MUST',
    clause: DEFAULT_ASSUMED,
    title:
      'MUST answer a write that leaves out a field with a documented default as it answers the write with the default stated',
    appliesTo: (op, ctx) => !isReadOperation(op) && documentedDefaults(ctx, op).length > 0,
    variants: defaultVariants,
    run: writeDefault,
  }),
  defineCheck({
    id: 'contract.reaches-2xx',
    level: 'SHOULD',
    clause:
      'open: the document lets a valid request meet a documented 4xx (a conflict, a state that refuses it), so a request that never succeeds is reported, not gated; 4.2',
    title: "SHOULD succeed for a minimal valid request on the run's own objects",
    ...eachExchange(judgeReaches2xx, { looksAt: ofKinds('recipe'), asks2xx: true }),
  }),
];
