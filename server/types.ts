/**
 * What users register on a server: tool, resource, template and prompt definitions.
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { AccessRule } from '../actors/features/access.ts';
import type { Completer } from '../actors/features/catalog.ts';
import type { JsonObject } from '../core/jsonrpc.ts';
import type { Icon } from '../core/protocol/content.ts';
import type { PromptArgument } from '../core/protocol/prompts.ts';
import type { Resource, ResourceTemplate } from '../core/protocol/resources.ts';
import type { ToolAnnotations, ToolExecution } from '../core/protocol/tools.ts';

/** Schemas a tool accepts: a JSON Schema object or any Standard Schema (zod, valibot, an Effect Schema through `effectSchema` of `rxmcp/effect`). */
export type SchemaInput = JsonObject | StandardSchemaV1;
/** The arguments a handler receives: the schema's output type, or a JSON object for a JSON Schema. */
export type ArgsOf<S> = S extends StandardSchemaV1 ? StandardSchemaV1.InferOutput<S> : JsonObject;

export interface ToolDefinition<S extends SchemaInput = SchemaInput> {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  /** Defaults to an object schema that accepts no properties. */
  readonly inputSchema?: S;
  readonly outputSchema?: SchemaInput;
  readonly annotations?: ToolAnnotations;
  readonly icons?: readonly Icon[];
  readonly execution?: ToolExecution;
  readonly _meta?: JsonObject;
  /**
   * Who may see and call the tool: scopes the caller's token must grant (a call without them is refused with
   * -32043, over HTTP 403 `insufficient_scope`, so the client can step up), or a predicate on `ctx.auth` (a
   * refused call is answered as for an unknown tool). Callers not admitted do not see it in `tools/list`.
   */
  readonly requires?: AccessRule;
}

/** A resource; `requires` as for tools (a refused read is answered as for an unknown resource, or -32043). */
export type ResourceDefinition = Resource & { readonly requires?: AccessRule };

export type TemplateDefinition = ResourceTemplate & {
  /** Completion for the template's variables, by variable name. */
  readonly complete?: Readonly<Record<string, Completer>>;
  /** Who may see and read it; as for tools. */
  readonly requires?: AccessRule;
};

export interface PromptDefinition {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly icons?: readonly Icon[];
  readonly arguments?: readonly (PromptArgument & { readonly complete?: Completer })[];
  readonly _meta?: JsonObject;
  /** Who may see and get it; as for tools. */
  readonly requires?: AccessRule;
}

