/**
 * `createStreamableHttpFetchHandler`: the same Streamable HTTP endpoint as `createStreamableHttpServer`, as a
 * web-standard `(Request) => Promise<Response>` handler and nothing else, so that nothing in its import graph
 * needs Node: Deno.serve, Bun.serve, edge workers, service workers.
 *
 * @example
 * ```ts
 * const endpoint = createStreamableHttpFetchHandler({ server });
 * Deno.serve({ port: 3000, hostname: '127.0.0.1' }, endpoint.handleFetch);
 * ```
 */
import { adaptFetch } from './fetch-adapter.ts';
import { type StreamableHttpServerOptions, resolveOptions } from './options.ts';
import { refusalSinkOf } from './refusals.ts';
import { createRouter } from './router.ts';

export interface StreamableHttpFetchHandler {
  /** Answers one request to the endpoint (any path other than the endpoint's is answered 404). */
  handleFetch(request: Request): Promise<Response>;
  /** Ends every session. */
  close(): Promise<void>;
  /** Sessions open now (Streamable and HTTP+SSE). */
  readonly sessionCount: number;
}

export function createStreamableHttpFetchHandler(options: StreamableHttpServerOptions): StreamableHttpFetchHandler {
  const resolved = resolveOptions(options);
  const router = createRouter(resolved);
  const refused = refusalSinkOf(resolved.server);
  return {
    handleFetch(request) {
      const [adapted, responder] = adaptFetch(request, refused);
      void router.handle(adapted, responder);
      return responder.response;
    },
    close: () => router.close(),
    get sessionCount() {
      return router.registry.size;
    },
  };
}
