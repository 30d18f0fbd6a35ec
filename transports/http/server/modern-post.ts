/**
 * The modern era (2026-07-28) on the MCP endpoint. There are no sessions: each POST carries one request.
 * - The standard headers (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`) must agree with the body, or the
 *   answer is 400 with -32020 before anything runs; tool parameters mirrored in `Mcp-Param-*` headers go to the
 *   server with the message, since only it knows which arguments the tool marks.
 * - The request is served on a pooled connection of its caller (modern-pool.ts), as an exchange of its own; its
 *   answer is made by a {@link ModernResponder} (a JSON body, or an SSE stream once a related notification
 *   precedes it, with the HTTP status of an error answer).
 * - The client closing the connection before the answer is the cancellation.
 */
import { ErrorCode } from '../../../core/error-codes.ts';
import { LocalError } from '../../../core/errors.ts';
import { type JsonObject, type RequestId, isJsonObject, isRequestId } from '../../../core/jsonrpc.ts';
import { PARAM_HEADER_PREFIX, checkStandardHeaders } from '../../../core/protocol/header-mirror.ts';
import type { FrameEnvelope } from '../../../core/frame-envelope.ts';
import { MODERN_REVISIONS, isLegacyRevision, isRevision } from '../../../core/protocol/versions.ts';
import type { FrameOrigin } from '../../../core/transport.ts';
import { HEADER } from '../shared/headers.ts';
import { ACCEPTS_EVENT_STREAM, acceptanceOf } from '../shared/media-types.ts';
import type { HeaderMap, HttpRequest, HttpResponder } from './http-exchange.ts';
import { ModernResponder } from './modern-responder.ts';
import type { PooledConnection } from './pooled-connection.ts';
import { JSON_HEADERS, accepted, refuse } from './replies.ts';
import type { Endpoint } from './session-lookup.ts';
import { answerMode, refuseUnacceptable } from './session-lookup.ts';

const LISTEN_METHOD = 'subscriptions/listen';
const LISTEN_REFUSAL_HEADERS: HeaderMap = Object.freeze({ ...JSON_HEADERS, [HEADER.retryAfter]: '30' });

/**
 * Whether a POST belongs to the modern era: it names a modern revision in `MCP-Protocol-Version`, or names no
 * known legacy revision and carries a 2026 envelope in its body (so a wrong or missing header is reported in
 * the modern way). Session traffic and `initialize` stay legacy.
 */
export function isModernPost(req: HttpRequest, envelope: FrameEnvelope): boolean {
  if (req.header(HEADER.sessionId) !== undefined) return false;
  const header = req.header(HEADER.protocolVersion)?.trim();
  if (header !== undefined && header.length > 0) {
    if (isLegacyRevision(header)) return false;
    if (isRevision(header)) return true;
  }
  // A batch, or a body that is no object, claims nothing; an invalid message still says what it claims.
  if (envelope.method === 'initialize') return false;
  return envelope.claimedRevision !== undefined;
}

