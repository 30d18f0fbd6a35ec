/**
 * `createStreamableHttpServer`: the legacy-era Streamable HTTP transport (revisions 2025-03-26 to 2025-11-25)
 * for an MCP server, and optionally the 2024-11-05 HTTP+SSE endpoints beside it. The protocol is written once
 * (router.ts and its handlers) against a small request/response abstraction, adapted here to node:http and to
 * fetch.
 *
 * @example
 * ```ts
 * import { createServer } from 'rxmcp';
 * import { createStreamableHttpServer } from 'rxmcp/http';
 *
 * const server = createServer({ name: 'example', version: '1.0.0' });
 * const http = createStreamableHttpServer({ server });
 * const { url } = await http.listen(3000); // http://127.0.0.1:3000/mcp
 * ```
 */
import { type Server, createServer as createNodeServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GracefulCloseOptions } from '../../../core/transport.ts';
import { adaptFetch } from './fetch-adapter.ts';
import { adaptNode } from './node-adapter.ts';
import { type StreamableHttpServerOptions, resolveOptions } from './options.ts';
import { refusalSinkOf } from './refusals.ts';
import { createRouter } from './router.ts';

export interface ListeningServer {
  /** The MCP endpoint's URL, e.g. `http://127.0.0.1:50123/mcp`. */
  readonly url: string;
  /** Stops listening and drops the connections (sessions stay until the handler closes or they expire). */
  close(): Promise<void>;
}

export interface StreamableHttpServer {
  /** A node:http request listener. With express, pass the parsed body: `(req, res) => handleNode(req, res, req.body)`. */
  handleNode(req: IncomingMessage, res: ServerResponse, parsedBody?: unknown): void;
  /** Web-standard handler (hono, fastify's fetch bridge, Deno, Bun, workers). */
  handleFetch(request: Request): Promise<Response>;
  /** Serves the endpoint on its own node:http server, on loopback unless told otherwise. */
  listen(port?: number, host?: string): Promise<ListeningServer>;
  /**
   * Shuts down gracefully, then stops every server `listen` started. New sessions and requests are refused at
   * once (503 with Retry-After); requests in flight run for up to `drainMs` (default 10 s) and what still runs
   * then is answered with an error naming the deadline; answers are flushed, SSE streams (the standalone GET
   * stream too) end cleanly, and the sessions close.
   */
  close(options?: GracefulCloseOptions): Promise<void>;
  /** Sessions open now (Streamable and HTTP+SSE). */
  readonly sessionCount: number;
}

export function createStreamableHttpServer(options: StreamableHttpServerOptions): StreamableHttpServer {
  const resolved = resolveOptions(options);
  const router = createRouter(resolved);
  const refused = refusalSinkOf(resolved.server);
  const listening = new Set<ListeningServer>();

  const handleNode = (req: IncomingMessage, res: ServerResponse, parsedBody?: unknown): void => {
    const [request, responder] = adaptNode(req, res, parsedBody, refused);
    void router.handle(request, responder);
  };

  return {
    handleNode,
    handleFetch(request) {
      const [adapted, responder] = adaptFetch(request, refused);
      void router.handle(adapted, responder);
      return responder.response;
    },
    async listen(port = 0, host = '127.0.0.1') {
      const server = createNodeServer((req, res) => handleNode(req, res));
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          resolve();
        });
      });
      const handle: ListeningServer = { url: endpointUrl(server, resolved.path), close: () => stop(server, handle) };
      listening.add(handle);
      return handle;
    },
    async close(options) {
      // Sessions first, while their sockets are still open: their answers and stream ends must reach the clients.
      await router.close(options);
      await Promise.all(Array.from(listening, (handle) => handle.close()));
    },
    get sessionCount() {
      return router.registry.size;
    },
  };

  function stop(server: Server, handle: ListeningServer): Promise<void> {
    listening.delete(handle);
    return new Promise((resolve) => {
      server.close(() => resolve());
      // Event streams keep their sockets open indefinitely: drop them rather than wait.
      server.closeAllConnections();
    });
  }
}

function endpointUrl(server: Server, path: string): string {
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}${path}`;
}
