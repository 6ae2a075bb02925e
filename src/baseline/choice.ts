/**
 * Which of the shipped baselines a run applies (`--baseline auto`), by a rule the log and the reports state:
 *
 * 1. the release the target is known to run: `--server-version`, else the managed server's, else what the
 *    server reports (`GET /admin/version`);
 * 2. that release's own baseline; else the nearest shipped release of the same minor (2.20.20 → 2.20.26),
 *    whose entries excuse what shows and report, not gate, what does not (the releases may differ there);
 *    else its neighbours: the shipped releases just before and just after it (3.6.0 → 3.4.25 and 3.8.8; the
 *    nearest alone past either end), an entry of either excusing the failure it names. What both neighbours
 *    know is all but certain of a release between them; what one knows may be a deviation it alone has, so
 *    its entry too is reported, not gated, where it does not show;
 * 3. with no release to read (a hosted edition offers no `/admin/*`): the shipped release whose document the
 *    target's is nearest, by operations (without `/admin` routes where the target has none; the newest of
 *    equally near ones), when they share at least NEAREST_DOCUMENT of them; its entries as in 2.
 *    `GET /version` is no help here: every Prefect release from 2.20 to 3.8 answers API 0.8.4;
 * 4. otherwise none, said so: every deviation counts.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { compareReleases, releaseParts } from '../managed/releaseOrder.js';

/** A baseline the suite ships: the release it was written for and that release's operations. */
export interface ShippedBaseline {
  release: string;
  file: string;
  /** "METHOD /path" of the release's document, where the file records them. */
  operations?: string[];
}

export interface ReleaseClues {
  /** `--server-version`. */
  given?: string;
  /** The managed server's release. */
  managed?: string;
  /** What the server reports of its release (GET /admin/version). */
  reported?: { version: string; from: string };
  /** The target document's operations ("METHOD /path"). */
  operations: string[];
}

export interface BaselineChoice {
  /** The one file whose entries apply; undefined for none and for neighbours (`neighbours`). */
  path?: string;
  /** The shipped releases around the target's whose entries apply together (rule 2), oldest first. */
  neighbours?: ShippedBaseline[];
  why: string;
  /** The release the target runs, and where that was read; undefined when it could not be. */
  release?: { version: string; from: string };
  /**
   * Set when the entries were written for another release than the target's (or for a release the target is
   * only thought to run): an entry that does not show is reported, not gated. Neighbours: each entry says its own.
   */
  borrowedFrom?: string;
}

/** How much of two documents' operations must be shared for one to stand for the other's release. */
export const NEAREST_DOCUMENT = 0.9;

const minorOf = (v: string) => releaseParts(v).slice(0, 2).join('.');

/**
 * The shipped releases around `version`: the newest shipped before it and the oldest shipped after it, oldest
 * first; one alone where the version is older or newer than every shipped release.
 */
export function neighboursOf(version: string, shipped: ShippedBaseline[]): ShippedBaseline[] {
  const sorted = [...shipped].sort((a, b) => compareReleases(a.release, b.release));
  const before = sorted.filter((s) => compareReleases(s.release, version) < 0).at(-1);
  const after = sorted.find((s) => compareReleases(s.release, version) > 0);
  return [before, after].filter((s): s is ShippedBaseline => s !== undefined);
}

/** The shipped baselines of a profile, from the folder that holds them (`<profile>-<release>.json`). */
export function shippedBaselines(dir: string, profile: string): ShippedBaseline[] {
  if (!existsSync(dir)) return [];
  const prefix = `${profile}-`;
  return readdirSync(dir)
    .filter((f) => f.startsWith(prefix) && f.endsWith('.json'))
    .map((f) => {
      const file = path.join(dir, f);
      const data = JSON.parse(readFileSync(file, 'utf8')) as { release?: { operations?: string[] } };
      return { release: f.slice(prefix.length, -'.json'.length), file, operations: data.release?.operations };
    });
}

/** The shipped release of the same minor nearest to `version` (a newer one on a tie), if any. */
export function sameMinor(version: string, shipped: ShippedBaseline[]): ShippedBaseline | undefined {
  const patch = (v: string) => releaseParts(v)[2] ?? 0;
  return shipped
    .filter((s) => minorOf(s.release) === minorOf(version))
    .sort(
      (a, b) =>
        Math.abs(patch(a.release) - patch(version)) - Math.abs(patch(b.release) - patch(version)) ||
        patch(b.release) - patch(a.release),
    )[0];
}

/** The share of operations two documents have in common (of those in either). */
export function operationsShared(a: string[], b: string[]): number {
  const inB = new Set(b);
  const common = a.filter((op) => inB.has(op)).length;
  const union = new Set([...a, ...b]).size;
  return union === 0 ? 0 : common / union;
}

