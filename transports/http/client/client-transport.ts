/**
 * The Streamable HTTP client transport (MCP 2025-03-26 and later), with the 2024-11-05 HTTP+SSE fallback, on
 * any {@link HttpEngine}: node:http (streamable-http-client.ts) or fetch (fetch-client.ts). Runtime-neutral.
 *
 * Every outbound message is one POST (post.ts); answers come back as JSON or as SSE streams that are resumed
 * when they end early (resumption.ts); an expired session is renewed below the session (session-renewal.ts);
 * a server that refuses the first POST the 2024-11-05 way is spoken to over HTTP+SSE (legacy-sse.ts).
 *
 * `send` takes a frame at once (it returns undefined) while fewer than `maxPendingPosts` POSTs await their
 * answer; past that it returns a Promise that settles when they drop below it again (backpressure). POSTs run
 * concurrently (HTTP has no order between requests), with two exceptions: nothing is sent while the first
 * exchange decides between Streamable HTTP and the legacy transport, and nothing overtakes
 * `notifications/initialized` (the next message waits for its answer, one round trip once per session).
 *
 * The era is decided per message: a request whose `_meta` names a modern protocol version (2026-07-28) is POSTed
 * the modern way (modern.ts): no session, no waiting for the handshake, no renewal or fallback, its own stream
 * never resumed, and cancelled by aborting its POST. Legacy traffic can share the same transport instance.
 */
import { BehaviorSubject, type Observable, Subject } from 'rxjs';
import { LocalError } from '../../../core/errors.ts';
import { isRequestId, type RequestId, type WirePayload } from '../../../core/jsonrpc.ts';
import type { InboundFrame, OutboundFrame, Transport, TransportStatus } from '../../../core/transport.ts';
import {
  type ClientContext,
  type ModernFlight,
  type StreamCursor,
  type WireMode,
  isInitializeRequest,
  isInitializedNotification,
  requestHeaders,
} from './context.ts';
import { authorizingEngine } from './authorizing-engine.ts';
import { type HttpEngine, type HttpRequest, closed, discardBody } from './http-exchange.ts';
import { Inbox } from './inbox.ts';
import { openLegacyStream, postLegacy } from './legacy-sse.ts';
import { abortFlight, cancelledRequestId, isModernRequest, postModern } from './modern.ts';
import { type HttpClientEvent, type HttpClientOptions, type ResolvedOptions, resolveOptions } from './options.ts';
import { postMessage } from './post.ts';
import { release, stop } from './resumption.ts';
import { renewSession } from './session-renewal.ts';
import { envelopeOf } from '../../../core/frame-envelope.ts';

/** Modern request ids remembered after their POST ended (see `modernIds`). */
const MAX_REMEMBERED_MODERN_IDS = 1024;

export interface StreamableHttpClientTransport extends Transport {
  readonly kind: 'http';
  /** Open, backpressure and drained as POSTs go out, then closed (with the reason); sessions do not read it. */
  readonly status$: Observable<TransportStatus>;
  /** The session id the server gave in answer to `initialize`, if any. */
  readonly sessionId: string | undefined;
  /** The negotiated protocol version, read from the `initialize` result as it passed. */
  readonly protocolVersion: string | undefined;
  /**
   * `streamable`, or `legacy` after the HTTP+SSE fallback (`probing` until the first answer). Legacy traffic only:
   * modern (2026-07-28) requests neither wait for nor change it.
   */
  readonly mode: WireMode;
  /** What the transport did on its own: session renewals, reconnections, the fallback, GET refusals. */
  readonly events$: Observable<HttpClientEvent>;
}

/**
 * Creates a client transport for the MCP endpoint at `url` on `engine`, made for the URL and the resolved options
 * (the public factories pick the engine).
 */
export function createClientTransport(
  url: string | URL,
  options: HttpClientOptions,
  engine: (url: URL, options: ResolvedOptions) => HttpEngine,
): StreamableHttpClientTransport {
  return new StreamableHttpClient(new URL(url), options, engine);
}

const closedError = (): LocalError => new LocalError('ConnectionClosed', 'The HTTP client transport is closed');

