/**
 * The same instant written at another UTC offset. RFC 3339 names one instant by any offset (`20:42:13Z` is
 * `22:42:13+02:00`), and a server that reads the offset as UTC, or ignores it, answers a bound at `+02:00` as
 * if it were two hours later: the filter cases send each bound at offsets other than `Z` too.
 */

/** The offsets, in minutes, the cases write instants at: east and west of UTC, a half hour, and the largest. */
export const OFFSETS_MINUTES = [330, -480, 840];

const pad = (n: number, width = 2) => String(Math.abs(n)).padStart(width, '0');

/** `text`'s instant at `offsetMinutes` east of UTC, its fraction of a second kept to the digit; undefined where `text` is no RFC 3339 date-time. */
export function sameInstantAt(text: string, offsetMinutes: number): string | undefined {
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d+)?(Z|[+-]\d\d:\d\d)$/i.exec(text);
  if (!m) return undefined;
  const ms = Date.parse(`${m[1]}${m[3]}`);
  if (Number.isNaN(ms)) return undefined;
  const local = new Date(ms + offsetMinutes * 60_000);
  const wall = local.toISOString().slice(0, 19);
  const sign = offsetMinutes < 0 ? '-' : '+';
  return `${wall}${m[2] ?? ''}${sign}${pad(Math.trunc(offsetMinutes / 60))}:${pad(offsetMinutes % 60)}`;
}
