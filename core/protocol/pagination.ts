/**
 * Cursor pagination shared by `tools/list`, `prompts/list`, `resources/list`, `resources/templates/list` and
 * (2025-11-25) `tasks/list`. Cursors are opaque: a client never parses or builds one, and a missing
 * `nextCursor` means the last page.
 *
 * Protocol shapes in this directory are object type aliases rather than interfaces on purpose: an alias is
 * assignable to `JsonObject`, so a typed params or result value can go straight into an envelope.
 */
import type { JsonObject } from '../jsonrpc.ts';

/** An opaque pagination position chosen by the server. */
export type Cursor = string;

/** Params of every paginated list request. */
export type PaginatedParams = {
  readonly cursor?: Cursor;
  readonly _meta?: JsonObject;
};

/** The common part of every paginated list result. */
export type PaginatedResult = {
  readonly nextCursor?: Cursor;
  readonly _meta?: JsonObject;
};
