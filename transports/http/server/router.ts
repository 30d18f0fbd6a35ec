/**
 * The endpoint's one entry: every request, from either adapter, passes here. DNS-rebinding checks come first
 * (before anything else is read: the Host, then, past the public protected-resource metadata, the Origin), then
 * the path: the health probes, a CORS preflight, the shutdown refusal, then the caller's identity and the method. With CORS on, every answer carries the headers for the
 * request's origin.
 */
import { LocalError, isLocalError } from '../../../core/errors.ts';
import type { GracefulCloseOptions } from '../../../core/transport.ts';
import { CallerRefusal, identify } from './caller.ts';
import { HEADER } from '../shared/headers.ts';
import { AcceptedConnections } from './accepted-connections.ts';
import { answerProbe, probeAt } from './health.ts';
import { ModernPool } from './modern-pool.ts';
import { handleDelete, handleGet } from './get-delete.ts';
import type { HttpRequest, HttpResponder } from './http-exchange.ts';
import { openLegacySession, postLegacyMessage } from './legacy-sse.ts';
import type { EndpointOptions } from './options.ts';
import { handlePost } from './post.ts';
import { answerError, methodNotAllowed, refuse } from './replies.ts';
import type { Endpoint } from './session-lookup.ts';
import { SessionRestorer, readinessRefusal } from './session-open.ts';
import { SessionRegistry } from './session-registry.ts';

export interface Router {
  /** Answers one request; never rejects (failures become 500). */
  handle(req: HttpRequest, res: HttpResponder): Promise<void>;
  readonly registry: SessionRegistry;
  /**
   * Ends every session gracefully (see {@link GracefulCloseOptions}; `drainMs` defaults to 10 s). From the
   * start, new sessions and requests outside a session get 503 with Retry-After; an open session still takes
   * POSTs (its requests are refused with a JSON-RPC error, answers to its server's requests are delivered) and
   * DELETE until it closed.
   */
  close(options?: GracefulCloseOptions): Promise<void>;
}

/** How long requests in flight may still run once the endpoint closes, unless told otherwise. */
export const DEFAULT_DRAIN_MS = 10_000;
/** Seconds a client refused during a shutdown is asked to wait (another replica, or this one restarted). */
const SHUTDOWN_RETRY_AFTER = '5';

export function createRouter(unwrapped: EndpointOptions): Router {
  const accepted = new AcceptedConnections();
  const options: EndpointOptions = { ...unwrapped, server: accepted.wrap(unwrapped.server) };
  const registry = new SessionRegistry({ maxSessions: options.maxSessions, idleTimeoutMs: options.idleTimeoutMs, clock: options.clock });
  const endpoint: Endpoint = { options, registry, restorer: new SessionRestorer(options, registry), modern: new ModernPool({ server: options.server, clock: options.clock, maxConnections: options.maxSessions }), listens: { open: 0 } };
  let closing: Promise<void> | undefined;
  return {
    registry,
    async handle(req, raw) {
      const res = options.cors === undefined ? raw : options.cors.decorate(req, raw);
      try {
        await route(endpoint, req, res, () => closing !== undefined);
      } catch (error) {
        // A server that refuses the connection (a session host at its maximum) says why; other internals stay
        // internal: the client learns only that it failed.
        // Not counted here: the acceptor that refused in `accept` counted it; an internal failure is no refusal.
        if (isLocalError(error, 'SessionLimit')) answerError(res, 503, `Service Unavailable: ${error.message}`, { [HEADER.retryAfter]: '30' });
        else answerError(res, 500, 'Internal error');
      }
    },
    close(closeOptions = {}) {
      closing ??= (async () => {
        // Closing is work the process must finish even when nothing else holds it open (the listeners already
        // gone): the session timers of the drain and the flush do not hold it, this one does, until the end.
        const hold = setInterval(() => undefined, 60_000);
        try {
          await closeGracefully();
        } finally {
          clearInterval(hold);
        }
      })();
      return closing;
      async function closeGracefully(): Promise<void> {
        endpoint.restorer.close();
        await accepted.closeAll({ ...closeOptions, drainMs: closeOptions.drainMs ?? DEFAULT_DRAIN_MS });
        // What the server never took (a transport whose accept failed) or that outlived its session.
        const reason = closeOptions.reason ?? new LocalError('ConnectionClosed', 'The HTTP server closed');
        await Promise.all([registry.closeAll(reason), endpoint.modern.closeAll(reason)]);
      }
    },
  };
}

/**
 * While the endpoint shuts down: whether `req` is a POST or DELETE for a session still open here (its session
 * judges it: new requests are refused in JSON-RPC, answers to the server's own requests still arrive).
 */
