/**
 * Per-request rules shared by the endpoint's handlers: reading the body as JSON within the limit, choosing the
 * answer format from `Accept`, checking `MCP-Protocol-Version`, finding the caller's session.
 */
import { jsonCodec } from '../../../core/codecs/json.ts';
import { ErrorCode } from '../../../core/error-codes.ts';
import type { LegacyRevision } from '../../../core/protocol/versions.ts';
import { HEADER } from '../shared/headers.ts';
import { ACCEPTS_EVENT_STREAM, ACCEPTS_JSON, acceptanceOf } from '../shared/media-types.ts';
import type { HttpRequest, HttpResponder } from './http-exchange.ts';
import type { EndpointOptions } from './options.ts';
import { refuse } from './replies.ts';
import { type SessionRestorer, sessionRefusal } from './session-open.ts';
import type { SessionRegistry } from './session-registry.ts';
import type { HttpSessionTransport } from './session-transport.ts';
import type { FrameOrigin } from '../../../core/transport.ts';
import type { ModernPool } from './modern-pool.ts';

/** What every handler gets: the resolved options and the sessions. */
export interface Endpoint {
  readonly options: EndpointOptions;
  readonly registry: SessionRegistry;
  /** Brings back sessions this process does not hold (`restoreSession`). */
  readonly restorer: SessionRestorer;
  /** The connections that serve modern-era POSTs (closed with the endpoint). */
  readonly modern: ModernPool;
  /** How many of them are `subscriptions/listen` streams (bounded by `maxListenStreams`). */
  readonly listens: { open: number };
}

/** The body as JSON, or undefined once the request was refused (413, 400) or the client left. */
export async function readJson(req: HttpRequest, res: HttpResponder, maxBytes: number): Promise<{ readonly value: unknown } | undefined> {
  if (req.parsedBody !== undefined) return req.parsedBody;
  const body = await req.readBody(maxBytes);
  if (!body.ok) {
    if (body.reason === 'too-large') refuse(res, 413, `Payload Too Large: a message body may hold at most ${maxBytes} bytes`);
    return undefined;
  }
  try {
    return { value: jsonCodec.decode(body.bytes, Number.POSITIVE_INFINITY) };
  } catch {
    refuse(res, 400, 'Parse error: the body is not valid JSON', {}, ErrorCode.ParseError);
    return undefined;
  }
}

/**
 * How to answer requests, given what the client accepts. The spec has clients list both types and lets the
 * server pick either; a client that accepts only one (or a wildcard) is answered in a form it takes.
 */
export function answerMode(accept: string | undefined, preferred: 'sse' | 'json'): 'sse' | 'json' | undefined {
  const bits = acceptanceOf(accept);
  const sse = (bits & ACCEPTS_EVENT_STREAM) !== 0;
  const json = (bits & ACCEPTS_JSON) !== 0;
  if (preferred === 'sse') return sse ? 'sse' : json ? 'json' : undefined;
  return json ? 'json' : sse ? 'sse' : undefined;
}

export function refuseUnacceptable(res: HttpResponder): void {
  refuse(res, 406, 'Not Acceptable: the Accept header must list application/json and text/event-stream');
}

/**
 * The `MCP-Protocol-Version` header: a supported revision, `absent` (the spec then has servers assume
 * 2025-03-26), or `invalid`. Any supported revision is taken on any session.
 */
export function protocolVersionOf(req: HttpRequest, supported: readonly LegacyRevision[]): LegacyRevision | 'absent' | 'invalid' {
  const value = req.header(HEADER.protocolVersion)?.trim();
  if (value === undefined || value.length === 0) return 'absent';
  return (supported as readonly string[]).includes(value) ? (value as LegacyRevision) : 'invalid';
}

export function refuseVersion(res: HttpResponder, req: HttpRequest, supported: readonly LegacyRevision[]): void {
  refuse(res, 400, `Bad Request: unsupported MCP-Protocol-Version ${JSON.stringify(req.header(HEADER.protocolVersion))} (supported: ${supported.join(', ')})`);
}

type StreamableEntry = { id: string; principal: string | undefined; kind: 'streamable'; transport: HttpSessionTransport };

/**
 * The Streamable HTTP session the request names, held busy until the response finishes; or undefined once the
 * request was refused: 400 without the header, 404 for an unknown, expired, ended or someone else's session,
 * 400 for an unsupported protocol version. An id this process does not hold is first offered to
 * `restoreSession` (503 when this process is full or shutting down).
 */
export function sessionFor(endpoint: Endpoint, req: HttpRequest, res: HttpResponder, origin: FrameOrigin | undefined): HttpSessionTransport | undefined | Promise<HttpSessionTransport | undefined> {
  const id = req.header(HEADER.sessionId);
  if (id === undefined) {
    refuse(res, 400, 'Bad Request: the Mcp-Session-Id header is required');
    return undefined;
  }
  const { registry, restorer } = endpoint;
  // Only a session this process does not hold waits (for the restorer); the usual lookup answers at once.
  if (restorer.enabled && !registry.has(id)) return restoreThenFind(endpoint, req, res, origin, id);
  return heldSession(endpoint, req, res, origin, id);
}

async function restoreThenFind(endpoint: Endpoint, req: HttpRequest, res: HttpResponder, origin: FrameOrigin | undefined, id: string): Promise<HttpSessionTransport | undefined> {
  const { registry, restorer } = endpoint;
  const outcome = await restorer.restore(id, origin);
  if (outcome === 'full') {
    const message = sessionRefusal(endpoint.options, registry) ?? `Service Unavailable: this server holds its maximum of ${endpoint.options.maxSessions} sessions; retry later`;
    refuse(res, 503, message, { [HEADER.retryAfter]: '30' });
    return undefined;
  }
  if (outcome === 'closed') {
    refuse(res, 503, 'Service Unavailable: the server is shutting down');
    return undefined;
  }
  return heldSession(endpoint, req, res, origin, id);
}

function heldSession(endpoint: Endpoint, req: HttpRequest, res: HttpResponder, origin: FrameOrigin | undefined, id: string): HttpSessionTransport | undefined {
  const entry = endpoint.registry.get<StreamableEntry>(id, origin?.principal, 'streamable');
  if (entry === undefined || entry.transport.isClosed) {
    refuse(res, 404, 'Session not found: it never existed, expired or ended; initialize a new one');
    return undefined;
  }
  if (protocolVersionOf(req, endpoint.options.supportedVersions) === 'invalid') {
    refuseVersion(res, req, endpoint.options.supportedVersions);
    return undefined;
  }
  endpoint.registry.hold(id, res);
  return entry.transport;
}
