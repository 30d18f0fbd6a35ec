/**
 * The 2024-11-05 HTTP+SSE transport, served beside the Streamable endpoint for old clients (deprecated by the
 * spec since 2025-03-26). GET on the SSE path opens a session: its first event is `endpoint`, whose data is
 * the URL to POST messages to (`<messagesPath>?sessionId=<id>`); every message the server sends is a
 * `message` event on that one stream. POSTs get 202 at once. Closing the stream ends the session.
 */
import type { AuthInfo } from '../../../core/auth.ts';
import { type Observable, Subject } from 'rxjs';
import { LocalError } from '../../../core/errors.ts';
import { newSessionId } from '../../../core/ids.ts';
import type { FrameOrigin, InboundFrame, OutboundFrame, Transport } from '../../../core/transport.ts';
import { HEADER } from '../shared/headers.ts';
import { isJsonContentType } from '../shared/media-types.ts';
import type { HttpRequest, HttpResponder } from './http-exchange.ts';
import { SSE_HEADERS, accepted, refuse } from './replies.ts';
import { type Endpoint, readJson } from './session-lookup.ts';
import { sessionRefusal } from './session-open.ts';
import type { SessionEntry } from './session-registry.ts';
import { SseConnection } from './sse-connection.ts';
import { envelopeOf } from '../../../core/frame-envelope.ts';

export class LegacySseTransport implements Transport {
  readonly kind = 'http+sse';
  readonly incoming$: Observable<InboundFrame>;
  private readonly inbound = new Subject<InboundFrame>();
  private closed = false;
  private closedListener: (() => void) | undefined;

  /** @param principal who `authenticate` said opened the session (its SSE GET) */
  constructor(
    private readonly connection: SseConnection,
    private readonly onClosed: () => void,
    readonly principal?: string | undefined,
    /** The verified identity of the GET that opened the session, when `authenticate` gave one. */
    readonly auth?: AuthInfo | undefined,
  ) {
    this.incoming$ = this.inbound.asObservable();
    connection.onClose(() => void this.close());
  }

  feed(payload: unknown, origin: FrameOrigin | undefined): void {
    if (this.closed) return;
    const envelope = envelopeOf(payload);
    this.inbound.next(origin === undefined ? { type: 'message', payload, envelope } : { type: 'message', payload, envelope, origin });
  }

  send(frame: OutboundFrame): void | Promise<void> {
    if (this.closed) return Promise.reject(new LocalError('ConnectionClosed', 'The SSE session is closed'));
    let data: string;
    try {
      data = JSON.stringify(frame.payload);
    } catch (error) {
      return Promise.reject(new LocalError('TransportFailed', 'A message could not be encoded as JSON', { cause: error }));
    }
    return this.connection.event(data, undefined, 'message');
  }

  /** Calls `listener` once this transport has closed (at once if it has): the endpoint's count of live connections. */
  whenClosed(listener: () => void): void {
    if (this.closed) listener();
    else this.closedListener = listener;
  }

  close(_reason?: LocalError): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    this.connection.end();
    this.inbound.complete();
    this.closedListener?.();
    this.closedListener = undefined;
    this.onClosed();
    return Promise.resolve();
  }
}

/** GET on the SSE path: a new session on a new stream. */
export function openLegacySession(endpoint: Endpoint, res: HttpResponder, origin: FrameOrigin | undefined, messagesPath: string): void {
  const principal = origin?.principal;
  const { options, registry } = endpoint;
  const refusal = sessionRefusal(options, registry);
  if (refusal !== undefined) return refuse(res, 503, refusal, { [HEADER.retryAfter]: '30' });
  const id = newSessionId();
  const connection = new SseConnection(res.openStream(200, SSE_HEADERS), options.transport.sseConnection);
  const transport = new LegacySseTransport(connection, () => registry.remove(id), principal, origin?.auth);
  registry.add({ id, principal, kind: 'legacy-sse', transport });
  registry.hold(id, res);
  void connection.event(`${messagesPath}?sessionId=${encodeURIComponent(id)}`, undefined, 'endpoint');
  options.server.accept(transport);
}

/** POST on the messages path: one message for the session named in the query. */
export async function postLegacyMessage(endpoint: Endpoint, req: HttpRequest, res: HttpResponder, origin: FrameOrigin | undefined): Promise<void> {
  const principal = origin?.principal;
  const id = req.url.searchParams.get('sessionId');
  if (id === null || id.length === 0) return refuse(res, 400, 'Bad Request: the sessionId query parameter is required');
  const entry = endpoint.registry.get<SessionEntry<LegacySseTransport>>(id, principal, 'legacy-sse');
  if (entry === undefined) return refuse(res, 404, 'Session not found');
  if (!isJsonContentType(req.header(HEADER.contentType))) {
    return refuse(res, 415, 'Unsupported Media Type: the Content-Type must be application/json');
  }
  const body = await readJson(req, res, endpoint.options.maxBodyBytes);
  if (body === undefined) return;
  entry.transport.feed(body.value, origin);
  accepted(res);
}
