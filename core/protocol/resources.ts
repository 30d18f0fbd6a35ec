/**
 * Resources: `resources/list`, `resources/templates/list`, `resources/read`, `resources/subscribe`,
 * `resources/unsubscribe`, `notifications/resources/updated`. Union of 2024-11-05 through 2025-11-25:
 * `annotations` arrived in 2025-03-26 (as a member; 2024-11-05 had the same shape via `Annotated`),
 * `title` and `_meta` in 2025-06-18, `icons` in 2025-11-25.
 */
import type { JsonObject } from '../jsonrpc.ts';
import type { Annotations, ResourceContents, Icon } from './content.ts';
import type { PaginatedResult } from './pagination.ts';

export type Resource = {
  readonly uri: string;
  /** Programmatic name; `title` is the display name. */
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

export type ResourceTemplate = {
  /** An RFC 6570 URI template. */
  readonly uriTemplate: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  /** Set only when every resource matching the template has this type. */
  readonly mimeType?: string;
  readonly annotations?: Annotations;
  readonly icons?: readonly Icon[];
  readonly _meta?: JsonObject;
};

export type ListResourcesResult = PaginatedResult & {
  readonly resources: readonly Resource[];
};

export type ListResourceTemplatesResult = PaginatedResult & {
  readonly resourceTemplates: readonly ResourceTemplate[];
};

/** Params of `resources/read`. */
export type ReadResourceParams = {
  readonly uri: string;
  readonly _meta?: JsonObject;
};

export type ReadResourceResult = {
  /** May hold several items (e.g. a directory's files). */
  readonly contents: readonly ResourceContents[];
  readonly _meta?: JsonObject;
};

/** Params of `resources/subscribe`. */
export type SubscribeParams = {
  readonly uri: string;
  readonly _meta?: JsonObject;
};

/** Params of `resources/unsubscribe`: the same shape as subscribe. */
export type UnsubscribeParams = SubscribeParams;

/** Params of `notifications/resources/updated`. */
export type ResourceUpdatedParams = {
  /** May be a sub-resource of the URI the client subscribed to. */
  readonly uri: string;
  readonly _meta?: JsonObject;
};
