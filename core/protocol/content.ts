/**
 * Content blocks and resource contents: the union of revisions 2024-11-05 through 2025-11-25. Members a revision
 * does not know are optional (`annotations` from 2025-03-26, `_meta` on blocks from 2025-06-18, `icons` from
 * 2025-11-25); block kinds a revision does not know (`audio` before 2025-03-26, `resource_link` before
 * 2025-06-18, `tool_use` / `tool_result` before 2025-11-25) are simply never sent to a peer on such a revision.
 */
import type { JsonObject } from '../jsonrpc.ts';

/** Who a message or content is for (the schema's `Role`; named apart from the session `Role` in methods.ts). */
export type MessageRole = 'user' | 'assistant';

/** Hints for clients on how to use or display an object. */
export type Annotations = {
  readonly audience?: readonly MessageRole[];
  /** 0 (least important) to 1 (most important). */
  readonly priority?: number;
  /** ISO 8601 timestamp (2025-06-18+). */
  readonly lastModified?: string;
};

/** An icon for a tool, prompt, resource or implementation (2025-11-25+). */
export type Icon = {
  /** An http(s) URL or a `data:` URI. */
  readonly src: string;
  readonly mimeType?: string;
  /** Each entry is `WxH` (e.g. `"48x48"`) or `"any"`. */
  readonly sizes?: readonly string[];
  readonly theme?: 'light' | 'dark';
};

export type TextContent = {
  readonly type: 'text';
  readonly text: string;
  readonly annotations?: Annotations;
  readonly _meta?: JsonObject;
};

export type ImageContent = {
  readonly type: 'image';
  /** Base64. */
  readonly data: string;
  readonly mimeType: string;
  readonly annotations?: Annotations;
  readonly _meta?: JsonObject;
};

/** 2025-03-26+. */
export type AudioContent = {
  readonly type: 'audio';
  /** Base64. */
  readonly data: string;
  readonly mimeType: string;
  readonly annotations?: Annotations;
  readonly _meta?: JsonObject;
};

/** The members every resource contents item has (the schema's `ResourceContents` definition). */
export type ResourceContentsBase = {
  readonly uri: string;
  readonly mimeType?: string;
  readonly _meta?: JsonObject;
};

export type TextResourceContents = ResourceContentsBase & {
  readonly text: string;
};

export type BlobResourceContents = ResourceContentsBase & {
  /** Base64. */
  readonly blob: string;
};

/** One item of `resources/read` contents or of an embedded resource: text or binary. */
export type ResourceContents = TextResourceContents | BlobResourceContents;

export type EmbeddedResource = {
  readonly type: 'resource';
  readonly resource: ResourceContents;
  readonly annotations?: Annotations;
  readonly _meta?: JsonObject;
};

/** A reference to a resource (2025-06-18+); the same members as `Resource` plus `type`. */
export type ResourceLink = {
  readonly type: 'resource_link';
  readonly uri: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
  /** Raw size in bytes, before any encoding. Integer. */
  readonly size?: number;
  readonly annotations?: Annotations;
  readonly icons?: readonly Icon[];
  readonly _meta?: JsonObject;
};

/** A model's request to call a tool, inside sampling messages only (2025-11-25+). */
export type ToolUseContent = {
  readonly type: 'tool_use';
  /** Matches the `toolUseId` of the answering `tool_result`. */
  readonly id: string;
  readonly name: string;
  readonly input: JsonObject;
  readonly _meta?: JsonObject;
};

/** The outcome of a tool use, inside sampling messages only (2025-11-25+). */
export type ToolResultContent = {
  readonly type: 'tool_result';
  readonly toolUseId: string;
  readonly content: readonly ContentBlock[];
  readonly structuredContent?: JsonObject;
  readonly isError?: boolean;
  readonly _meta?: JsonObject;
};

/** A block of tool results and prompt messages. */
export type ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource;

/** A block of sampling messages and sampling results. */
export type SamplingMessageContentBlock = TextContent | ImageContent | AudioContent | ToolUseContent | ToolResultContent;

export type ContentBlockType = ContentBlock['type'];
export type SamplingMessageContentBlockType = SamplingMessageContentBlock['type'];
