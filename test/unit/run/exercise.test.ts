import { describe, expect, test } from 'vitest';
import { SafeValues } from '../../../src/cases/safeValues.js';
import type { Exchange, HttpClient } from '../../../src/http/client.js';
import { buildModel } from '../../../src/model/model.js';
import { seedProfile } from '../../../src/model/profiles/seed.js';
import type { RequestToSend } from '../../../src/openapi/request.js';
import { SchemaValidators } from '../../../src/openapi/validators.js';
import { Ledger } from '../../../src/resources/ledger.js';
import { FixturePool } from '../../../src/resources/pool.js';
import { type ExerciseContext, exerciseOperation } from '../../../src/run/exercise.js';
import { referenceDoc } from '../support.js';

const doc = referenceDoc();
const model = buildModel(doc);

/** An exercise whose target accepts every valid body (201) and refuses every other (422), and what it was sent. */
function exercising() {
  const sent: RequestToSend[] = [];
  const validators = new SchemaValidators(doc);
  const answer = async (spec: RequestToSend): Promise<Exchange> => {
    sent.push(spec);
    const status = spec.refusedByValidation ? 422 : 201;
    const json = status === 201 ? { id: `00000000-0000-4000-8000-${String(sent.length).padStart(12, '0')}` } : {};
    return { status, json, body: JSON.stringify(json), contentType: 'application/json' } as Exchange;
  };
  const pool = new FixturePool(model, answer, new Ledger(), false);
  const cases = { model, fixtures: pool, safe: new SafeValues('ct-exercise'), profile: seedProfile };
  pool.attach(cases);
  const ctx: ExerciseContext = {
    cases,
    client: { send: answer } as unknown as HttpClient,
    pool,
    validators,
    seed: 7,
    runs: 5,
    readOnly: false,
    disposable: false,
    replays: () => [],
    problemWithValidExchange: () => undefined,
  };
  return { ctx, sent };
}

describe('exerciseOperation', () => {
  test('the bodies its schema refuses, and only those, say so to the client (they may go beside a write)', async () => {
    const { ctx, sent } = exercising();
    const op = model.operations.find((o) => o.key === 'POST /variables/')!;
    const run = await exerciseOperation(ctx, op);
    const negatives = run.sent.filter((s) => s.kind === 'negative');
    expect(negatives.length).toBeGreaterThan(0);
    expect(run.sent.some((s) => s.kind === 'recipe')).toBe(true);
    const refused = sent.filter((spec) => spec.refusedByValidation);
    expect(refused).toHaveLength(negatives.length);
    for (const s of run.sent.filter((x) => x.kind !== 'wrong-content-type'))
      expect(s.exchange.status, s.kind).toBe(s.kind === 'negative' ? 422 : 201);
    // The recipe's body sent once more as text/plain, a write as any other: what the server does with it is its own.
    const textPlain = sent.filter((spec) => spec.headers?.['content-type'] === 'text/plain');
    expect(textPlain).toHaveLength(1);
    expect(textPlain[0].refusedByValidation).toBeUndefined();
  });
});
