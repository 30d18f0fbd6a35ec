/**
 * Who may use a tool, resource, resource template or prompt: the `requires` of its registration. Scopes are the
 * common case and the cheap one: lists are filtered once per distinct set of the relevant scopes a caller holds
 * and shared by every caller holding that set, and a call without a needed scope is refused with -32043 so an
 * HTTP client can step up (403 `insufficient_scope`). A predicate decides anything else, per caller and per
 * request; a call it refuses is answered as if the item did not exist.
 */
import { type AuthInfo, hasScopes } from '../../core/auth.ts';
import { ErrorCode } from '../../core/error-codes.ts';
import { WireError } from '../../core/errors.ts';

/** Scopes the caller's token must all grant, or a predicate on the caller (undefined: nobody authenticated). */
export type AccessRule = readonly string[] | ((auth: AuthInfo | undefined) => boolean);

/** Whether `auth` may use an item under `rule` (no rule: everyone). */
export function admits(rule: AccessRule | undefined, auth: AuthInfo | undefined): boolean {
  if (rule === undefined) return true;
  if (typeof rule === 'function') return rule(auth);
  return hasScopes(auth, rule);
}

/**
 * Refuses a call `rule` does not admit: with the scopes it needs (step-up), or as `missing` would (a predicate's
 * refusal tells the caller nothing about the item).
 */
export function checkAccess(rule: AccessRule | undefined, auth: AuthInfo | undefined, what: string, missing: () => Error): void {
  if (admits(rule, auth)) return;
  if (typeof rule === 'function' || rule === undefined) throw missing();
  throw new WireError(ErrorCode.InsufficientScope, `Insufficient scope: ${what} needs the scope(s) ${rule.join(' ')}`, { data: { requiredScopes: [...rule] } });
}

/** What the rules of one list revision need to know to share filtered lists. */
export interface AccessSummary {
  /** Some item has a rule: lists are filtered. */
  readonly guarded: boolean;
  /** Some rule is a predicate: lists are filtered per caller, not shared. */
  readonly predicates: boolean;
  /** Every scope some rule names, sorted: callers holding the same ones see the same list. */
  readonly scopes: readonly string[];
}

export function summarize(rules: Iterable<AccessRule | undefined>): AccessSummary {
  let guarded = false;
  let predicates = false;
  const scopes = new Set<string>();
  for (const rule of rules) {
    if (rule === undefined) continue;
    guarded = true;
    if (typeof rule === 'function') predicates = true;
    else for (const scope of rule) scopes.add(scope);
  }
  return { guarded, predicates, scopes: [...scopes].sort() };
}

/** The key of the list a caller sees (undefined: not shareable, filter for this caller alone). */
export function audienceOf(summary: AccessSummary, auth: AuthInfo | undefined): string | undefined {
  if (summary.predicates) return undefined;
  if (auth === undefined) return '';
  let key = '';
  for (const scope of summary.scopes) if (auth.scopes.includes(scope)) key += `${scope} `;
  return key;
}
