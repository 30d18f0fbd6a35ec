/**
 * `rxmcp/http`: the MCP HTTP transports.
 *
 * Server: `createStreamableHttpServer` (Streamable HTTP, legacy-era revisions, plus optional 2024-11-05 HTTP+SSE).
 * Client: `createStreamableHttpClientTransport` (JSON and SSE answers, resumption, session renewal, HTTP+SSE fallback).
 * Shared helpers (SSE framing, header names, Host/Origin checks) are exported for custom setups.
 */
export * from './server/index.ts';
export { HEADER, MEDIA_TYPE } from './shared/headers.ts';
export { type HostPolicy, LOOPBACK_HOSTS, LOOPBACK_ORIGINS, createHostCheck, createOriginCheck } from './shared/host-origin.ts';
export * from './client/index.ts';
