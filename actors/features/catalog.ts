/**
 * A server's catalog: its tools, resources, resource templates and prompts, with everything derived from
 * them (wire definitions, compiled validators, parsed URI templates) built once at registration and shared
 * by every session.
 */
import type { HeaderAnnotation } from '../../core/protocol/header-mirror.ts';
import type { JsonObject } from '../../core/jsonrpc.ts';
import { Registry } from '../../core/catalog/registry.ts';
import type { CallToolResult, Tool } from '../../core/protocol/tools.ts';
import type { ReadResourceResult, Resource, ResourceTemplate } from '../../core/protocol/resources.ts';
import type { GetPromptResult, Prompt, PromptMessage } from '../../core/protocol/prompts.ts';
import type { ResourceContents } from '../../core/protocol/content.ts';
import type { ValidationOutcome } from '../../core/schema/index.ts';
import type { UriTemplate } from '../../core/uri-template/index.ts';
import type { AccessRule } from './access.ts';
import type { FeatureContext } from './feature-context.ts';
import type { Output } from './handler-output.ts';

/** What a tool handler may return: a full result, a string (one text block), or structured content. */
export type ToolReturn = CallToolResult | string | { readonly structuredContent: JsonObject; readonly content?: CallToolResult['content'] };

export type ToolHandler<A = JsonObject> = (args: A, context: FeatureContext) => Output<ToolReturn>;

/** A validator compiled once: synchronous for JSON Schema, possibly asynchronous for Standard Schema. */
export interface ArgumentValidator {
  validate(value: unknown): ValidationOutcome | Promise<ValidationOutcome>;
}

export interface ToolEntry {
  readonly definition: Tool;
  readonly input: ArgumentValidator;
  readonly output: ArgumentValidator | undefined;
  readonly handler: ToolHandler<never>;
  /** Arguments the tool's schema marks `x-mcp-header` (mirrored into transport headers by modern clients). */
  readonly headers: readonly HeaderAnnotation[];
  /** Who may see and call it (absent: everyone). */
  readonly access?: AccessRule | undefined;
}

/** What reading a resource may return: a full result, contents, or the text of the resource. */
export type ResourceReturn = ReadResourceResult | readonly ResourceContents[] | string;

export type ResourceReader = (uri: string, context: FeatureContext) => Output<ResourceReturn>;
export type TemplateReader = (uri: string, variables: Readonly<Record<string, string | string[]>>, context: FeatureContext) => Output<ResourceReturn>;

/** Suggests values for one argument or template variable. */
export type Completer = (
  value: string,
  context: { readonly arguments: Readonly<Record<string, string>> },
) => readonly string[] | PromiseLike<readonly string[]> | { readonly values: readonly string[]; readonly total?: number; readonly hasMore?: boolean };

export interface ResourceEntry {
  readonly definition: Resource;
  readonly read: ResourceReader;
  readonly access?: AccessRule | undefined;
}

export interface TemplateEntry {
  readonly definition: ResourceTemplate;
  readonly template: UriTemplate;
  readonly read: TemplateReader;
  readonly complete: Readonly<Record<string, Completer>>;
  readonly access?: AccessRule | undefined;
}

export type PromptReturn = GetPromptResult | readonly PromptMessage[] | string;
export type PromptGetter = (args: Readonly<Record<string, string>>, context: FeatureContext) => Output<PromptReturn>;

export interface PromptEntry {
  readonly definition: Prompt;
  readonly get: PromptGetter;
  readonly complete: Readonly<Record<string, Completer>>;
  readonly access?: AccessRule | undefined;
}

export class ServerCatalog {
  readonly tools = new Registry<string, ToolEntry, Tool>('tools', (entry) => entry.definition);
  readonly resources = new Registry<string, ResourceEntry, Resource>('resources', (entry) => entry.definition);
  readonly templates = new Registry<string, TemplateEntry, ResourceTemplate>('resourceTemplates', (entry) => entry.definition);
  readonly prompts = new Registry<string, PromptEntry, Prompt>('prompts', (entry) => entry.definition);
}
