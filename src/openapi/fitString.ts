/**
 * A string fitted to what a schema admits. The suite's names carry the run's tag (`conformance-ab12-…`), and a
 * server's document may narrow a name to a pattern (`^[a-z0-9_]+$`) or a length: the name is sent in a form the
 * document admits, so that the request tests what it means to and not the suite's choice of characters.
 */
/**
 * The first form of the string that the pattern and length admit: itself, lower case, with the characters
 * outside `[a-z0-9-]` (then `[a-z0-9_]`) replaced, each cut to the length from the end that keeps the
 * distinct part (a name's counter or letter is at its end).
 */
export function fitString(value: string, s: { pattern?: string; maxLength?: number }): string | undefined {
  const pattern = s.pattern ? safeRegExp(s.pattern) : undefined;
  const lower = value.toLowerCase();
  const forms = [value, lower, lower.replace(/[^a-z0-9-]+/g, '-'), lower.replace(/[^a-z0-9_]+/g, '_')];
  for (const form of forms) {
    // JSON Schema counts a string's length in code points: an emoji is one, and is never cut in half.
    const points = [...form];
    const cut = s.maxLength !== undefined && points.length > s.maxLength ? points.slice(-s.maxLength).join('') : form;
    if (!pattern || pattern.test(cut)) return cut;
  }
  return undefined;
}

/** The document's pattern as a JavaScript one (ECMA 262 is what JSON Schema names); undefined where it is not one. */
function safeRegExp(pattern: string): RegExp | undefined {
  try {
    return new RegExp(pattern, 'u');
  } catch {
    return undefined;
  }
}