function reachesOpenSession(endpoint: Endpoint, req: HttpRequest): boolean {
  if (req.method !== 'POST' && req.method !== 'DELETE') return false;
  const id = req.path === endpoint.options.path ? req.header(HEADER.sessionId) : req.url.searchParams.get('sessionId') ?? undefined;
  return id !== undefined && endpoint.registry.has(id);
}

type PathKind = 'mcp' | 'sse' | 'messages';

/** The methods each path of the endpoint takes (the Allow of its 405s, the methods of its CORS preflights). */
function methodsAt(options: EndpointOptions, kind: PathKind): string {
  if (kind === 'sse') return 'GET';
  if (kind === 'messages') return 'POST';
  return options.stateless || options.server.eras === 'modern' ? 'POST' : 'GET, POST, DELETE';
}

function refuseShutdown(res: HttpResponder): void {
  refuse(res, 503, 'Service Unavailable: the server is shutting down', { [HEADER.retryAfter]: SHUTDOWN_RETRY_AFTER });
}

async function route(endpoint: Endpoint, req: HttpRequest, res: HttpResponder, closing: () => boolean): Promise<void> {
  const { options } = endpoint;
  const host = req.header(HEADER.host);
  if (!options.hostAllowed(host)) return refuse(res, 403, `Forbidden: the Host ${JSON.stringify(host ?? '')} is not allowed`);
  const path = req.path;
  // The protected-resource metadata is public: no credentials, answered even while shutting down, and readable by
  // pages on any origin (a browser client discovers its authorization server there). The Origin check guards what
  // acts on a caller's behalf, the MCP endpoint; this document acts on nothing.
  if (options.protectedResource?.paths.has(path) === true) return options.protectedResource.answer(req, res);
  const origin = req.header(HEADER.origin);
  if (origin !== undefined && !options.originAllowed(origin)) return refuse(res, 403, `Forbidden: the Origin ${JSON.stringify(origin)} is not allowed`);
  const legacy = options.legacySse;
  const kind: PathKind | undefined = path === options.path ? 'mcp' : legacy?.ssePath === path ? 'sse' : legacy?.messagesPath === path ? 'messages' : undefined;
  if (kind === undefined) return answerOffEndpoint(endpoint, req, res, closing);
  // A preflight carries no credentials and starts nothing: answered even while shutting down, so that the
  // request it announces gets its 503 readable.
  if (options.cors !== undefined && options.cors.isPreflight(req)) {
    if (!options.cors.allows(origin as string)) return refuse(res, 403, `Forbidden: pages on ${JSON.stringify(origin)} may not call this endpoint from another origin`);
    return res.respond(204, options.cors.preflightHeaders(req, methodsAt(options, kind)));
  }
  if (closing() && !reachesOpenSession(endpoint, req)) return refuseShutdown(res);

  // Without an authenticate hook nobody is identified: no promise to wait for on every request.
  const caller = options.authenticate === undefined ? undefined : await identify(options, req);
  if (caller instanceof CallerRefusal) return caller.answer(res);

  const method = req.method;
  if (kind === 'sse') {
    if (method !== 'GET') return methodNotAllowed(res, methodsAt(options, kind), 'the SSE endpoint takes GET');
    return openLegacySession(endpoint, res, caller, (legacy as { messagesPath: string }).messagesPath);
  }
  if (kind === 'messages') {
    if (method !== 'POST') return methodNotAllowed(res, methodsAt(options, kind), 'the messages endpoint takes POST');
    return postLegacyMessage(endpoint, req, res, caller);
  }
  // A modern-only endpoint has no sessions: GET streams and DELETE do not exist there.
  if (options.server.eras === 'modern' && method !== 'POST') return methodNotAllowed(res, 'POST', `${method} has no meaning in revision 2026-07-28`);
  switch (method) {
    case 'POST':
      return handlePost(endpoint, req, res, caller);
    case 'GET':
      return handleGet(endpoint, req, res, caller);
    case 'DELETE':
      return handleDelete(endpoint, req, res, caller);
    default:
      return methodNotAllowed(res, options.stateless ? 'POST' : 'GET, POST, DELETE', `${method} is not an MCP method`);
  }
}

/** A path that is none of the MCP endpoint's: a health probe, or 404 (503 while shutting down). */
async function answerOffEndpoint(endpoint: Endpoint, req: HttpRequest, res: HttpResponder, closing: () => boolean): Promise<void> {
  const { options } = endpoint;
  const health = options.health;
  const probe = health === undefined ? undefined : probeAt(health, req.path);
  if (health === undefined || probe === undefined) return closing() ? refuseShutdown(res) : refuse(res, 404, `Not Found: the MCP endpoint is ${options.path}`);
  if (health.authenticate) {
    const caller = await identify(options, req);
    if (caller instanceof CallerRefusal) return caller.answer(res);
  }
  return answerProbe(probe, health, req, res, () => readinessRefusal(endpoint, closing()));
}

