/**
 * The Transport of one Streamable HTTP session. Inbound, the endpoint feeds it what each POST carried, with the
 * exchange key of that POST. Outbound, it routes every frame the session sends:
 * - a frame carrying an exchange key goes where that POST is answered: its SSE stream, or its JSON body (a
 *   related request cannot travel in a JSON body: it is reported undeliverable so it fails at once; a related
 *   notification goes to the standalone stream instead); once that POST is over (answered, cancelled), what still
 *   names it is dropped (a request reported undeliverable), never sent on the standalone stream;
 * - anything else goes to the standalone (GET) stream;
 * - with resumability, every event is stored first; a stream whose connection is gone keeps collecting events
 *   for a client that comes back with `Last-Event-ID`.
 * A client that disconnects is reported as `exchange-closed` (the legacy era does not take it as a cancel).
 * A request stream's events go on being stored after its client left, and its end is recorded with the store
 * (`endStream`), so a client that resumes it in another process gets all of it.
 *
 * A session other processes serve too (`restoreSession`), with a store that can `follow`, has ONE standalone
 * stream for all of them: whichever process a server notification or request comes to appends it to the store,
 * and the GET connection, in whichever process it is open, follows the store. A load balancer may then send the
 * GET to one replica and the server's messages to another.
 */
import { ErrorCode } from '../../../core/error-codes.ts';
import { stepUpHeaders } from './protected-resource.ts';
import type { AuthInfo } from '../../../core/auth.ts';
import { randomBase64url } from '../../../core/crypto/random.ts';
import { Observable, type Subscriber } from 'rxjs';
import { LocalError } from '../../../core/errors.ts';
import type { FrameEnvelope } from '../../../core/frame-envelope.ts';
import type { RequestId, WirePayload } from '../../../core/jsonrpc.ts';
import { type LegacyRevision, atLeast } from '../../../core/protocol/versions.ts';
import type { ExchangeKey, FrameOrigin, InboundFrame, OutboundFrame, Transport } from '../../../core/transport.ts';
import { encodeSseEvent } from '../shared/sse.ts';
import { type Exchange, JsonExchange, LogicalStream, type PayloadKind, type PendingResume, STANDALONE_STREAM, kindOf, refusals } from './exchanges.ts';
import type { HeaderMap, HttpResponder } from './http-exchange.ts';
import { JSON_HEADERS, SSE_HEADERS } from './replies.ts';
import type { ClosedSet } from './accepted-connections.ts';
import { type FollowingStore, followSharedStandalone, recordStreamStart, sharedStandaloneStore } from './shared-streams.ts';
import { type TransportSettings, andThen } from './settings.ts';
import { SseConnection } from './sse-connection.ts';
import { HeldStreams } from './held-streams.ts';
import { HEADER } from '../shared/headers.ts';

const NO_HEADERS: HeaderMap = Object.freeze({});

/**
 * What the endpoint does when a session transport ends. One object per endpoint, told which transport: a session
 * holds no closures of its own for it.
 */
export interface SessionTransportHooks {
  /** The transport closed (for whatever reason): forget the session. */
  onClosed(transport: HttpSessionTransport): void;
  /** The session refused its initialize request: it will never operate. */
  onInitializeFailed(transport: HttpSessionTransport): void;
}

export interface SessionTransportOptions {
  /**
   * The session began in another process: its POST streams get ids no other process gives (`p1_<tag>`), so
   * their events never mix with that process's streams in a shared store.
   */
  readonly restored?: boolean;
  /** Who `authenticate` said opened the session (the principal of its initialize POST, or of a restore). */
  readonly principal?: string | undefined;
  /** The verified identity behind `principal`, when `authenticate` gave one. */
  readonly auth?: AuthInfo | undefined;
}

