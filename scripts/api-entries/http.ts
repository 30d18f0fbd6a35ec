/**
 * Streamable HTTP (both eras) and 2024-11-05 HTTP+SSE, server and client. See docs/http.md.
 *
 * @module rxmcp/http
 */
export * from '../../transports/http/index.ts';
