/**
 * Tools: `tools/list`, `tools/call`. Union of 2024-11-05 through 2025-11-25: `annotations` arrived in 2025-03-26;
 * `title`, `outputSchema`, `structuredContent` and `_meta` in 2025-06-18; `icons`, `execution` and `params.task`
 * in 2025-11-25.
 */
import type { JsonObject } from '../jsonrpc.ts';
import type { ContentBlock, Icon } from './content.ts';
import type { PaginatedResult } from './pagination.ts';
import type { TaskMetadata } from './tasks.ts';

/**
 * A tool's input or output JSON Schema. The root is always an object schema (up to 2025-11-25); any other
 * JSON Schema keyword may appear too (e.g. `additionalProperties: false` for a tool without arguments).
 */
export type ToolJsonSchema = {
  readonly type: 'object';
  readonly properties?: { readonly [name: string]: JsonObject };
  readonly required?: readonly string[];
  /** The JSON Schema dialect (2025-11-25+; 2020-12 when absent). */
  readonly $schema?: string;
  readonly [keyword: string]: unknown;
};

/** Untrusted hints about a tool's behaviour (2025-03-26+). */
export type ToolAnnotations = {
  readonly title?: string;
  readonly readOnlyHint?: boolean;
  readonly destructiveHint?: boolean;
  readonly idempotentHint?: boolean;
  readonly openWorldHint?: boolean;
};

export type ToolTaskSupport = 'forbidden' | 'optional' | 'required';

/** 2025-11-25+. */
export type ToolExecution = {
  /** `forbidden` when absent. */
  readonly taskSupport?: ToolTaskSupport;
};

export type Tool = {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema: ToolJsonSchema;
  readonly outputSchema?: ToolJsonSchema;
  readonly annotations?: ToolAnnotations;
  readonly icons?: readonly Icon[];
  readonly execution?: ToolExecution;
  readonly _meta?: JsonObject;
};

export type ListToolsResult = PaginatedResult & {
  readonly tools: readonly Tool[];
};

/** Params of `tools/call`. */
export type CallToolParams = {
  readonly name: string;
  readonly arguments?: JsonObject;
  /** Asks for task-augmented execution; the answer is then a `CreateTaskResult` (2025-11-25+). */
  readonly task?: TaskMetadata;
  readonly _meta?: JsonObject;
};

/** The (non-task) result of `tools/call`. Execution errors are results with `isError: true`. */
export type CallToolResult = {
  readonly content: readonly ContentBlock[];
  /** Must conform to the tool's `outputSchema` when it has one (2025-06-18+). */
  readonly structuredContent?: JsonObject;
  readonly isError?: boolean;
  readonly _meta?: JsonObject;
};
