/**
 * The Streamable HTTP client transport (with the 2024-11-05 HTTP+SSE fallback): on node:http here, on fetch in
 * ./web.ts (the browser-safe entry). Its SSE parser (bounded, byte-level) stays internal, so this barrel can be
 * star-exported next to the server's.
 */
export { createStreamableHttpClientTransport, type StreamableHttpClientOptions } from './streamable-http-client.ts';
export { createFetchHttpClientTransport, type FetchHttpClientOptions } from './fetch-client.ts';
export type { StreamableHttpClientTransport } from './client-transport.ts';
export type { WireMode as HttpClientWireMode } from './context.ts';
export type { HttpClientEvent, HttpClientMode, HttpClientOptions, HttpClientStatus, ReconnectOptions } from './options.ts';
export type { AuthorizedRequest, AuthResponse, HttpClientAuth } from './auth-port.ts';
