/**
 * The words of the spec (docs/spec/orchestration-rest-api.md) that a check's `clause` names, so that a report
 * can show the rule beside the failure without the spec at hand. Keys are the clause references the
 * checks use: a section, or a section and its numbered rule.
 */
import type { Level } from './check.js';
const SPEC_TEXT: Record<string, string> = {
  '1': '§1 What the service does: conventions the API follows (plural collection names, snake_case, reads with complex arguments as POST with a body).',
  '1 convention 1': '§1 convention 1: collection names are plural.',
  '1 convention 2': '§1 convention 2: in documentation, path variables are written with a leading colon (/flows/:id).',
  '1 convention 3': '§1 convention 3: route names are in snake case.',
  '1 convention 4':
    '§1 convention 4: nested resources are avoided unless the child cannot be reached outside its parent.',
  '1 convention 5':
    '§1 convention 5: filtering, sorting and pagination parameters go in the body of POST requests, where applicable.',
  '2': '§2 Resources and their fields.',
  '3': '§3 States and transitions.',
  '4.1':
    '§4.1 Verb semantics: POST /collection creates, GET lists or returns one member, DELETE deletes one member, PUT creates or replaces one member, PATCH partially updates one member.',
  '4.1 rule 1': '§4.1 rule 1: GET, PUT and DELETE are idempotent. POST and PATCH are not guaranteed to be idempotent.',
  '4.1 rule 2': '§4.1 rule 2: GET requests take no information from the request body.',
  '4.1 rule 3': '§4.1 rule 3: POST requests may take information from the request body.',
  '4.2':
    '§4.2 Named endpoints: filter, count, history, create_flow_run (an empty object {} at minimum; state may be given; Content-Type: application/json), set_state.',
  '4.3':
    '§4.3 Filtering: top level a collection, second level a field, third level an operator ending in "_" (any_, all_, eq_, is_null_, before_ ≤, after_ ≥, exists_).',
  '4.3 rule 1': '§4.3 rule 1: when several criteria are given, they are combined with logical AND.',
  '4.3 rule 2': '§4.3 rule 2: a filter may name the queried collection or a related one.',
  '4.3 rule 3': '§4.3 rule 3: nested fields are expressed by nesting objects.',
  '4.3 rule 4':
    '§4.3 rule 4: flows tagged with a tag that have failed flow runs: flows.tags.all_ together with flow_runs.state.type.any_ [FAILED].',
  '4.3 rule 5': '§4.3 rule 5: pagination uses the body parameters limit and offset.',
  '4.3 rule 6': '§4.3 rule 6: sorting uses one body parameter, sort.',
  '5': '§5 Authentication: the cloud edition takes Authorization: Bearer <API_KEY>; its base address is /api/accounts/<account_id>/workspaces/<workspace_id>.',
  '6': '§6 Events.',
  '7': '§7 Errors: a successful filter query returns status 200.',
  '8': '§8 Limits: limit and offset exist (integers, in the request body).',
  '9': '§9 Versioning: a request may carry X-SERVICE-API-VERSION: <major>.<minor>.<patch>.',
  'OpenAPI document':
    "The target's own OpenAPI document: the statuses, content types and schemas it declares for the operation.",
  profile:
    "The target's profile: behaviour the target documents beyond the spec (for Prefect, its orchestration rules).",
};

/** The words of the RFCs a clause cites, and the level each gives its rule; `rfcRule` finds a part's. */
const RFC_RULES: Record<string, { level: Level; text: string }> = {
  'RFC 9110 §9.1': {
    level: 'SHOULD',
    text: 'RFC 9110 §9.1: an origin server that receives a method it recognises but the target resource does not allow SHOULD respond with 405 (Method Not Allowed).',
  },
  'RFC 9110 §2.2': {
    level: 'MUST',
    text: 'RFC 9110 §2.2: a sender MUST NOT generate protocol elements that do not match the grammar defined by the corresponding ABNF rules (Retry-After = HTTP-date / delay-seconds, §10.2.3; Location = URI-reference, §10.2.2).',
  },
  'RFC 9110 §15.5.6': {
    level: 'MUST',
    text: "RFC 9110 §15.5.6: the origin server MUST generate an Allow header field in a 405 response, listing the target resource's currently supported methods.",
  },
};

