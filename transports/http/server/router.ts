/**
 * The endpoint's one entry: every request, from either adapter, passes here. DNS-rebinding checks come first
 * (before anything else is read), then the path, the caller's identity and the method.
 */
import { LocalError, isLocalError } from '../../../core/errors.ts';
import { HEADER } from '../shared/headers.ts';
import { handleDelete, handleGet } from './get-delete.ts';
import type { HttpRequest, HttpResponder } from './http-exchange.ts';
import { openLegacySession, postLegacyMessage } from './legacy-sse.ts';
import type { EndpointOptions } from './options.ts';
import { handlePost } from './post.ts';
import { methodNotAllowed, refuse } from './replies.ts';
import type { Endpoint } from './session-lookup.ts';
import { SessionRestorer } from './session-open.ts';
import { SessionRegistry } from './session-registry.ts';

export interface Router {
  /** Answers one request; never rejects (failures become 500). */
  handle(req: HttpRequest, res: HttpResponder): Promise<void>;
  readonly registry: SessionRegistry;
  /** Ends every session; later requests get 503. */
  close(): Promise<void>;
}

export function createRouter(options: EndpointOptions): Router {
  const registry = new SessionRegistry({ maxSessions: options.maxSessions, idleTimeoutMs: options.idleTimeoutMs, clock: options.clock });
  const endpoint: Endpoint = { options, registry, restorer: new SessionRestorer(options, registry), modern: new Set() };
  let closed = false;
  return {
    registry,
    async handle(req, res) {
      try {
        if (closed) return refuse(res, 503, 'Service Unavailable: the server is shutting down');
        await route(endpoint, req, res);
      } catch (error) {
        // A server that refuses the connection (a session host at its maximum) says why; other internals stay
        // internal: the client learns only that it failed.
        if (isLocalError(error, 'SessionLimit')) refuse(res, 503, `Service Unavailable: ${error.message}`, { [HEADER.retryAfter]: '30' });
        else refuse(res, 500, 'Internal error');
      }
    },
    async close() {
      closed = true;
      endpoint.restorer.close();
      const reason = new LocalError('ConnectionClosed', 'The HTTP server closed');
      await Promise.all([registry.closeAll(reason), ...[...endpoint.modern].map((transport) => transport.close(reason))]);
    },
  };
}

async function route(endpoint: Endpoint, req: HttpRequest, res: HttpResponder): Promise<void> {
  const { options } = endpoint;
  const host = req.header(HEADER.host);
  if (!options.hostAllowed(host)) return refuse(res, 403, `Forbidden: the Host ${JSON.stringify(host ?? '')} is not allowed`);
  const origin = req.header(HEADER.origin);
  if (origin !== undefined && !options.originAllowed(origin)) return refuse(res, 403, `Forbidden: the Origin ${JSON.stringify(origin)} is not allowed`);

  const path = req.url.pathname;
  const legacy = options.legacySse;
  const kind = path === options.path ? 'mcp' : legacy?.ssePath === path ? 'sse' : legacy?.messagesPath === path ? 'messages' : undefined;
  if (kind === undefined) return refuse(res, 404, `Not Found: the MCP endpoint is ${options.path}`);

  let principal: string | undefined;
  try {
    principal = await options.authenticate?.(req);
  } catch {
    return refuse(res, 401, 'Unauthorized');
  }

  const method = req.method;
  if (kind === 'sse') {
    if (method !== 'GET') return methodNotAllowed(res, 'GET', 'the SSE endpoint takes GET');
    return openLegacySession(endpoint, res, principal, (legacy as { messagesPath: string }).messagesPath);
  }
  if (kind === 'messages') {
    if (method !== 'POST') return methodNotAllowed(res, 'POST', 'the messages endpoint takes POST');
    return postLegacyMessage(endpoint, req, res, principal);
  }
  // A modern-only endpoint has no sessions: GET streams and DELETE do not exist there.
  if (options.server.eras === 'modern' && method !== 'POST') return methodNotAllowed(res, 'POST', `${method} has no meaning in revision 2026-07-28`);
  switch (method) {
    case 'POST':
      return handlePost(endpoint, req, res, principal);
    case 'GET':
      return handleGet(endpoint, req, res, principal);
    case 'DELETE':
      return handleDelete(endpoint, req, res, principal);
    default:
      return methodNotAllowed(res, options.stateless ? 'POST' : 'GET, POST, DELETE', `${method} is not an MCP method`);
  }
}
