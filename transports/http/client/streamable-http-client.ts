/**
 * `createStreamableHttpClientTransport`: the Streamable HTTP client transport on node:http / node:https
 * (Node, Bun), with keep-alive agents of its own. For browsers, Deno and edge workers see fetch-client.ts.
 */
import type { Agent } from 'node:http';
import { type StreamableHttpClientTransport, createClientTransport } from './client-transport.ts';
import { createNodeEngine } from './node-engine.ts';
import type { HttpClientOptions } from './options.ts';

export type { StreamableHttpClientTransport } from './client-transport.ts';

export interface StreamableHttpClientOptions extends HttpClientOptions {
  /**
   * An agent of your own for requests and streams (it is not destroyed on close). By default the transport
   * owns keep-alive agents and destroys their sockets on close.
   */
  readonly agent?: Agent;
}

/**
 * Creates a client transport for the MCP endpoint at `url`.
 *
 * @example
 * ```ts
 * const transport = createStreamableHttpClientTransport('http://127.0.0.1:3000/mcp', { headers: { authorization: 'Bearer t' } });
 * const session = await createClient({ name: 'me', version: '1.0.0' }).connect(transport);
 * ```
 */
export function createStreamableHttpClientTransport(url: string | URL, options: StreamableHttpClientOptions = {}): StreamableHttpClientTransport {
  return createClientTransport(url, options, (endpoint, resolved) => createNodeEngine(endpoint, { agent: options.agent, maxSockets: resolved.maxSockets }));
}
