/**
 * The endpoint behind each of its two adapters, on a real socket of 127.0.0.1 (port 0): `node` is
 * `createStreamableHttpServer(...).handleNode` on a node:http server, `fetch` is `createStreamableHttpFetchHandler(...)` behind a
 * node:http-to-fetch bridge (fetch-listener.ts), as a hono or Deno host would run it. The operations specs
 * (health, CORS) run the same cases on both.
 */
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { GracefulCloseOptions, SessionAcceptorPort } from '../../../core/transport.ts';
import { type StreamableHttpServerOptions, createStreamableHttpFetchHandler, createStreamableHttpServer } from '../../../transports/http/index.ts';
import { listenFetch } from './fetch-listener.ts';

export type AdapterName = 'node' | 'fetch';
export const ADAPTERS: readonly AdapterName[] = ['node', 'fetch'];

export interface ServedEndpoint extends AsyncDisposable {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  /** The MCP endpoint's URL. */
  readonly url: string;
  readonly sessionCount: number;
  /** Closes the endpoint gracefully (the fetch handler's close takes no options: its drain is the default). */
  close(options?: GracefulCloseOptions): Promise<void>;
}

export type EndpointOptions = Omit<StreamableHttpServerOptions, 'server'> & { readonly server?: SessionAcceptorPort };

/**
 * Serves `server` (or `options.server`) with `options` through `adapter`. `observe` sees every request and
 * its response as the socket carries them.
 */
export async function serveThrough(
  adapter: AdapterName,
  server: SessionAcceptorPort,
  options: EndpointOptions = {},
  observe?: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<ServedEndpoint> {
  const full: StreamableHttpServerOptions = { ...options, server: options.server ?? server };
  const path = full.path ?? '/mcp';
  if (adapter === 'node') {
    const http = createStreamableHttpServer(full);
    const socket = createServer((req, res) => {
      observe?.(req, res);
      http.handleNode(req, res);
    });
    await new Promise<void>((resolve) => socket.listen(0, '127.0.0.1', resolve));
    const address = socket.address();
    const origin = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
    let stopped: Promise<void> | undefined;
    const close = (closeOptions?: GracefulCloseOptions): Promise<void> =>
      (stopped ??= (async () => {
        await http.close(closeOptions);
        await new Promise<void>((resolve) => {
          socket.close(() => resolve());
          socket.closeAllConnections();
        });
      })());
    return { origin, url: `${origin}${path}`, get sessionCount() { return http.sessionCount; }, close, [Symbol.asyncDispose]: () => close() };
  }
  const handler = createStreamableHttpFetchHandler(full);
  const listener = await listenFetch(handler.handleFetch, observe);
  let stopped: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (stopped ??= (async () => {
      await handler.close();
      await listener.close();
    })());
  return { origin: listener.origin, url: `${listener.origin}${path}`, get sessionCount() { return handler.sessionCount; }, close, [Symbol.asyncDispose]: () => close() };
}