class StreamableHttpClient implements StreamableHttpClientTransport, ClientContext {
  readonly kind = 'http';
  get remote(): string {
    return this.url.href;
  }
  readonly options: ResolvedOptions;
  readonly engine: HttpEngine;
  readonly cursors = new Set<StreamCursor>();
  readonly owed = new Map<string | number, StreamCursor>();
  readonly flights = new Map<string | number, ModernFlight>();
  readonly cancelledEarly = new Set<RequestId>();
  /**
   * Ids of the modern requests sent lately (bounded, oldest first out): a cancellation naming one whose POST has
   * already finished has nothing to close, and a modern request is never cancelled by a POSTed notification.
   */
  private readonly modernIds = new Set<RequestId>();
  mode: WireMode;
  sessionId: string | undefined;
  protocolVersion: string | undefined;
  initialize: ClientContext['initialize'];
  standalone: StreamCursor | undefined;
  renewal: Promise<LocalError | undefined> | undefined;
  legacyEndpoint: URL | undefined;
  private readonly inbox = new Inbox();
  private readonly statusSubject = new BehaviorSubject<TransportStatus>({ type: 'open' });
  private readonly eventSubject = new Subject<HttpClientEvent>();
  /**
   * An exchange every other message waits for: the first one, which decides the mode (probe or legacy connect),
   * and `notifications/initialized`.
   */
  private ready: Promise<void> | undefined;
  /**
   * Settles once every message sent earlier has passed the wait for {@link ready}: messages pass it in the order
   * they were sent, so none slips through in the moment between an exclusive exchange ending and the messages
   * that waited for it going on (one sent then would overtake `notifications/initialized`).
   */
  private gate: Promise<void> = Promise.resolve();
  /** Messages waiting at the gate: while there are none and nothing is exclusive, a message goes straight out. */
  private waitingAtGate = 0;
  private pendingPosts = 0;
  private drainWaiters: Array<() => void> | undefined;
  private closing: Promise<void> | undefined;
  private isClosed = false;