export class HttpSessionTransport implements Transport {
  /**
   * The negotiated revision, as the session announces it (`negotiated`), or as the medium knows it already (the
   * header of a stateless POST, the record of a restored session).
   */
  revision: LegacyRevision | undefined;
  readonly principal: string | undefined;
  readonly auth: AuthInfo | undefined;
  /** The session this transport feeds (one: see `incoming$`). */
  private reader: Subscriber<InboundFrame> | undefined;
  /** The exchanges running now; made for the first and dropped with the last, as an idle session has none. */
  private exchanges: Map<ExchangeKey, Exchange> | undefined;
  private standalone: LogicalStream | undefined;
  private resumes: Set<PendingResume> | undefined;
  private nextExchange = 0;
  /** Makes this process's stream ids unique in a store other processes share (restored sessions only). */
  private readonly streamSuffix: string;
  /**
   * Connections ended when the session closes here that no stream of this session may hold: resumed streams carried
   * from the store while they run elsewhere, and connections whose stream waits for the store (its priming id, its
   * position in a shared stream). A close in that wait ends them at once, while their sockets are still open.
   */
  private followers: Set<SseConnection> | undefined;
  /** The connections of cancelled request streams, kept open (held-streams.ts); made for the first. */
  private held: HeldStreams | undefined;
  /** The client ended the session (DELETE): its events go, even from a store other processes share. */
  private ending = false;
  private closed = false;
  private closedSet: ClosedSet | undefined;
  /** The headers of every answer of the session (its id), and those merged with a JSON or SSE content type. */
  private sessionHeaders: HeaderMap | undefined;
  private jsonHeaders: HeaderMap | undefined;
  private sseHeaders: HeaderMap | undefined;

  constructor(
    /** Undefined for a stateless connection. */
    readonly sessionId: string | undefined,
    readonly settings: TransportSettings,
    private readonly hooks: SessionTransportHooks,
    options: SessionTransportOptions = {},
  ) {
    this.streamSuffix = options.restored === true ? `_${randomBase64url(6)}` : '';
    this.principal = options.principal;
    this.auth = options.auth;
  }

  /** A getter, so a transport holds no field for it (nor for `incoming$`): the same for every transport. */
  get kind(): string {
    return 'http';
  }

  /**
   * Each exchange is a stream of its own: a full one holds back its own frames only, so a client that stops reading
   * one stream delays none of the session's others (the session's writer queues per exchange).
   */
  get flowPerExchange(): boolean {
    return true;
  }

  /**
   * Inbound frames, for the one session the transport feeds (a second reader is refused, as the port allows). The
   * reader is held as it is, not behind a Subject: an idle session then holds no Subject, no observers array and
   * no subscription of its own; a reader that unsubscribed is a stopped subscriber, which takes no frames.
   */
  get incoming$(): Observable<InboundFrame> {
    return new Observable<InboundFrame>((subscriber) => {
      if (this.closed) return subscriber.complete();
      if (this.reader !== undefined && !this.reader.closed) {
        return subscriber.error(new LocalError('TransportFailed', 'An HTTP session transport feeds exactly one reader'));
      }
      this.reader = subscriber;
      return undefined;
    });
  }

  /** The headers every answer of the session carries (`Mcp-Session-Id`); one object, built once. */
  get replyHeaders(): HeaderMap {
    return (this.sessionHeaders ??= this.sessionId === undefined ? NO_HEADERS : Object.freeze({ [HEADER.sessionId]: this.sessionId }));
  }

