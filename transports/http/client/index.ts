/**
 * The Streamable HTTP client transport (with the 2024-11-05 HTTP+SSE fallback). Node only: node:http/https.
 * Its SSE parser (bounded, byte-level) stays internal, so this barrel can be star-exported next to the server's.
 */
export { createStreamableHttpClientTransport } from './streamable-http-client.ts';
export type { StreamableHttpClientTransport } from './streamable-http-client.ts';
export type { WireMode as HttpClientWireMode } from './context.ts';
export type { HttpClientEvent, HttpClientMode, HttpClientStatus, ReconnectOptions, StreamableHttpClientOptions } from './options.ts';
