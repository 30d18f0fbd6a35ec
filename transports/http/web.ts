/**
 * `rxmcp/http/web`: the MCP HTTP transports for runtimes without Node (browsers, Deno, edge workers; Bun and
 * Node can use it too). Nothing in this entry's import graph needs a Node builtin; `rxmcp/http` adds the
 * node:http client engine and `listen`/`handleNode` on top of the same code.
 *
 * Client: `createFetchHttpClientTransport` (Streamable HTTP over fetch, with resumption, session renewal and
 * the HTTP+SSE fallback). Server: `createStreamableHttpFetchHandler` (a `(Request) => Promise<Response>`).
 */
export { createFetchHttpClientTransport, type FetchHttpClientOptions } from './client/fetch-client.ts';
export type { StreamableHttpClientTransport } from './client/client-transport.ts';
export type { WireMode as HttpClientWireMode } from './client/context.ts';
export type { HttpClientEvent, HttpClientMode, HttpClientOptions, HttpClientStatus, ReconnectOptions } from './client/options.ts';
export type { AuthorizedRequest, AuthResponse, HttpClientAuth } from './client/auth-port.ts';
export { createStreamableHttpFetchHandler, type StreamableHttpFetchHandler } from './server/fetch-handler.ts';
export type { LegacySseOptions, RestoredSession, SseOptions, StreamableHttpServerOptions } from './server/options.ts';
export type { CorsOptions } from './server/cors.ts';
export type { HealthOptions } from './server/health.ts';
export type { Authenticated } from './server/options.ts';
export { AuthRefusal, isAuthRefusal, type AuthInfo } from '../../core/auth.ts';
export { buildChallenge, type ChallengeDetails, type ProtectedResourceMetadata, type ProtectedResourceOptions } from './server/protected-resource.ts';

export { InMemoryEventStore, StreamAbandonedError } from './server/event-store.ts';
export type { EventStore, FollowOptions, InMemoryEventStoreOptions, ReplayResult, StoredEvent } from './server/event-store.ts';
export { HEADER, MEDIA_TYPE } from './shared/headers.ts';
export { type HostPolicy, LOOPBACK_HOSTS, LOOPBACK_ORIGINS, createHostCheck, createOriginCheck } from './shared/host-origin.ts';