  /** The client ended the session (DELETE), as opposed to this process letting go of it (expiry, shutdown). */
  get endedByClient(): boolean {
    return this.ending;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Whether streams of this session are primed and polled (2025-11-25 with a store). */
  get polls(): boolean {
    const { store, sse } = this.settings;
    return store !== undefined && sse.prime && this.revision !== undefined && atLeast(this.revision, '2025-11-25');
  }

  // --- inbound ------------------------------------------------------------------------------------------

  /** A POST of notifications and responses only. */
  deliver(payload: unknown, envelope: FrameEnvelope, origin: FrameOrigin | undefined, cancelled: readonly RequestId[]): void {
    this.feed(origin === undefined ? { type: 'message', payload, envelope } : { type: 'message', payload, envelope, origin });
    for (const id of cancelled) this.cancelled(id);
  }

  /** A POST with requests, answered on an SSE stream. */
  openStream(res: HttpResponder, headers: HeaderMap, payload: unknown, envelope: FrameEnvelope, origin: FrameOrigin | undefined, shape: { requestIds: readonly RequestId[]; otherAnswers: number; initializeId: RequestId | undefined }): void | Promise<void> {
    const stream = new LogicalStream(`p${++this.nextExchange}${this.streamSuffix}`, shape.requestIds, shape.otherAnswers);
    this.track(stream.id, stream);
    recordStreamStart(this.settings, this.sessionId, stream);
    const connection = this.connect(res, headers, false);
    const primed = this.primingId(stream.id);
    // Keep-alive comments from the start, as for any stream, unless the request runs now: a stream answered while
    // it is opened (the usual case: the session answers synchronously) then holds no timer it would cancel at once.
    if (primed instanceof Promise) {
      connection.keepIdleAlive();
      this.endWhenClosed(connection);
    }
    return andThen(primed, (primingId) => {
      // The session closed while the store was asked: the stream was ended then, and its requests are not read.
      if (this.closed) return;
      if (primingId !== undefined) void connection.write(this.primingEvent(primingId));
      this.attach(stream, connection);
      this.feed(this.messageFrame(payload, envelope, stream.id, origin));
      connection.keepIdleAlive();
    });
  }

  /** A POST with requests, answered with a JSON body once every request in it is answered. */
  openJson(res: HttpResponder, headers: HeaderMap, payload: unknown, envelope: FrameEnvelope, origin: FrameOrigin | undefined, shape: { requestIds: readonly RequestId[]; otherAnswers: number; initializeId: RequestId | undefined }): void {
    const exchange = new JsonExchange(`j${++this.nextExchange}`, res, headers, shape.requestIds, shape.otherAnswers);
    this.track(exchange.key, exchange);
    res.onFinished((gone) => {
      if (!gone || !this.untrack(exchange.key, exchange)) return;
      this.clientLeft(exchange.key);
    });
    this.feed(this.messageFrame(payload, envelope, exchange.key, origin));
  }

  /** GET: the standalone stream. False when it already has a live connection (one at a time). */
  openStandalone(res: HttpResponder, headers: HeaderMap): boolean | Promise<boolean> {
    const stream = (this.standalone ??= new LogicalStream(STANDALONE_STREAM));
    if (stream.connection?.open === true) return false;
    const connection = this.connect(res, headers);
    const shared = this.sharedStandalone;
    if (shared !== undefined) {
      // A position in the shared stream to follow from (shown to the client as the priming event when primed).
      const position = shared.append(this.sessionId as string, STANDALONE_STREAM, null);
      if (position instanceof Promise) this.endWhenClosed(connection);
      return andThen(position, (at) => {
        if (this.closed) return true;
        if (this.polls) void connection.write(this.primingEvent(at));
        this.attach(stream, connection);
        this.followShared(connection, at);
        return true;
      });
    }
    const primed = this.primingId(stream.id);
    if (primed instanceof Promise) this.endWhenClosed(connection);
    return andThen(primed, (primingId) => {
      if (this.closed) return true;
      if (primingId !== undefined) void connection.write(this.primingEvent(primingId));
      this.attach(stream, connection);
      return true;
    });
  }

  /**
   * The store, when this session's standalone stream is shared with the other processes serving the session
   * (see the header): its events then reach the client only through `followShared`.
   */
  get sharedStandalone(): FollowingStore | undefined {
    return this.sessionId === undefined ? undefined : sharedStandaloneStore(this.settings);
  }

  /** Carries the shared standalone stream on `connection` from the event `position` on (shared-streams.ts). */
  followShared(connection: SseConnection, position: string, seen: ReadonlySet<string> = new Set()): void {
    followSharedStandalone(this, connection, position, seen);
  }

  // --- Transport ----------------------------------------------------------------------------------------

  send(frame: OutboundFrame): void | Promise<void> {
    if (this.closed) return Promise.reject(new LocalError('ConnectionClosed', 'The HTTP session is closed'));
    const { payload } = frame;
    let data: string;
    try {
      data = JSON.stringify(payload);
    } catch (error) {
      return Promise.reject(new LocalError('TransportFailed', 'A message could not be encoded as JSON', { cause: error }));
    }
    const kind = kindOf(payload);
    if (kind === 'request' && this.settings.stateless) return this.undeliverable(payload, refusals.stateless);
    const exchange = frame.exchange === undefined ? undefined : this.exchanges?.get(frame.exchange);
    if (exchange instanceof JsonExchange) {
      if (kind === 'response') return this.answerJson(exchange, data, payload);
      if (kind === 'request') return this.undeliverable(payload, refusals.json);
    } else if (exchange !== undefined) {
      return this.toStream(exchange, data, payload, kind);
    }
    if (kind === 'response') return undefined; // its exchange is gone; never on the standalone stream
    if (exchange === undefined && frame.exchange !== undefined) {
      // Its request is over (answered, or cancelled: a frame sent before the cancellation reached the sender). The
      // client no longer listens for it (an official client reports a progress token it does not know as an error),
      // and the standalone stream is for what relates to no request: nothing can carry it.
      return kind === 'request' ? this.undeliverable(payload, refusals.over) : undefined;
    }
    const shared = this.sharedStandalone;
    if (shared !== undefined) {
      // Stored only: the GET connection follows the store, in this process or another.
      return andThen(shared.append(this.sessionId as string, STANDALONE_STREAM, data), (id) => {
        if (this.resumes !== undefined) for (const pending of this.resumes) pending.record(STANDALONE_STREAM, { id, message: data });
      });
    }
    const standalone = this.standalone;
    if (standalone === undefined || (this.settings.store === undefined && standalone.connection?.open !== true)) {
      return kind === 'request' ? this.undeliverable(payload, refusals.noStream) : undefined;
    }
    return this.toStream(standalone, data, payload, kind);
  }

  /**
   * The session answered the handshake: with a revision, the session's streams are shaped by it (batches, primed
   * and polled streams); refused, the session will never operate, so it ends once the refusal went out.
   */
  negotiated(revision: LegacyRevision | undefined): void {
    if (revision !== undefined) this.revision = revision;
    else queueMicrotask(() => this.hooks.onInitializeFailed(this));
  }

  /** The client ended the session (DELETE): as `close`, and its events leave the store whoever shares it. */
  end(): Promise<void> {
    this.ending = true;
    return this.close();
  }

  /** Deletes this transport from `set` once it has closed (at once if it has): the endpoint's live connections. */
  leaveOnClose(set: ClosedSet): void {
    if (this.closed) set.delete(this);
    else this.closedSet = set;
  }

  close(_reason?: LocalError): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    const exchanges = this.exchanges?.values() ?? [];
    this.exchanges = undefined;
    for (const exchange of exchanges) {
      if (exchange instanceof JsonExchange) {
        exchange.responder.respond(404, JSON_HEADERS, JSON.stringify({ jsonrpc: '2.0', error: { code: -32600, message: 'Session not found: it ended before answering' } }));
      } else {
        exchange.disconnect();
      }
    }
    this.standalone?.disconnect();
    if (this.followers !== undefined) for (const connection of this.followers) connection.end();
    this.followers = undefined;
    this.held?.endAll();
    this.held = undefined;
    const reader = this.reader;
    this.reader = undefined;
    reader?.complete();
    this.closedSet?.delete(this);
    this.closedSet = undefined;
    const { store, sharedSessions } = this.settings;
    // A session other processes serve too lives on there: only its end (DELETE) drops its events.
    const drop = store !== undefined && this.sessionId !== undefined && (!sharedSessions || this.ending);
    const dropped = drop ? store.dropSession(this.sessionId as string) : undefined;
    this.hooks.onClosed(this);
    return Promise.resolve(dropped).catch(() => undefined);
  }

