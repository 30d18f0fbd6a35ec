/**
 * Registration: what `server.tool(...)`, `resource`, `resourceTemplate` and `prompt` do. Each definition is built
 * into its catalog entry once (registration.ts: names checked, schemas converted and compiled, URI templates
 * parsed), then put into the server's one catalog, which every session reads; nothing is built per session.
 * The catalog's registries announce the change themselves (change-fan-out.ts tells the sessions).
 */
import type { ServerCatalog, ToolHandler } from '../actors/features/catalog.ts';
import { buildPrompt, buildResource, buildTemplate, buildTool } from './registration.ts';
import type { McpServer, Registration } from './server-api.ts';

/** The registering half of {@link McpServer}. */
export type CatalogRegistrar = Pick<McpServer, 'tool' | 'resource' | 'resourceTemplate' | 'prompt'>;

export function catalogRegistrar(catalog: ServerCatalog): CatalogRegistrar {
  return {
    tool(definition, handler) {
      const entry = buildTool(definition, handler as ToolHandler<never>);
      return register(catalog.tools, entry.definition.name, entry, 'tool');
    },
    resource(definition, read) {
      return register(catalog.resources, definition.uri, buildResource(definition, read), 'resource');
    },
    resourceTemplate(definition, read) {
      return register(catalog.templates, definition.uriTemplate, buildTemplate(definition, read), 'resource template');
    },
    prompt(definition, get) {
      return register(catalog.prompts, definition.name, buildPrompt(definition, get), 'prompt');
    },
  };
}

interface Keyed<V> {
  get(key: string): V | undefined;
  set(key: string, value: V): void;
  delete(key: string): boolean;
}

function register<V>(registry: Keyed<V>, key: string, entry: V, kind: string): Registration {
  if (registry.get(key) !== undefined) throw new RangeError(`A ${kind} named "${key}" is already registered; remove it first`);
  registry.set(key, entry);
  return {
    remove() {
      // Only this registration: a later one under the same key stays.
      if (registry.get(key) === entry) registry.delete(key);
    },
  };
}
