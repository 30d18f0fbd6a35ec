/**
 * `createFetchHttpClientTransport`: the same Streamable HTTP client transport on the web-standard fetch, for
 * browsers, Deno, Bun and edge workers. Nothing in its import graph needs Node.
 */
import { type StreamableHttpClientTransport, createClientTransport } from './client-transport.ts';
import { createFetchEngine } from './fetch-engine.ts';
import type { HttpClientOptions } from './options.ts';

export interface FetchHttpClientOptions extends HttpClientOptions {
  /** The fetch to use (default: the global one), e.g. one that adds credentials or runs through a proxy. */
  readonly fetch?: typeof fetch;
}

/**
 * Creates a client transport for the MCP endpoint at `url`, speaking through fetch. A page calling another
 * origin needs that server to allow it (CORS); on the page's own origin nothing more is needed.
 *
 * @example
 * ```ts
 * const transport = createFetchHttpClientTransport(new URL('/mcp', location.href));
 * const session = await createClient({ name: 'page', version: '1.0.0' }).connect(transport);
 * ```
 */
export function createFetchHttpClientTransport(url: string | URL, options: FetchHttpClientOptions = {}): StreamableHttpClientTransport {
  return createClientTransport(url, options, () => createFetchEngine(options.fetch));
}
