/**
 * Whether a call would be refused for a missing scope, found from the catalog before any handler runs: a
 * medium that must fix its answer's status first (Streamable HTTP opening an SSE stream) asks here, so it can
 * answer 403 with a step-up challenge instead of carrying the -32043 inside a 200 stream. Which rule applies is
 * the method's declaration's: its target names the item (`name`, `uri`) and its `access` the registry whose
 * entry's `requires` the handler checks. Only scope-list rules are decided here; a predicate's refusal stays with
 * the handler (which answers "not found").
 */
import { type AuthInfo, hasScopes } from '../../core/auth.ts';
import { type AccessRegistry, targetIn } from '../../core/protocol/declarations/declaration.ts';
import { declarationOf } from '../../core/protocol/declarations/index.ts';
import type { AccessRule } from './access.ts';
import type { ServerCatalog } from './catalog.ts';

/** The scopes `method` on `params` needs when `auth` lacks some of them (as the -32043's `requiredScopes`). */
export function scopeShortfall(catalog: ServerCatalog, method: string, params: unknown, auth: AuthInfo | undefined): readonly string[] | undefined {
  const rule = ruleOf(catalog, method, params);
  if (rule === undefined || typeof rule === 'function' || hasScopes(auth, rule)) return undefined;
  return rule;
}

/** The rule the handler of `method` would check (undefined: none, or the request names no item). */
function ruleOf(catalog: ServerCatalog, method: string, params: unknown): AccessRule | undefined {
  const target = declarationOf(method)?.target;
  if (target?.access === undefined) return undefined;
  const key = targetIn(target, params);
  return key === undefined ? undefined : RULES[target.access](catalog, key);
}

/** Where each registry keeps the rule of the item `key` names. */
const RULES: Readonly<Record<AccessRegistry, (catalog: ServerCatalog, key: string) => AccessRule | undefined>> = {
  tools: (catalog, name) => catalog.tools.get(name)?.access,
  prompts: (catalog, name) => catalog.prompts.get(name)?.access,
  resources: resourceRule,
};

/** The rule of what a read of `uri` would use: the resource itself, else the first template matching it. */
function resourceRule(catalog: ServerCatalog, uri: string): AccessRule | undefined {
  const resource = catalog.resources.get(uri);
  if (resource !== undefined) return resource.access;
  for (const entry of catalog.templates.values()) if (entry.template.match(uri) !== undefined) return entry.access;
  return undefined;
}