  constructor(
    readonly url: URL,
    options: HttpClientOptions,
    engine: (url: URL, options: ResolvedOptions) => HttpEngine,
  ) {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`An MCP HTTP endpoint needs an http: or https: URL, got ${url.protocol}`);
    this.options = resolveOptions(options);
    this.mode = this.options.mode === 'auto' ? 'probing' : this.options.mode === 'legacy-sse' ? 'legacy-pending' : 'streamable';
    const carrier = engine(url, this.options);
    this.engine = this.options.auth === undefined ? carrier : authorizingEngine(carrier, this.options.auth, this.options.maxAuthRetries, url);
  }

  get incoming$(): Observable<InboundFrame> {
    return this.inbox.incoming$;
  }

  get status$(): Observable<TransportStatus> {
    return this.statusSubject.asObservable();
  }

  get events$(): Observable<HttpClientEvent> {
    return this.eventSubject.asObservable();
  }

  get closed(): boolean {
    return this.isClosed;
  }

  send(frame: OutboundFrame): void | Promise<void> {
    if (this.isClosed) return Promise.reject(closedError());
    const payload = frame.payload;
    // A modern request is cancelled by closing its POST: the notification itself never goes out over HTTP.
    const cancelled = cancelledRequestId(payload);
    const flight = cancelled === undefined ? undefined : this.flights.get(cancelled);
    if (flight !== undefined) {
      abortFlight(this, flight);
      return undefined;
    }
    if (cancelled !== undefined && this.modernIds.has(cancelled)) {
      this.emit({ type: 'ignored', reason: `a cancellation of modern request ${JSON.stringify(cancelled)}, already answered` });
      return undefined;
    }
    this.observe(payload);
    this.pendingPosts++;
    void this.route(frame)
      .catch((error: unknown) => this.undeliverable(frame.payload, new LocalError('TransportFailed', 'The message could not be sent', { cause: error })))
      .finally(() => this.posted());
    if (this.pendingPosts < this.options.maxPendingPosts) return undefined;
    this.statusSubject.next({ type: 'backpressure', queued: this.pendingPosts });
    return new Promise<void>((resolve) => (this.drainWaiters ??= []).push(resolve));
  }

  close(reason?: LocalError): Promise<void> {
    this.closing ??= this.shutDown(reason);
    return this.closing;
  }

  // --- ClientContext --------------------------------------------------------------------------------------

  deliver(value: unknown): void {
    if (this.isClosed) return;
    if (Array.isArray(value)) {
      for (const item of value as unknown[]) this.deliverOne(item);
    } else {
      this.deliverOne(value);
    }
  }

  malformed(error: LocalError): void {
    if (!this.isClosed) this.inbox.push({ type: 'malformed', error });
  }

  undeliverable(payload: WirePayload, error: LocalError): void {
    if (!this.isClosed) this.inbox.push({ type: 'undeliverable', payload, error });
  }

  emit(event: HttpClientEvent): void {
    this.eventSubject.next(event);
  }

  lost(error: LocalError): void {
    void this.close(error);
  }

  // --- internals ------------------------------------------------------------------------------------------

  /** Learns from what the session sends: the `initialize` to replay, and cancellations (no answer is owed then). */
  private observe(payload: WirePayload): void {
    for (const message of Array.isArray(payload) ? payload : [payload]) {
      if (!('method' in message)) continue;
      if (message.method === 'initialize' && 'id' in message) this.initialize = message;
      else if (message.method === 'notifications/cancelled') {
        const requestId = message.params?.['requestId'];
        if (isRequestId(requestId)) release(this, requestId, true);
      }
    }
  }

  private deliverOne(message: unknown): void {
    if (typeof message === 'object' && message !== null && !('method' in message) && ('result' in message || 'error' in message)) {
      const id = 'id' in message ? message.id : undefined;
      if (!isRequestId(id)) {
        // The conformance mocks answer `notifications/initialized` with an id-less `{result: {}}`: nothing to route.
        return this.emit({ type: 'ignored', reason: 'a response without an id' });
      }
      if (id === this.initialize?.id && this.protocolVersion === undefined && 'result' in message) {
        const result = message.result;
        if (typeof result === 'object' && result !== null && 'protocolVersion' in result && typeof result.protocolVersion === 'string') {
          this.protocolVersion = result.protocolVersion;
        }
      }
      release(this, id);
    }
    this.inbox.push({ type: 'message', payload: message, envelope: envelopeOf(message) });
  }

  /** Modern requests go their own way at once; everything else follows the legacy rules. */
  private route(frame: OutboundFrame): Promise<void> {
    const payload = frame.payload;
    if (!isModernRequest(payload)) return this.dispatch(payload);
    const flight: ModernFlight = { request: payload, http: undefined, aborted: false };
    this.flights.set(payload.id, flight);
    this.modernIds.add(payload.id);
    if (this.modernIds.size > MAX_REMEMBERED_MODERN_IDS) this.modernIds.delete(this.modernIds.values().next().value as RequestId);
    return postModern(this, flight, frame.mirror);
  }

  private async dispatch(payload: WirePayload): Promise<void> {
    // The usual case costs no gate: nothing exclusive runs and nobody waits to go first.
    if (this.waitingAtGate === 0 && this.ready === undefined && this.renewal === undefined) {
      if (this.isClosed) return undefined;
      return this.start(payload);
    }
    const earlier = this.gate;
    let pass!: () => void;
    this.gate = new Promise<void>((resolve) => (pass = resolve));
    this.waitingAtGate++;
    let sending: Promise<void> | undefined;
    try {
      await earlier;
      while (this.ready !== undefined || this.renewal !== undefined) await (this.ready ?? this.renewal);
      if (this.isClosed) return undefined;
      sending = this.start(payload);
    } finally {
      // After start: an exclusive exchange has set `ready` by now, so the next message waits for it.
      this.waitingAtGate--;
      pass();
    }
    return sending;
  }

  private start(payload: WirePayload): Promise<void> {
    if (this.mode === 'legacy-pending' || (this.mode === 'probing' && isInitializeRequest(payload))) {
      return this.exclusively(this.decideMode(payload));
    }
    // Nothing overtakes `notifications/initialized` (servers may insist on it, as the official SDK's client does).
    const posted = this.mode === 'legacy' && this.legacyEndpoint !== undefined ? postLegacy(this, this.legacyEndpoint, payload) : this.post(payload, false);
    return isInitializedNotification(payload) ? this.exclusively(posted) : posted;
  }

  /** Holds every other message until `work` is done. */
  private exclusively(work: Promise<void>): Promise<void> {
    const ready = work.finally(() => {
      if (this.ready === ready) this.ready = undefined;
    });
    this.ready = ready;
    return ready;
  }

  private async post(payload: WirePayload, retried: boolean): Promise<void> {
    const sentWith = this.sessionId;
    const outcome = await postMessage(this, payload, { probing: false, mayExpire: this.options.renewSession && !retried && this.initialize !== undefined });
    if (outcome.type !== 'expired' || this.isClosed) return;
    // Join a renewal under way; if another message already renewed the session, only the retry is left to do.
    const error = this.renewal !== undefined || sentWith === this.sessionId ? await renewSession(this) : undefined;
    if (this.isClosed) return;
    // The renewal sent its own `notifications/initialized`: that one needs no retry.
    if (error === undefined) return isInitializedNotification(payload) ? undefined : this.post(payload, true);
    this.undeliverable(payload, new LocalError('TransportFailed', `The session ${outcome.sessionId} expired (HTTP 404) and could not be renewed: ${error.message}`, { cause: error }));
  }

  /** The first exchange: Streamable HTTP, or the legacy transport (asked for, or fallen back to). */
  private async decideMode(payload: WirePayload): Promise<void> {
    let refusal = '';
    if (this.mode === 'probing') {
      const outcome = await postMessage(this, payload, { probing: true, mayExpire: false });
      if (outcome.type !== 'refused') {
        if (this.mode === 'probing') this.mode = 'streamable';
        return;
      }
      refusal = `${outcome.status}${outcome.excerpt === '' ? '' : ` (${outcome.excerpt})`}, and the HTTP+SSE fallback failed: `;
      this.mode = 'legacy-pending';
    }
    try {
      this.legacyEndpoint = await openLegacyStream(this);
    } catch (error) {
      if (this.options.mode === 'auto') this.mode = 'streamable';
      const message = error instanceof Error ? error.message : String(error);
      return this.undeliverable(payload, new LocalError('TransportFailed', `The server refused the connection: ${refusal}${message}`, { cause: error }));
    }
    this.mode = 'legacy';
    this.emit({ type: 'legacy-fallback', endpoint: this.legacyEndpoint.href });
    return postLegacy(this, this.legacyEndpoint, payload);
  }

  private posted(): void {
    this.pendingPosts--;
    const waiters = this.drainWaiters;
    if (waiters === undefined || this.pendingPosts >= this.options.maxPendingPosts) return;
    this.drainWaiters = undefined;
    this.statusSubject.next({ type: 'drained' });
    for (const resolve of waiters) resolve();
  }

  private async shutDown(reason: LocalError | undefined): Promise<void> {
    this.isClosed = true;
    for (const cursor of [...this.cursors]) stop(this, cursor);
    for (const flight of [...this.flights.values()]) abortFlight(this, flight);
    this.flights.clear();
    this.engine.abortAll();
    const waiters = this.drainWaiters;
    this.drainWaiters = undefined;
    if (waiters !== undefined) for (const resolve of waiters) resolve();
    this.inbox.complete();
    if (this.mode === 'streamable' && this.sessionId !== undefined) await this.deleteSession();
    this.engine.dispose();
    this.statusSubject.next(reason === undefined ? { type: 'closed' } : { type: 'closed', reason });
    this.statusSubject.complete();
    this.eventSubject.complete();
  }

  /** Ends the session on the server (a 405 answer means the server does not allow it: fine). Bounded in time. */
  private async deleteSession(): Promise<void> {
    let request: HttpRequest | undefined;
    const timer = this.options.clock.setTimeout(() => request?.destroy(), this.options.closeTimeoutMs);
    try {
      const response = await this.engine.exchange(
        { method: 'DELETE', url: this.url, headers: requestHeaders(this, 'delete'), lane: 'control' },
        (started) => (request = started),
      );
      const over = closed(response);
      discardBody(response);
      await over;
    } catch {
      // The server is gone or slow: the session ends with the connection anyway.
    } finally {
      timer.cancel();
    }
  }
}