  // --- internals (also used by stream-resume.ts) --------------------------------------------------------

  /**
   * Whether this transport opened the request stream `streamId` (so, once it no longer runs, it is over); false
   * for streams another process opened for the same session.
   */
  openedHere(streamId: string): boolean {
    const match = /^p(\d+)(.*)$/.exec(streamId);
    return match !== null && match[2] === this.streamSuffix && Number(match[1]) <= this.nextExchange;
  }

  /** The session's stream `streamId` if it still runs (the standalone stream is created on demand). */
  liveStream(streamId: string): LogicalStream | undefined {
    if (streamId === STANDALONE_STREAM) return (this.standalone ??= new LogicalStream(STANDALONE_STREAM));
    const exchange = this.exchanges?.get(streamId);
    return exchange instanceof LogicalStream ? exchange : undefined;
  }

  trackResume(pending: PendingResume, active: boolean): void {
    if (active) (this.resumes ??= new Set()).add(pending);
    else this.resumes?.delete(pending);
  }

  /** A connection carrying a stream followed from the store: ended if the session closes first. */
  trackFollower(connection: SseConnection): void {
    this.endWhenClosed(connection);
  }

  /** Ends `connection` (once) when the session closes, or at once if it has. */
  private endWhenClosed(connection: SseConnection): void {
    if (this.closed) return connection.end();
    const followers = (this.followers ??= new Set());
    followers.add(connection);
    connection.onClose(() => void followers.delete(connection));
  }

