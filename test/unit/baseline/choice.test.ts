/**
 * The automatic baseline's rule: the target's own release, else the nearest shipped release of its minor
 * (borrowed), else, with no release to read, the shipped release whose document is nearest; none otherwise.
 */
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  chooseBaseline,
  NEAREST_DOCUMENT,
  neighboursOf,
  operationsShared,
  sameMinor,
  shippedBaselines,
  type ShippedBaseline,
} from '../../../src/baseline/choice.js';
import { compareReleases } from '../../../src/managed/releaseOrder.js';
import { repoRoot } from '../support.js';

const shipped = shippedBaselines(path.join(repoRoot, 'fixtures', 'baselines'), 'prefect');
const release = (v: string) => shipped.find((s) => s.release === v)!;
const ops388 = release('3.8.8').operations!;

describe('the shipped baselines', () => {
  test('each records its release and the operations of its document', () => {
    expect(shipped.map((s) => s.release).sort(compareReleases)).toEqual([
      '2.20.26',
      '3.0.11',
      '3.2.15',
      '3.4.25',
      '3.6.29',
      '3.8.8',
      '3.9.1',
    ]);
    for (const s of shipped) expect(s.operations!.length).toBeGreaterThan(150);
  });
});

describe('choosing a baseline', () => {
  const choose = (clues: Parameters<typeof chooseBaseline>[2], named?: string) =>
    chooseBaseline(named, 'prefect', clues, shipped);

  test('a file named, or none, is the choice whatever the target', () => {
    expect(choose({ operations: ops388 }, 'none')).toEqual({ why: 'none (--baseline none)' });
    const named = choose({ operations: ops388 }, '/x/b.json');
    expect(named).toEqual({ path: '/x/b.json', why: '/x/b.json (given)' });
    // The release is still read by its rule, so that the reports name it.
    const reported = { version: '3.9.1', from: 'GET /admin/version' };
    expect(choose({ operations: [], reported }, '/x/b.json')).toEqual({ ...named, release: reported });
    expect(choose({ operations: [], managed: '3.8.8' }, 'none').release).toEqual({
      version: '3.8.8',
      from: 'the managed server',
    });
  });

  test("the release's own baseline: --server-version over the managed server over what the server reports", () => {
    const reported = { version: '3.4.25', from: 'GET /admin/version' };
    expect(choose({ operations: [], reported })).toMatchObject({ path: release('3.4.25').file, release: reported });
    expect(choose({ operations: [], reported, given: '3.8.8' })).toMatchObject({
      path: release('3.8.8').file,
      release: { version: '3.8.8', from: '--server-version' },
    });
    const own = choose({ operations: [], managed: '2.20.26', reported });
    expect(own.path).toBe(release('2.20.26').file);
    expect(own.borrowedFrom).toBeUndefined();
  });

  test('a release without its own baseline borrows the nearest of its minor, and says so', () => {
    const c = choose({ operations: [], reported: { version: '2.20.20', from: 'GET /admin/version' } });
    expect(c).toMatchObject({ path: release('2.20.26').file, borrowedFrom: '2.20.26' });
    expect(c.why).toMatch(/2\.20\.20 .*no baseline for it.*nearest release of 2\.20.*reported, not gated/);
  });

  test('a release of a minor with no baseline is judged by the shipped releases on either side of it', () => {
    const between = choose({ operations: [], reported: { version: '3.7.0', from: 'GET /admin/version' } });
    expect(between.path).toBeUndefined();
    expect(between.neighbours?.map((s) => s.release)).toEqual(['3.6.29', '3.8.8']);
    expect(between.why).toMatch(
      /prefect-3\.6\.29\.json \+ .*prefect-3\.8\.8\.json \(auto: the target is prefect 3\.7\.0 .*no baseline for it or for another 3\.7 release, so those of prefect 3\.6\.29 and prefect 3\.8\.8, the shipped releases on either side of it: an entry of either excuses/,
    );
    expect(choose({ operations: [], given: '3.3.1' }).neighbours?.map((s) => s.release)).toEqual(['3.2.15', '3.4.25']);
    // Past either end, the nearest alone.
    const newer = choose({ operations: [], reported: { version: '3.10.0', from: 'x' } });
    expect(newer.neighbours?.map((s) => s.release)).toEqual(['3.9.1']);
    expect(newer.why).toMatch(/the nearest shipped release \(none is newer\)/);
    const older = choose({ operations: [], managed: '2.19.7' });
    expect(older.neighbours?.map((s) => s.release)).toEqual(['2.20.26']);
    expect(older.why).toMatch(
      /that of prefect 2\.20\.26, the nearest shipped release \(none is older\): its entries excuse the failures they name/,
    );
    // Nothing shipped at all: none, said so.
    expect(chooseBaseline(undefined, 'prefect', { operations: [], given: '3.6.0' }, []).why).toMatch(
      /ships no baseline at all; every deviation counts/,
    );
  });

  test('the neighbours of any release are the shipped ones next to it in release order', () => {
    const releases = shipped.map((s) => s.release).sort(compareReleases);
    const version = fc
      .tuple(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 0, max: 25 }), fc.integer({ min: 0, max: 30 }))
      .map((p) => p.join('.'));
    fc.assert(
      fc.property(version, (v) => {
        fc.pre(!releases.includes(v));
        const around = neighboursOf(v, shipped).map((s) => s.release);
        const below = releases.filter((r) => compareReleases(r, v) < 0);
        const above = releases.filter((r) => compareReleases(r, v) > 0);
        expect(around).toEqual([below.at(-1), above[0]].filter(Boolean));
      }),
    );
    expect(compareReleases('3.10.0', '3.9.1')).toBeGreaterThan(0);
    expect(compareReleases('2.20.26', '3.0.11')).toBeLessThan(0);
  });

  test('nearest of a minor: the closest patch, the newer on a tie', () => {
    const made = (...vs: string[]): ShippedBaseline[] => vs.map((v) => ({ release: v, file: v }));
    expect(sameMinor('3.4.10', made('3.4.2', '3.4.12', '3.5.10'))?.release).toBe('3.4.12');
    expect(sameMinor('3.4.7', made('3.4.5', '3.4.9'))?.release).toBe('3.4.9');
    expect(sameMinor('3.4.7', made('3.3.7', '3.5.7'))).toBeUndefined();
  });

  test('with no release to read, the shipped release whose document is nearest, borrowed', () => {
    const hosted = ops388.filter((op) => !op.includes(' /admin/'));
    const c = choose({ operations: hosted });
    expect(c).toMatchObject({ path: release('3.8.8').file, borrowedFrom: '3.8.8' });
    expect(c.release).toBeUndefined();
    expect(c.why).toMatch(/could not be read.*nearest prefect 3\.8\.8's, 182 of whose 187 operations it has, 0 others/);
    // 3.4.25's own document is nearest its own release.
    expect(choose({ operations: release('3.4.25').operations! }).borrowedFrom).toBe('3.4.25');
  });

  test('a document near no shipped release gets none, and the why says how near the nearest was', () => {
    const c = choose({ operations: ['GET /widgets', 'POST /widgets/', ...ops388.slice(0, 20)] });
    expect(c.path).toBeUndefined();
    expect(c.why).toMatch(
      /not near a release the suite ships a baseline for \(nearest: [\d.]+, \d+ % of operations shared\)/,
    );
  });

  test('the share of operations is symmetric, 1 for the same set and 0 for disjoint ones', () => {
    const opSet = fc.uniqueArray(fc.constantFrom(...ops388), { maxLength: 30 });
    fc.assert(
      fc.property(opSet, opSet, (a, b) => {
        expect(operationsShared(a, b)).toBeCloseTo(operationsShared(b, a));
        if (a.length) expect(operationsShared(a, a)).toBe(1);
        if (!a.some((op) => b.includes(op))) expect(operationsShared(a, b)).toBe(0);
      }),
    );
    // Two releases of nearby minors are near too (3.4.25 and 3.8.8 share 93 %): each document is nearest its own.
    for (const s of shipped)
      expect(chooseBaseline(undefined, 'prefect', { operations: s.operations! }, shipped).borrowedFrom).toBe(s.release);
    expect(NEAREST_DOCUMENT).toBeLessThan(1);
  });
});