export function handleModernPost(endpoint: Endpoint, req: HttpRequest, res: HttpResponder, body: unknown, envelope: FrameEnvelope, origin: FrameOrigin | undefined): void | Promise<void> {
  const { options } = endpoint;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return refuse(res, 400, 'Invalid request: a 2026-07-28 POST carries exactly one JSON-RPC message');
  }
  const message = body as JsonObject;
  const kind = typeof message['method'] !== 'string' ? 'response' : 'id' in message ? 'request' : 'notification';
  // The era defines no client notifications over HTTP (a cancel is a closed stream) and no client responses.
  if (kind === 'notification') return accepted(res);
  if (kind === 'response') return refuse(res, 400, 'Invalid request: a 2026-07-28 client does not send responses');
  const id = message['id'];
  if (message['method'] === 'initialize') {
    // A legacy client reaching a modern-only endpoint (or an initialize sent the modern way): it learns which
    // versions this endpoint speaks, so it can tell what went wrong.
    const error = { code: ErrorCode.MethodNotFound, message: 'Method not found: initialize (this endpoint speaks revision 2026-07-28, which has no initialize)', data: { supported: [...MODERN_REVISIONS] } };
    return refuseWithId(res, 404, JSON_HEADERS, id, error);
  }
  const headerProblem = checkStandardHeaders((name) => req.header(name), { method: message['method'] as string, ...(isJsonObject(message['params']) ? { params: message['params'] } : {}) });
  if (headerProblem !== undefined) {
    const error = { code: ErrorCode.HeaderMismatch, message: `Header mismatch: ${headerProblem.message}` };
    return refuseWithId(res, 400, JSON_HEADERS, id, error);
  }
  const accept = req.header(HEADER.accept);
  if (answerMode(accept, options.responseMode) === undefined) return refuseUnacceptable(res);
  // The answer is JSON unless something must precede it; then it streams, whatever the preferred mode, when the
  // client takes a stream (a listen has nothing to give in a single body).
  const mode = (acceptanceOf(accept) & ACCEPTS_EVENT_STREAM) !== 0 ? 'sse' : 'json';
  const listen = message['method'] === LISTEN_METHOD;
  if (listen && endpoint.listens.open >= options.maxListenStreams) {
    // A listen holds its connection and state until the client leaves: past the limit, it is refused up front.
    const error = { code: ErrorCode.InternalError, message: `Service Unavailable: this endpoint holds its maximum of ${options.maxListenStreams} listen streams; retry later`, data: { maxListenStreams: options.maxListenStreams } };
    return refuseWithId(res, 503, LISTEN_REFUSAL_HEADERS, id, error);
  }
  const request = message as JsonObject & { readonly id: RequestId };
  const found = endpoint.modern.connectionFor(origin, id as RequestId);
  if (!(found instanceof Promise)) return serveOn(endpoint, found, req, res, request, envelope, mode, listen, origin);
  return found.then((connection) => serveOn(endpoint, connection, req, res, request, envelope, mode, listen, origin));
}

/** Refuses a request with its id in the JSON-RPC error (the modern era answers with it), counted as `refuse` does. */
function refuseWithId(res: HttpResponder, status: number, headers: HeaderMap, id: unknown, error: { readonly code: number; readonly message: string; readonly data?: unknown }): void {
  res.respond(status, headers, JSON.stringify({ jsonrpc: '2.0', ...(isRequestId(id) ? { id } : {}), error }));
  res.refused?.(status, error.message, error.code);
}

function serveOn(endpoint: Endpoint, connection: PooledConnection | LocalError, req: HttpRequest, res: HttpResponder, message: JsonObject & { readonly id: RequestId }, envelope: FrameEnvelope, mode: 'sse' | 'json', listen: boolean, origin: FrameOrigin | undefined): void {
  if (connection instanceof LocalError) return refuse(res, 503, `Service Unavailable: ${connection.message}`, { [HEADER.retryAfter]: '30' });
  const pool = endpoint.modern;
  const exchange = pool.exchange();
  const responder = new ModernResponder(res, mode, endpoint.options.transport, listen ? endpoint.listens : undefined);
  connection.serve(exchange, message, envelope, responder, origin, (name) => req.header(name), paramHeadersOf(req));
  // The client leaving before its answer cancels the request (an answered one was released already).
  res.onFinished((gone) => {
    if (gone) connection.left(exchange);
  });
}

const PARAM_PREFIX = PARAM_HEADER_PREFIX.toLowerCase();

/** The request's `Mcp-Param-*` headers, for a server that relays the request on (the NATS gateway). */
function paramHeadersOf(req: HttpRequest): Readonly<Record<string, string>> | undefined {
  let found: Record<string, string> | undefined;
  for (const name of req.headerNames()) {
    if (!name.startsWith(PARAM_PREFIX)) continue;
    const value = req.header(name);
    if (value !== undefined) (found ??= {})[name] = value;
  }
  return found;
}

