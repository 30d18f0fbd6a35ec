/**
 * Cheap structural guards for protocol values read from untrusted peers. They check the discriminant and the
 * required members' JSON types (recursing into nested blocks), not every optional member or format: enough to
 * branch on safely, not a substitute for schema validation.
 *
 * The one module for them: each guard states one rule, and the protocol modules (the method declarations, the
 * modern envelope, header mirroring) use these instead of keeping their own copies. Only some are public
 * (core/protocol/index.ts names them); the rest are for the library itself.
 */
import { type JsonObject, isJsonObject } from '../jsonrpc.ts';
import type { ResourceContents, ContentBlock, SamplingMessageContentBlock } from './content.ts';
import type { ElicitResult } from './elicitation.ts';
import type { ListRootsResult, Root } from './roots.ts';
import type { CreateMessageResult } from './sampling.ts';
import type { CallToolResult, Tool } from './tools.ts';

// The one "is this an object" rule, defined beside `JsonObject` (core/jsonrpc.ts is below this module).
export { isJsonObject };

function isString(value: unknown): value is string {
  return typeof value === 'string';
}

function optional(value: unknown, check: (v: unknown) => boolean): boolean {
  return value === undefined || check(value);
}

function isRole(value: unknown): boolean {
  return value === 'user' || value === 'assistant';
}

function isBinary(value: JsonObject): boolean {
  return isString(value['data']) && isString(value['mimeType']);
}

export function isResourceContents(value: unknown): value is ResourceContents {
  return (
    isJsonObject(value) &&
    isString(value['uri']) &&
    (isString(value['text']) || isString(value['blob'])) &&
    optional(value['mimeType'], isString)
  );
}

/** The block kinds every content union shares: text, image and audio; undefined for any other kind. */
function mediaBlockOk(value: JsonObject): boolean | undefined {
  switch (value['type']) {
    case 'text':
      return isString(value['text']);
    case 'image':
    case 'audio':
      return isBinary(value);
    default:
      return undefined;
  }
}

/** A block of tool results and prompt messages (text, image, audio, resource link, embedded resource). */
export function isContentBlock(value: unknown): value is ContentBlock {
  if (!isJsonObject(value)) return false;
  const media = mediaBlockOk(value);
  if (media !== undefined) return media;
  switch (value['type']) {
    case 'resource':
      return isResourceContents(value['resource']);
    case 'resource_link':
      return isString(value['uri']) && isString(value['name']);
    default:
      return false;
  }
}

/** A block of sampling messages (text, image, audio, tool use, tool result). */
export function isSamplingMessageContentBlock(value: unknown): value is SamplingMessageContentBlock {
  if (!isJsonObject(value)) return false;
  const media = mediaBlockOk(value);
  if (media !== undefined) return media;
  switch (value['type']) {
    case 'tool_use':
      return isString(value['id']) && isString(value['name']) && isJsonObject(value['input']);
    case 'tool_result':
      return (
        isString(value['toolUseId']) &&
        Array.isArray(value['content']) &&
        value['content'].every(isContentBlock) &&
        optional(value['structuredContent'], isJsonObject) &&
        optional(value['isError'], (v) => typeof v === 'boolean')
      );
    default:
      return false;
  }
}

export function isTool(value: unknown): value is Tool {
  if (!isJsonObject(value) || !isString(value['name'])) return false;
  const input = value['inputSchema'];
  const output = value['outputSchema'];
  return (
    isJsonObject(input) &&
    input['type'] === 'object' &&
    optional(output, (schema) => isJsonObject(schema) && schema['type'] === 'object') &&
    optional(value['title'], isString) &&
    optional(value['description'], isString)
  );
}

export function isRoot(value: unknown): value is Root {
  return isJsonObject(value) && isString(value['uri']) && optional(value['name'], isString);
}

/** The result of `roots/list`: a list of roots. */
export function isListRootsResult(value: unknown): value is ListRootsResult {
  if (!isJsonObject(value)) return false;
  const roots = value['roots'];
  return Array.isArray(roots) && roots.every(isRoot);
}

function isElicitValue(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value);
    default:
      return Array.isArray(value) && value.every(isString);
  }
}

export function isElicitResult(value: unknown): value is ElicitResult {
  if (!isJsonObject(value)) return false;
  const action = value['action'];
  if (action !== 'accept' && action !== 'decline' && action !== 'cancel') return false;
  return optional(value['content'], (content) => isJsonObject(content) && Object.values(content).every(isElicitValue));
}

export function isCreateMessageResult(value: unknown): value is CreateMessageResult {
  if (!isJsonObject(value)) return false;
  const content = value['content'];
  const contentOk = Array.isArray(content) ? content.every(isSamplingMessageContentBlock) : isSamplingMessageContentBlock(content);
  return contentOk && isRole(value['role']) && isString(value['model']) && optional(value['stopReason'], isString);
}

export function isCallToolResult(value: unknown): value is CallToolResult {
  if (!isJsonObject(value)) return false;
  const content = value['content'];
  return (
    Array.isArray(content) &&
    content.every(isContentBlock) &&
    optional(value['structuredContent'], isJsonObject) &&
    optional(value['isError'], (v) => typeof v === 'boolean')
  );
}