/** The RFC rule a clause's part cites, by its reference (`RFC 9110 §15.5.6`), if it is one the suite knows. */
function rfcRule(part: string): { ref: string; level: Level; text: string } | undefined {
  const ref = Object.keys(RFC_RULES).find((r) => part.startsWith(r));
  return ref ? { ref, ...RFC_RULES[ref]! } : undefined;
}

/**
 * The level each source gives the rules it states. The spec states its rules as facts of the API ("GET, PUT
 * and DELETE are idempotent"): MUST; "may" and "can" give MAY, "avoided" SHOULD. The target's own document and
 * profile are promises the target makes: MUST. An RFC's keyword is its level.
 */
const SPEC_LEVELS: Record<string, Level> = {
  // "The complete interface can be described by an OpenAPI 3.0 document."
  '1': 'MAY',
  '1 convention 1': 'MUST',
  '1 convention 2': 'MUST',
  '1 convention 3': 'MUST',
  // "Nested resources are avoided unless the child cannot be reached outside its parent."
  '1 convention 4': 'SHOULD',
  '1 convention 5': 'MUST',
  '2': 'MUST',
  '3': 'MUST',
  '4.1': 'MUST',
  '4.1 rule 1': 'MUST',
  '4.1 rule 2': 'MUST',
  // "POST requests may take information from the request body."
  '4.1 rule 3': 'MAY',
  '4.2': 'MUST',
  '4.3': 'MUST',
  '4.3 rule 1': 'MUST',
  '4.3 rule 2': 'MUST',
  '4.3 rule 3': 'MUST',
  '4.3 rule 4': 'MUST',
  '4.3 rule 5': 'MUST',
  '4.3 rule 6': 'MUST',
  '5': 'MUST',
  '7': 'MUST',
  '8': 'MUST',
  // "A request may carry the header": a server serves a request with it and one without it.
  '9': 'MUST',
  'OpenAPI document': 'MUST',
  profile: 'MUST',
};

/**
 * Where the sources leave a rule open, a clause says so in its first part, `open: <why the suite still looks,
 * and why it does not gate>`: its level is then the suite's choice, SHOULD or MAY, and the reason is in the
 * clause a report shows, never a level lowered quietly.
 */
export const OPEN = 'open:';

/** The source a clause's first part names, and the level it gives: what a check citing it must be (checks/core/check.ts). */
export function levelOfClause(clause: string): { source: string; level: Level | 'open' } | undefined {
  const first = clause.split(';')[0]!.trim();
  if (first.startsWith(OPEN)) return { source: first, level: 'open' };
  const rfc = rfcRule(first);
  if (rfc) return { source: rfc.ref, level: rfc.level };
  const ref = /^(\d+(?:\.\d+)?(?: (?:rule|convention) \d+)?|OpenAPI document|profile)\b/.exec(first)?.[1];
  const level = ref && SPEC_LEVELS[ref];
  return level ? { source: ref!, level } : undefined;
}

/** The headings of the spec's sections, for links to them. */
const HEADINGS: Record<string, string> = {
  '1': '1. What the service does',
  '2': '2. Resources and their fields',
  '3': '3. States and transitions',
  '4': '4. Endpoints',
  '4.1': '4.1 Verb semantics',
  '4.2': '4.2 Named endpoints',
  '4.3': '4.3 Filtering, sorting and pagination',
  '5': '5. Authentication',
  '6': '6. Events',
  '7': '7. Errors',
  '8': '8. Limits',
  '9': '9. Versioning',
};

/**
 * The spec's clauses in the order of the spec, each a promise a target keeps or not: what a conformance
 * statement speaks of, clause by clause (report/statement.ts).
 */
export const SPEC_CLAUSES = [
  '1',
  '1 convention 1',
  '1 convention 2',
  '1 convention 3',
  '1 convention 4',
  '1 convention 5',
  '2',
  '3',
  '4.1',
  '4.1 rule 1',
  '4.1 rule 2',
  '4.1 rule 3',
  '4.2',
  '4.3',
  '4.3 rule 1',
  '4.3 rule 2',
  '4.3 rule 3',
  '4.3 rule 4',
  '4.3 rule 5',
  '4.3 rule 6',
  '5',
  '6',
  '7',
  '8',
  '9',
] as const;

