import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { inTurnByLane, type JobIsolation, Scheduler } from '../../../src/engine/scheduler.js';

const tick = () => new Promise((r) => setTimeout(r, 0));

/** Jobs of random isolations and lengths, run through a scheduler; what ran beside what, and in which order they started. */
async function runJobs(width: number, jobs: Array<{ isolation: JobIsolation; ticks: number }>) {
  const scheduler = new Scheduler(() => width);
  const running = new Set<number>();
  const started: number[] = [];
  const overlaps: Array<[JobIsolation, JobIsolation[]]> = [];
  let widest = 0;
  await Promise.all(
    jobs.map((job, i) =>
      scheduler.run(job.isolation, async () => {
        started.push(i);
        overlaps.push([job.isolation, [...running].map((j) => jobs[j].isolation)]);
        running.add(i);
        widest = Math.max(widest, running.size);
        for (let t = 0; t < job.ticks; t++) await tick();
        running.delete(i);
        return i;
      }),
    ),
  );
  return { started, overlaps, widest };
}

const jobArb = fc.record({
  isolation: fc.constantFrom<JobIsolation>('shared', 'shared', 'quiet', 'alone', 'reads'),
  ticks: fc.integer({ min: 0, max: 4 }),
});

describe('Scheduler', () => {
  test('starts jobs in the order submitted, never more than its width, and each beside only what its isolation allows', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 5 }), fc.array(jobArb, { maxLength: 30 }), async (width, jobs) => {
        const { started, overlaps, widest } = await runJobs(width, jobs);
        expect(started).toEqual(jobs.map((_, i) => i));
        expect(widest).toBeLessThanOrEqual(width);
        // A reads job goes beside anything; the others beside reads jobs and their own kind (alone: none).
        for (const [isolation, beside] of overlaps) {
          if (isolation === 'reads') continue;
          const others = beside.filter((b) => b !== 'reads');
          if (isolation === 'alone') expect(others).toEqual([]);
          else expect(others.every((b) => b === isolation)).toBe(true);
        }
      }),
      { numRuns: 60 },
    );
  });

  test('starts a reads job beside a quiet job, and an alone one beside the reads job, within its width', async () => {
    const scheduler = new Scheduler(() => 3);
    const running = new Set<string>();
    const beside = new Map<string, string[]>();
    const holds = new Map<string, () => void>();
    const job = (name: string, isolation: JobIsolation) =>
      scheduler.run(isolation, async () => {
        beside.set(name, [...running]);
        running.add(name);
        await new Promise<void>((r) => holds.set(name, r));
        running.delete(name);
      });
    const all = [job('quiet', 'quiet'), job('reads', 'reads'), job('alone', 'alone'), job('shared', 'shared')];
    await tick();
    expect(beside.get('reads')).toEqual(['quiet']);
    // The alone job waits for the quiet one, not for the reads job; nothing overtakes it.
    expect([...beside.keys()]).toEqual(['quiet', 'reads']);
    holds.get('quiet')!();
    await tick();
    expect(beside.get('alone')).toEqual(['reads']);
    expect(beside.has('shared')).toBe(false);
    holds.get('alone')!();
    await tick();
    expect(beside.get('shared')).toEqual(['reads']);
    holds.get('reads')!();
    holds.get('shared')!();
    await Promise.all(all);
  });

  test('runs alone jobs beside alone jobs of other lanes only, never two of one lane, nor beside one without a lane', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 5 }),
        fc.array(
          fc.record({
            isolation: fc.constantFrom<JobIsolation>('shared', 'quiet', 'alone', 'alone', 'alone'),
            lane: fc.option(fc.constantFrom('a', 'b', 'c'), { nil: undefined }),
            ticks: fc.integer({ min: 0, max: 4 }),
          }),
          { maxLength: 30 },
        ),
        async (width, jobs) => {
          const scheduler = new Scheduler(() => width);
          const running = new Set<number>();
          const started: number[] = [];
          let widest = 0;
          await Promise.all(
            jobs.map((job, i) =>
              scheduler.run(
                job.isolation,
                async () => {
                  started.push(i);
                  const beside = [...running].map((j) => jobs[j]);
                  if (job.isolation === 'alone') {
                    for (const other of beside) {
                      expect(other.isolation).toBe('alone');
                      expect(job.lane).toBeDefined();
                      expect(other.lane).toBeDefined();
                      expect(other.lane).not.toBe(job.lane);
                    }
                  } else expect(beside.every((b) => b.isolation === job.isolation)).toBe(true);
                  running.add(i);
                  widest = Math.max(widest, running.size);
                  for (let t = 0; t < job.ticks; t++) await tick();
                  running.delete(i);
                },
                0,
                job.lane,
              ),
            ),
          );
          expect(started).toEqual(jobs.map((_, i) => i));
          expect(widest).toBeLessThanOrEqual(width);
        },
      ),
      { numRuns: 80 },
    );
  });

  test('alone jobs of different lanes start side by side', async () => {
    const scheduler = new Scheduler(() => 4);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const started: string[] = [];
    const jobs = ['a', 'b', 'a', 'c'].map((lane, i) =>
      scheduler.run(
        'alone',
        async () => {
          started.push(`${lane}${i}`);
          await held;
        },
        0,
        lane,
      ),
    );
    await tick();
    // The second job of lane a holds the head of the queue: c, behind it, waits too.
    expect(started).toEqual(['a0', 'b1']);
    release();
    await Promise.all(jobs);
    expect(started).toEqual(['a0', 'b1', 'a2', 'c3']);
  });

  test('inTurnByLane takes the laned jobs in turn from each lane, in their places, and leaves the others where they were', () => {
    fc.assert(
      fc.property(
        fc.array(fc.option(fc.constantFrom('a', 'b', 'c'), { nil: undefined }), { maxLength: 20 }),
        (lanes) => {
          const jobs = lanes.map((lane, i) => ({ lane, i }));
          const out = inTurnByLane(jobs, (j) => j.lane);
          expect([...out].sort((x, y) => x.i - y.i)).toEqual(jobs);
          out.forEach((job, at) => {
            if (jobs[at].lane === undefined) expect(job).toBe(jobs[at]);
            else expect(job.lane).toBeDefined();
          });
          // Within a lane, the order is kept; across lanes, no lane has two jobs before another lane has one.
          const laned = out.filter((j) => j.lane !== undefined);
          for (const lane of ['a', 'b', 'c']) {
            const own = laned.filter((j) => j.lane === lane).map((j) => j.i);
            expect(own).toEqual([...own].sort((x, y) => x - y));
          }
          const seen = new Map<string, number>();
          for (const j of laned) {
            const turn = seen.get(j.lane!) ?? 0;
            const lagging = [...new Set(laned.map((x) => x.lane!))].filter(
              (l) =>
                l !== j.lane &&
                (seen.get(l) ?? 0) < turn &&
                laned.filter((x) => x.lane === l).length > (seen.get(l) ?? 0),
            );
            expect(lagging).toEqual([]);
            seen.set(j.lane!, turn + 1);
          }
        },
      ),
    );
    expect(inTurnByLane(['x', 'a1', 'a2', 'b1', 'y', 'b2'], (j) => (j.length === 2 ? j[0] : undefined))).toEqual([
      'x',
      'a1',
      'b1',
      'a2',
      'y',
      'b2',
    ]);
  });

  test('runs shared jobs side by side up to its width', async () => {
    const { widest } = await runJobs(
      3,
      Array.from({ length: 6 }, () => ({ isolation: 'shared', ticks: 3 })),
    );
    expect(widest).toBe(3);
  });

  test("jobs that wait for another's work (meanwhile) hold no place: a queued job starts in theirs", async () => {
    const scheduler = new Scheduler(() => 2);
    let build!: () => void;
    const corpus = new Promise<void>((r) => (build = r));
    const started: string[] = [];
    const waiters = ['a', 'b'].map((name) =>
      scheduler.run('shared', async () => {
        started.push(name);
        await scheduler.meanwhile(corpus);
        started.push(`${name} built`);
      }),
    );
    const other = scheduler.run('shared', async () => void started.push('other'));
    await tick();
    expect(started).toEqual(['a', 'b', 'other']);
    build();
    await Promise.all([...waiters, other]);
    expect(started.slice(3).sort()).toEqual(['a built', 'b built']);
    // Without the wait declared, the third job waits for a place.
    const plain = new Scheduler(() => 2);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const order: string[] = [];
    const two = ['a', 'b'].map((name) =>
      plain.run('shared', async () => {
        order.push(name);
        await held;
      }),
    );
    const third = plain.run('shared', async () => void order.push('other'));
    await tick();
    expect(order).toEqual(['a', 'b']);
    release();
    await Promise.all([...two, third]);
    expect(order).toEqual(['a', 'b', 'other']);
  });

  test('after refuse(), jobs not yet started settle with the error; those running finish', async () => {
    const scheduler = new Scheduler(() => 1);
    let release!: () => void;
    const first = scheduler.run('shared', () => new Promise<string>((r) => (release = () => r('done'))));
    const second = scheduler.run('shared', async () => 'ran');
    await tick();
    scheduler.refuse(() => new Error('budget spent'));
    release();
    await expect(first).resolves.toBe('done');
    await expect(second).rejects.toThrow('budget spent');
    await expect(scheduler.run('quiet', async () => 'late')).rejects.toThrow('budget spent');
  });

  test('a job of a lower priority starts before every waiting job of a higher one, equals in submission order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 20 }),
        async (priorities) => {
          const scheduler = new Scheduler(() => 1);
          const started: number[] = [];
          let release!: () => void;
          // One job holds the only slot while the others queue, so that the order they start in is the queue's.
          const holder = scheduler.run('shared', () => new Promise<void>((r) => (release = r)), -1);
          const jobs = priorities.map((p, i) => scheduler.run('shared', async () => void started.push(i), p));
          release();
          await Promise.all([holder, ...jobs]);
          const expected = priorities.map((p, i) => ({ p, i })).sort((a, b) => a.p - b.p || a.i - b.i);
          expect(started).toEqual(expected.map(({ i }) => i));
        },
      ),
      { numRuns: 60 },
    );
  });
});
