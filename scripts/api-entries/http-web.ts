/**
 * Streamable HTTP for browsers, Deno, Bun and edge workers: the fetch-based client and the fetch handler, with no
 * Node built-in in their graph. See docs/http.md.
 *
 * @module rxmcp/http/web
 */
export * from '../../transports/http/web.ts';