/** The file `--baseline` names, if it names one (not `auto`, not `none`). */
export const namedBaselineFile = (named: string | undefined): string | undefined =>
  named && named !== 'auto' && named !== 'none' ? named : undefined;

export function chooseBaseline(
  named: string | undefined,
  profile: string,
  clues: ReleaseClues,
  shipped: ShippedBaseline[],
  shown: (file: string) => string = (file) => file,
): BaselineChoice {
  // The release by its rule whatever the baseline: the reports name it even where the user names the file.
  const release = clues.given
    ? { version: clues.given, from: '--server-version' }
    : clues.managed
      ? { version: clues.managed, from: 'the managed server' }
      : clues.reported;
  const known = release ? { release } : {};
  if (named === 'none') return { why: 'none (--baseline none)', ...known };
  const file = namedBaselineFile(named);
  if (file) return { path: file, why: `${file} (given)`, ...known };
  return release ? byRelease(release, profile, shipped, shown) : byDocument(profile, clues, shipped, shown);
}

/** A target whose release is known: its own baseline, else one of its minor, else its neighbours'. */
function byRelease(
  release: NonNullable<BaselineChoice['release']>,
  profile: string,
  shipped: ShippedBaseline[],
  shown: (file: string) => string,
): BaselineChoice {
  const target = `the target is ${profile} ${release.version} (${release.from})`;
  const own = shipped.find((s) => s.release === release.version);
  if (own) return { path: own.file, why: `${shown(own.file)} (auto: ${target})`, release };
  const near = sameMinor(release.version, shipped);
  if (near)
    return {
      path: near.file,
      why: `${shown(near.file)} (auto: ${target}; the suite ships no baseline for it, so the nearest release of ${minorOf(release.version)} it ships one for; an entry that does not show is reported, not gated)`,
      release,
      borrowedFrom: near.release,
    };
  const neighbours = neighboursOf(release.version, shipped);
  if (neighbours.length === 0)
    return { why: `none (auto: ${target}, and the suite ships no baseline at all; every deviation counts)`, release };
  const names = neighbours.map((s) => `${profile} ${s.release}`).join(' and ');
  const files = neighbours.map((s) => shown(s.file)).join(' + ');
  const both = neighbours.length === 2;
  const around = both
    ? 'the shipped releases on either side of it'
    : `the nearest shipped release (none is ${compareReleases(neighbours[0].release, release.version) < 0 ? 'newer' : 'older'})`;
  const excusing = both
    ? 'an entry of either excuses the failure it names'
    : 'its entries excuse the failures they name';
  return {
    neighbours,
    why: `${files} (auto: ${target}; the suite ships no baseline for it or for another ${minorOf(release.version)} release, so ${both ? 'those' : 'that'} of ${names}, ${around}: ${excusing}, and one that does not show is reported, not gated)`,
    release,
  };
}

/**
 * A target whose release could not be read: the baseline of the shipped release whose document is nearest.
 * A document without `/admin` routes (the hosted edition's) is compared without theirs: releases differ there
 * most (3.6.29's and 3.8.8's documents differ only by /admin/storage), and the edition has none of them. Of
 * releases whose documents are as near, the newest: a hosted edition runs current code.
 */
function byDocument(
  profile: string,
  clues: ReleaseClues,
  shipped: ShippedBaseline[],
  shown: (file: string) => string,
): BaselineChoice {
  const admin = (op: string) => / \/admin\//.test(op);
  const comparable = clues.operations.some(admin)
    ? (ops: string[]) => ops
    : (ops: string[]) => ops.filter((op) => !admin(op));
  const nearest = shipped
    .filter((s) => s.operations)
    .map((s) => ({ s, shared: operationsShared(clues.operations, comparable(s.operations!)) }))
    .sort((a, b) => b.shared - a.shared || compareReleases(b.s.release, a.s.release))[0];
  const unread = `the target's release could not be read (no GET /admin/version; --server-version names it)`;
  if (nearest && nearest.shared >= NEAREST_DOCUMENT) {
    const common = clues.operations.filter((op) => nearest.s.operations!.includes(op)).length;
    return {
      path: nearest.s.file,
      why: `${shown(nearest.s.file)} (auto: ${unread}; its document is nearest ${profile} ${nearest.s.release}'s, ${common} of whose ${nearest.s.operations!.length} operations it has, ${clues.operations.length - common} others; an entry that does not show is reported, not gated)`,
      borrowedFrom: nearest.s.release,
    };
  }
  return {
    why: `none (auto: ${unread}, and its document is not near a release the suite ships a baseline for${nearest ? ` (nearest: ${nearest.s.release}, ${Math.round(nearest.shared * 100)} % of operations shared)` : ''}; every deviation counts)`,
  };
}
