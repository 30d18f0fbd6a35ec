/**
 * The HTTP server side of rxmcp: the Streamable HTTP endpoint (2025-03-26 .. 2025-11-25) with the 2024-11-05
 * HTTP+SSE endpoints as an option.
 */
export { createStreamableHttpServer } from './streamable-http-server.ts';
export { createStreamableHttpFetchHandler, type StreamableHttpFetchHandler } from './fetch-handler.ts';
export type { ListeningServer, StreamableHttpServer } from './streamable-http-server.ts';
export type { LegacySseOptions, RestoredSession, SseOptions, StreamableHttpServerOptions } from './options.ts';
export type { CorsOptions } from './cors.ts';
export type { HealthOptions } from './health.ts';
export { InMemoryEventStore, StreamAbandonedError } from './event-store.ts';
export type { EventStore, FollowOptions, InMemoryEventStoreOptions, ReplayResult, StoredEvent } from './event-store.ts';
export type { HttpRequestInfo, NativeRequest } from './http-exchange.ts';
export type { Authenticated } from './options.ts';
export { AuthRefusal, isAuthRefusal, type AuthInfo } from '../../../core/auth.ts';
export { buildChallenge, type ChallengeDetails, type ProtectedResourceMetadata, type ProtectedResourceOptions } from './protected-resource.ts';
