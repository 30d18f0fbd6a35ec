/**
 * What a server declares, derived from what is registered and from its options: `logging` always; `tools`,
 * `resources` (with subscriptions) and `prompts` once something of that kind is registered; `completions` once a
 * prompt or a resource template is (they are what can be completed); `tasks` when the 2025-11-25 tasks are on;
 * then the capabilities the options name, merged over these.
 */
import type { ServerCatalog } from '../actors/features/catalog.ts';
import type { ServerCapabilities } from '../core/protocol/capabilities.ts';

export interface CapabilitySources {
  readonly catalog: ServerCatalog;
  /** The 2025-11-25 task capabilities, when the server enables tasks. */
  readonly tasks?: ServerCapabilities['tasks'] | undefined;
  /** Declared as given, over the derived ones (`ServerOptions.capabilities`). */
  readonly declared?: ServerCapabilities | undefined;
}

/**
 * The capabilities of the catalog as it is now. One frozen object per catalog shape (which kinds are present), so
 * handshake and discovery results, cached by capabilities object, stay cached while registrations come and go.
 */
export function declaredCapabilities(sources: CapabilitySources): () => ServerCapabilities {
  const { catalog, tasks, declared } = sources;
  let cache: { key: number; value: ServerCapabilities } | undefined;
  return () => {
    const hasTools = catalog.tools.size > 0;
    const hasTemplates = catalog.templates.size > 0;
    const hasResources = catalog.resources.size > 0 || hasTemplates;
    const hasPrompts = catalog.prompts.size > 0;
    // Templates are in the key on their own: beside resources they change `completions` only. A number, not a
    // string: a modern server reads its capabilities on every request.
    const key = (hasTools ? 1 : 0) | (hasResources ? 2 : 0) | (hasPrompts ? 4 : 0) | (hasTemplates ? 8 : 0);
    if (cache?.key === key) return cache.value;
    const value: ServerCapabilities = Object.freeze({
      logging: {},
      ...(hasPrompts || hasTemplates ? { completions: {} } : {}),
      ...(hasTools ? { tools: { listChanged: true } } : {}),
      ...(hasResources ? { resources: { subscribe: true, listChanged: true } } : {}),
      ...(hasPrompts ? { prompts: { listChanged: true } } : {}),
      ...(tasks === undefined ? {} : { tasks }),
      ...declared,
    });
    cache = { key, value };
    return value;
  };
}
