/**
 * The wire shapes the modern era (2026-07-28) adds: result kinds, caching hints, multi round-trip input
 * requests, the discovery result and the listen filter. Types only; the method declarations and the envelope
 * reader (modern.ts) both build on them, so they sit below both.
 */
import type { JsonObject } from '../jsonrpc.ts';
import type { ServerCapabilities } from './capabilities.ts';
import type { Revision } from './versions.ts';

export type ResultType = 'complete' | 'input_required' | 'task';

export type CacheScope = 'public' | 'private';

export interface CacheHints {
  readonly ttlMs: number;
  readonly cacheScope: CacheScope;
}

/** The kinds of server-to-client needs a modern server expresses as input requests. */
export type InputMethod = 'elicitation/create' | 'sampling/createMessage' | 'roots/list';

export interface InputRequest {
  readonly method: InputMethod;
  readonly params?: JsonObject;
}

export interface InputRequiredResult {
  readonly resultType: 'input_required';
  readonly inputRequests?: { readonly [key: string]: InputRequest };
  readonly requestState?: string;
  readonly _meta?: JsonObject;
}

export interface DiscoverResult extends CacheHints {
  readonly resultType: 'complete';
  readonly supportedVersions: readonly Revision[];
  readonly capabilities: ServerCapabilities;
  readonly instructions?: string;
  readonly _meta?: JsonObject;
}

/** What a `subscriptions/listen` request opts in to. */
export interface SubscriptionFilter {
  readonly toolsListChanged?: boolean;
  readonly promptsListChanged?: boolean;
  readonly resourcesListChanged?: boolean;
  readonly resourceSubscriptions?: readonly string[];
  /** Tasks extension (`io.modelcontextprotocol/tasks`): `notifications/tasks` for these task ids. */
  readonly taskIds?: readonly string[];
}
