/**
 * RFC 6570 URI Templates, levels 1-4: parsing, expansion, and matching (the inverse of expansion). This is what
 * MCP resource templates use: `resources/templates/list` returns `uriTemplate`s, and a server finds which
 * template a requested URI belongs to and with which variables. Pure, no dependencies.
 *
 * ## Parsing
 * {@link parseUriTemplate} is strict about the RFC grammar and throws {@link UriTemplateError} (with the offset
 * of the bad character) for an unclosed "{", a stray "}", an empty expression, a reserved operator
 * (`= , ! @ |`), a malformed variable name, a prefix length outside 1-9999, or a character a literal may not
 * hold. Details in `parse.ts`.
 *
 * ## Expansion
 * All operators (none, `+ # . / ; ? &`), prefix `:n` and explode `*` modifiers, strings, lists and associative
 * arrays, with undefined and empty values handled as RFC 6570 section 3.2 says. Details in `expand.ts`.
 *
 * ## Matching
 * Every template gets a matcher at parse time. Supported forms, for any combination of literals and expressions:
 *
 * - `{var}`, `{x,y}`: one or more characters up to "/", "?" or "#" (a simple variable never spans "/"); several
 *   variables split on ",", the last one taking the rest (so a non-exploded list comes back as "a,b,c").
 * - `{+path}`, `{#frag}`: may span "/" and any reserved character. `{+var}` stops at "?" when a later literal or
 *   expression starts a query, and at "#" when one starts a fragment, so `file:///{+path}{?rev}` works.
 * - `{.ext}`, `{/seg}`, `{/a,b}`: lead character then values split on "." or "/"; for "." the last variable
 *   takes the rest (a "." in a value is not encoded, so `{.ext}` on `.tar.gz` gives `tar.gz`).
 * - Exploded lists: `{list*}`, `{+list*}`, `{#list*}`, `{.list*}`, `{/segments*}` give `string[]` (split on
 *   ",", ",", ",", ".", "/") and must be the last variable of their expression; `{;list*}`, `{?list*}`,
 *   `{&list*}` give `string[]` from the repeated name. An exploded variable is always a list in the result.
 * - `{;x,y}`, `{?x,y}`, `{&x}`: `name=value` (or bare `name`, giving "") pieces matched by name in any order;
 *   absent ones are left out of the result; an unknown name, or a non-exploded name given twice, fails the
 *   match. `{?a}{&b}` written next to each other form one query: `?b=1` and `&b=1` both match.
 * - Prefix modifiers `{var:3}`: the value may have at most that many code points; when the variable also
 *   appears without a prefix (`{term:1}/{term}`) the prefix must agree with it.
 * - A name used in several expressions must have the same value in each, or the match fails.
 *
 * Not supported: an exploded variable followed by another in a positional expression (`{/list*,path}`), or
 * the same name twice in one named expression or query. Such templates parse and expand normally, but
 * `matchable` is false and `match` always returns undefined.
 *
 * Matching rules:
 * - Literals must appear exactly as they expand. Lead-less expressions (`{var}`, `{+var}`) need at least one
 *   character: `users://{id}/profile` does not match `users:///profile`. Other expressions may be absent.
 * - Values are matched leniently (a raw ":" or space is accepted where expansion would have encoded it) and then
 *   percent-decoded: runs of pct-encoded triplets are decoded as UTF-8 (not well-formed UTF-8: no match); a
 *   "%" that starts no triplet and a "+" stay as they are. Control characters never match.
 * - When a URI could be split several ways, each expression takes the longest part that still lets the rest of
 *   the template match (leftmost-greedy). An expression never takes a character that starts one of the
 *   expressions written right after it (up to the next literal or `{var}`/`{+var}`), as those may be absent:
 *   `{name}{.ext}` on `a.tar.gz` gives `a` and `tar.gz`; `{host}{/path*}{?q}` on `h?q=1` gives `h` and `1`.
 * - Linear time: no regular expression, no backtracking; O(length × steps). URIs longer than
 *   {@link MAX_MATCH_URI_LENGTH} (8192) code units do not match.
 *
 * Round trip: `match(expand(vars))` gives `vars` back (without undefined ones) except where expansion loses
 * information: prefix modifiers (truncated); an empty value in `{var}`/`{+var}` (expands to nothing, so no
 * match); undefined variables before a defined one in positional expressions (`{x,y}` with only `y`: it comes
 * back as `x`); non-exploded lists and associative arrays (joined strings; an exploded associative array's
 * keys are unknown parameter names, so it does not match); `+`/`#` values holding pct-encoded triplets (passed
 * through, then decoded), "," in several `+`/`#` variables, "." in `{.a,b}` values or before `{.ext}`, "?"/"#"
 * where a `{+var}` stops; lone surrogates (encoded as U+FFFD).
 */
import { expandTemplate, type UriTemplateVariables } from './expand.ts';
import { compileMatcher } from './match.ts';
import { parseTemplate } from './parse.ts';

export type { UriTemplateValue, UriTemplateVariables } from './expand.ts';
export { MAX_MATCH_URI_LENGTH } from './match.ts';
export { UriTemplateError } from './parse.ts';

export interface UriTemplate {
  readonly source: string;
  /** Every variable name, once each, in order of first appearance. */
  readonly variableNames: readonly string[];
  /** Whether `match` can extract variables; false when the template uses a form matching does not support. */
  readonly matchable: boolean;
  expand(variables: UriTemplateVariables): string;
  /** Variables extracted from a concrete URI, or undefined when it does not match. */
  match(uri: string): Record<string, string | string[]> | undefined;
}

/** Parses and compiles a template. Throws {@link UriTemplateError} on a malformed template. */
export function parseUriTemplate(source: string): UriTemplate {
  const parts = parseTemplate(source);
  const names = new Set<string>();
  for (const part of parts) {
    if (part.kind === 'expression') for (const spec of part.variables) names.add(spec.name);
  }
  const variableNames = Object.freeze([...names]);
  const matcher = compileMatcher(parts, variableNames);
  return Object.freeze({
    source,
    variableNames,
    matchable: matcher !== undefined,
    expand: (variables: UriTemplateVariables): string => expandTemplate(parts, variables),
    match: (uri: string): Record<string, string | string[]> | undefined =>
      matcher === undefined ? undefined : matcher(uri),
    toString: (): string => source,
  });
}