  connect(res: HttpResponder, headers: HeaderMap, keepAliveNow = true): SseConnection {
    const merged = headers === this.replyHeaders ? (this.sseHeaders ??= Object.freeze({ ...SSE_HEADERS, ...headers })) : { ...SSE_HEADERS, ...headers };
    return new SseConnection(res.openStream(200, merged), this.settings.sseConnection, keepAliveNow);
  }

  /** Puts `stream` on `connection`, ending any connection it had (the newer one wins). */
  attach(stream: LogicalStream, connection: SseConnection): void {
    if (stream.connection !== connection) stream.disconnect();
    if (!connection.open) {
      // The client left before the stream got going: as if it had dropped the connection.
      if (!stream.isStandalone && !stream.completed) this.clientLeft(stream.id);
      return;
    }
    stream.connection = connection;
    connection.onClose((byPeer) => {
      if (stream.connection !== connection) return;
      stream.connection = undefined;
      stream.closeTimer?.cancel();
      stream.closeTimer = undefined;
      const cut = connection.cutReason;
      if (byPeer && !stream.isStandalone && !stream.completed) this.clientLeft(stream.id, cut);
      // The standalone stream's client reconnects on its own; its session hears only that it was cut off, and why.
      else if (cut !== undefined && stream.isStandalone) this.feed({ type: 'exchange-closed', exchange: stream.id, reason: cut });
    });
    const closeAfter = this.settings.sse.closeRequestStreamsAfterMs;
    if (!stream.isStandalone && closeAfter !== undefined && this.polls) {
      stream.closeTimer = this.settings.clock.setTimeout(() => {
        if (stream.connection === connection) stream.disconnect();
      }, closeAfter);
    }
  }

  private primingId(streamId: string): string | undefined | Promise<string> {
    const { store } = this.settings;
    return store !== undefined && this.sessionId !== undefined && this.polls ? store.append(this.sessionId, streamId, null) : undefined;
  }

  private primingEvent(id: string): string {
    const retry = this.settings.sse.retryMs;
    return encodeSseEvent(retry > 0 ? { id, data: '', retry } : { id, data: '' });
  }

  private messageFrame(payload: unknown, envelope: FrameEnvelope, exchange: string, origin: FrameOrigin | undefined): InboundFrame {
    return origin === undefined ? { type: 'message', payload, envelope, exchange } : { type: 'message', payload, envelope, exchange, origin };
  }

  private feed(frame: InboundFrame): void {
    if (!this.closed) this.reader?.next(frame);
  }

  private track(key: ExchangeKey, exchange: Exchange): void {
    (this.exchanges ??= new Map()).set(key, exchange);
  }

  /** Forgets exchange `key` if it is `exchange`; whether it was. */
  private untrack(key: ExchangeKey, exchange: Exchange): boolean {
    const exchanges = this.exchanges;
    if (exchanges?.get(key) !== exchange) return false;
    exchanges.delete(key);
    if (exchanges.size === 0) this.exchanges = undefined;
    return true;
  }

