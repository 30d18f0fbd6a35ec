/**
 * Whether a call would be refused for a missing scope, found from the catalog before any handler runs: a
 * medium that must fix its answer's status first (Streamable HTTP opening an SSE stream) asks here, so it can
 * answer 403 with a step-up challenge instead of carrying the -32043 inside a 200 stream. Only scope-list rules
 * are decided here; a predicate's refusal stays with the handler (which answers "not found").
 */
import { type AuthInfo, hasScopes } from '../../core/auth.ts';
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
  if (typeof params !== 'object' || params === null) return undefined;
  const fields = params as { readonly name?: unknown; readonly uri?: unknown };
  switch (method) {
    case 'tools/call':
      return typeof fields.name === 'string' ? catalog.tools.get(fields.name)?.access : undefined;
    case 'prompts/get':
      return typeof fields.name === 'string' ? catalog.prompts.get(fields.name)?.access : undefined;
    case 'resources/read':
    case 'resources/subscribe':
      return typeof fields.uri === 'string' ? resourceRule(catalog, fields.uri) : undefined;
    default:
      return undefined;
  }
}

/** The rule of what a read of `uri` would use: the resource itself, else the first template matching it. */
function resourceRule(catalog: ServerCatalog, uri: string): AccessRule | undefined {
  const resource = catalog.resources.get(uri);
  if (resource !== undefined) return resource.access;
  for (const entry of catalog.templates.values()) if (entry.template.match(uri) !== undefined) return entry.access;
  return undefined;
}