/** Why no check of the suite cites a clause: what it says leaves a server nothing to keep or to break. */
export const UNJUDGED_CLAUSES: Partial<Record<(typeof SPEC_CLAUSES)[number], string>> = {
  '1 convention 2': "a convention of the documentation's notation: a request carries the identifier itself",
  '2': "the spec names fields without their types or which are required: the document's schemas hold them (contract)",
  '4.1 rule 3': 'a permission ("may"): no answer of a server breaks it',
  '6': 'the spec shows no events',
};

/**
 * Why a clause has the level SPEC_LEVELS gives it, where the spec's words are more than a fact stated of the
 * API (which is a MUST): the spec has no RFC 2119 keywords, so each level is the suite's reading of its words.
 */
const LEVEL_REASONS: Partial<Record<(typeof SPEC_CLAUSES)[number], string>> = {
  '1': '"the complete interface can be described by an OpenAPI document": a "can" is a MAY',
  '1 convention 4': '"nested resources are avoided unless…": an "avoided" is a SHOULD',
  '1 convention 5':
    '"parameters go in the body of POST requests, where applicable": a fact of POST queries, judged on POST operations only (a GET takes nothing from its body, §4.1 rule 2)',
  '4.1 rule 3': '"POST requests may take information from the request body": a MAY, and a permission no answer breaks',
  '9': '"a request may carry the header": the request may, so a server serves a request with it and one without it',
};

/** Each clause of the spec, the level the suite gives it, and why (docs/checks.md). */
export function clauseLevels(): Array<{ clause: string; level: Level | 'not judged'; why: string }> {
  return SPEC_CLAUSES.map((clause) => {
    const unjudged = UNJUDGED_CLAUSES[clause];
    if (unjudged) return { clause, level: 'not judged', why: unjudged };
    return {
      clause,
      level: SPEC_LEVELS[clause]!,
      why: LEVEL_REASONS[clause] ?? 'stated as a fact of the API, so a server that breaks it breaks the API: a MUST',
    };
  });
}

/** The spec clauses a check's clause cites ("4.3 rule 5; 8" → 4.3 rule 5 and 8), whatever it adds in words. */
export function specClausesOf(clause: string): string[] {
  return clause
    .split(';')
    .map((part) => /^(\d+(?:\.\d+)?(?: (?:rule|convention) \d+)?)\b/.exec(part.trim())?.[1])
    .filter((ref): ref is string => ref !== undefined && (SPEC_CLAUSES as readonly string[]).includes(ref));
}

/** The first section a clause names, as a link into the spec (a Markdown heading anchor); the document's own clauses have none. */
export function clauseAnchor(clause: string): string | undefined {
  const section = /^(\d+(?:\.\d+)?)/.exec(clause.trim())?.[1];
  const heading = section ? HEADINGS[section] : undefined;
  return heading
    ? `docs/spec/orchestration-rest-api.md#${heading
        .toLowerCase()
        .replace(/[^a-z0-9 -]/g, '')
        .replace(/ /g, '-')}`
    : undefined;
}

/** The parts of a clause ("4.3 rule 5; 8") that name nothing the suite knows: a spec section, the document, the profile, an RFC. */
export function unknownClauseParts(clause: string): string[] {
  return clause
    .split(';')
    .map((part) => part.trim())
    .filter((part) => {
      const ref = /^(\d+(?:\.\d+)?(?: rule \d+)?)\b/.exec(part)?.[1];
      if (ref) return SPEC_TEXT[ref] === undefined;
      if (/^RFC \d+/.test(part)) return rfcRule(part) === undefined;
      return !/^(OpenAPI document|profile|open:)/.test(part);
    });
}

/** "4.3 rule 5; 8" → the text of each reference it names, in order; unknown references are kept as they are. */
export function clauseText(clause: string): string {
  return clause
    .split(';')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const rfc = rfcRule(part);
      if (rfc) return rfc.text;
      const ref = /^(\d+(?:\.\d+)?(?: rule \d+)?|OpenAPI document|profile)(.*)$/.exec(part);
      const text = ref ? SPEC_TEXT[ref[1]] : undefined;
      return text ? `${text}${ref![2] ? ` ${ref![2].trim()}` : ''}` : part;
    })
    .join(' ');
}
