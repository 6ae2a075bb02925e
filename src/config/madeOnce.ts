/**
 * A value made on first use and kept for the process (or the thread) that made it: a cache of one. Each
 * module-level cache is named in docs/design.md ("State a module keeps"), and a unit test holds the list.
 */
export function madeOnce<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}
