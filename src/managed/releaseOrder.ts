/** The order of Prefect's releases, by major, minor and patch (a pre-release's own number after them). */

/** A release's numbers: `3.6.0rc2` → [3, 6, 0, 2]. */
export const releaseParts = (v: string): number[] => v.split(/[.a-z]+/i).map(Number);

export function compareReleases(a: string, b: string): number {
  const x = releaseParts(a);
  const y = releaseParts(b);
  for (let i = 0; i < Math.max(x.length, y.length); i++)
    if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0);
  return 0;
}
