/**
 * Roots: `roots/list` (server to client). A root's `uri` is a `file://` URI; `_meta` arrived in 2025-06-18.
 */
import type { JsonObject } from '../jsonrpc.ts';

export type Root = {
  readonly uri: string;
  readonly name?: string;
  readonly _meta?: JsonObject;
};

export type ListRootsResult = {
  readonly roots: readonly Root[];
  readonly _meta?: JsonObject;
};