  /**
   * The client went away from an exchange, or its stream was cut off (`reason`: it stopped reading): the session
   * hears of it; a stateless connection has nothing left.
   */
  private clientLeft(exchange: string, reason?: LocalError): void {
    this.feed(reason === undefined ? { type: 'exchange-closed', exchange } : { type: 'exchange-closed', exchange, reason });
    if (this.settings.stateless) void this.close();
  }

  private toStream(stream: LogicalStream, data: string, payload: WirePayload, kind: PayloadKind): void | Promise<void> {
    const { store } = this.settings;
    if (store === undefined || this.sessionId === undefined) return this.write(stream, undefined, data, payload, kind);
    return andThen(store.append(this.sessionId, stream.id, data), (id) => this.write(stream, id, data, payload, kind));
  }

  private write(stream: LogicalStream, id: string | undefined, data: string, payload: WirePayload, kind: PayloadKind): void | Promise<void> {
    const connection = stream.connection;
    let written: void | Promise<void> = undefined;
    if (connection?.open === true) written = connection.event(data, id);
    else if (id === undefined && kind === 'request') this.undeliverable(payload, refusals.noStream);
    if (id !== undefined && this.resumes !== undefined) for (const pending of this.resumes) pending.record(stream.id, { id, message: data });
    if (kind === 'response' && !stream.isStandalone) this.complete(stream);
    return written;
  }

  /** `exchange` is over; a request stream's connection is ended, or held open when its requests were cancelled. */
  private complete(exchange: Exchange, cancelled = false): void {
    if (exchange instanceof LogicalStream) {
      exchange.completed = true;
      this.untrack(exchange.id, exchange);
      if (!cancelled) exchange.disconnect();
      else {
        const connection = exchange.release();
        if (connection !== undefined) (this.held ??= new HeldStreams()).hold(connection);
      }
      this.endStream(exchange.id);
    } else {
      this.untrack(exchange.key, exchange);
    }
    if (this.settings.stateless) queueMicrotask(() => void this.close());
  }

  /**
   * Records with the store that a request stream is over (after its answer was stored), so clients following
   * it from other processes see it end. Failing to is not the session's problem: a follower then waits for the
   * store to let go of the stream.
   */
  private endStream(streamId: string): void {
    const { store } = this.settings;
    if (store?.endStream === undefined || this.sessionId === undefined) return;
    try {
      const ended = store.endStream(this.sessionId, streamId);
      if (ended instanceof Promise) ended.catch(() => undefined);
    } catch {
      // as above
    }
  }

  private answerJson(exchange: JsonExchange, data: string, payload: WirePayload): void {
    this.complete(exchange);
    // A lone request refused for a missing scope: 403 with the step-up challenge, as in the modern era.
    const error = Array.isArray(payload) ? undefined : (payload as { error?: { code?: unknown; data?: unknown } }).error;
    if (error?.code === ErrorCode.InsufficientScope) return exchange.responder.respond(403, { ...stepUpHeaders(error, this.settings), ...exchange.headers }, data);
    const headers = exchange.headers === this.replyHeaders ? (this.jsonHeaders ??= Object.freeze({ ...JSON_HEADERS, ...exchange.headers })) : { ...JSON_HEADERS, ...exchange.headers };
    exchange.responder.respond(200, headers, data);
  }

  /**
   * A cancellation arrived: a POST left with nothing to answer is over. Its SSE connection is held open, since
   * every official client resumes a stream that ends without its response (held-streams.ts); a JSON exchange is
   * acknowledged with 202.
   */
  private cancelled(id: RequestId): void {
    const exchanges = this.exchanges;
    if (exchanges === undefined) return;
    for (const exchange of exchanges.values()) {
      if (!exchange.requestIds.has(id)) continue;
      if (exchange.cancel(id)) {
        this.complete(exchange, true);
        if (exchange instanceof JsonExchange) exchange.responder.respond(202, exchange.headers);
      }
      return;
    }
  }

  private undeliverable(payload: WirePayload, message: string): undefined {
    const error = new LocalError('TransportFailed', message);
    queueMicrotask(() => this.feed({ type: 'undeliverable', payload, error }));
    return undefined;
  }
}
