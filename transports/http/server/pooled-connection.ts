/**
 * One long-lived modern-era (2026-07-28) server connection that serves many POSTs of one caller, as a NATS lane
 * does (transports/nats/server/lanes.ts): each POST is an exchange of its own (a fresh key), and whatever the
 * session sends on that exchange (related notifications, the answer) goes to that POST's responder. The pool
 * (modern-pool.ts) places a POST only where its JSON-RPC id is not in flight, since ids are unique per client
 * only; the id stays reserved until the POST ends (answered, or its client gone).
 */
import { type Observable, Subject } from 'rxjs';
import type { AuthInfo } from '../../../core/auth.ts';
import type { Clock } from '../../../core/clock.ts';
import { LocalError } from '../../../core/errors.ts';
import type { JsonObject, RequestId } from '../../../core/jsonrpc.ts';
import type { ExchangeKey, FrameOrigin, InboundFrame, OutboundFrame, Transport } from '../../../core/transport.ts';
import { kindOf } from './exchanges.ts';
import type { ModernResponder } from './modern-responder.ts';
import type { FrameEnvelope } from '../../../core/frame-envelope.ts';

/** A POST in flight on the connection. */
interface OpenPost {
  readonly id: RequestId;
  readonly responder: ModernResponder;
}

const NO_EXCHANGE = new LocalError('TransportFailed', 'A frame on a pooled 2026-07-28 HTTP connection named no exchange: no POST can carry it');
const NO_REQUESTS = new LocalError('TransportFailed', 'A 2026-07-28 server cannot send requests to the client');

export class PooledConnection implements Transport {
  readonly kind = 'http';
  readonly incoming$: Observable<InboundFrame>;
  /** Who the connection belongs to: the pool never places another caller's POST here. */
  readonly principal: string | undefined;
  /** The caller's identity as its latest POST vouched for it (each request still carries its own to its handler). */
  auth: AuthInfo | undefined;
  /** When a POST last started or ended here (the pool's idle sweep). */
  lastActive: number;
  private readonly inbound = new Subject<InboundFrame>();
  private readonly byExchange = new Map<ExchangeKey, OpenPost>();
  /** The exchange of each id in flight (a listen's too, for as long as it listens). */
  private readonly ids = new Map<RequestId, ExchangeKey>();
  private closed = false;
  private closedListeners: Array<() => void> | undefined;
  /** Told when the last POST in flight here ended (the pool lets surplus idle connections go). */
  onIdle: ((connection: PooledConnection) => void) | undefined;

  constructor(
    origin: FrameOrigin | undefined,
    private readonly clock: Clock,
    /** One-shot: the connection closes once its one POST ended (the pool was full). */
    private readonly oneShot: boolean,
  ) {
    this.incoming$ = this.inbound.asObservable();
    this.principal = origin?.principal;
    this.auth = origin?.auth;
    this.lastActive = clock.now();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** POSTs in flight. */
  get inFlight(): number {
    return this.byExchange.size;
  }

  /** Whether a POST with this id may be placed here (none with the same id runs). */
  takes(id: RequestId): boolean {
    return !this.closed && !this.ids.has(id);
  }

  /** Hands one POST's request to the session, on exchange `exchange`. */
  serve(
    exchange: ExchangeKey,
    payload: JsonObject & { readonly id: RequestId },
    envelope: FrameEnvelope,
    responder: ModernResponder,
    origin: FrameOrigin | undefined,
    mirror: (lowercaseName: string) => string | undefined,
    paramHeaders: Readonly<Record<string, string>> | undefined,
  ): void {
    this.byExchange.set(exchange, { id: payload.id, responder });
    this.ids.set(payload.id, exchange);
    this.lastActive = this.clock.now();
    if (origin?.auth !== undefined) this.auth = origin.auth;
    this.inbound.next({
      type: 'message',
      payload,
      envelope,
      exchange,
      mirror,
      ...(paramHeaders === undefined ? {} : { paramHeaders }),
      ...(origin === undefined ? {} : { origin }),
    });
  }

  /** The POST's client left before its answer: in this era that cancels the request on its exchange. */
  left(exchange: ExchangeKey): void {
    const open = this.byExchange.get(exchange);
    if (open === undefined || open.responder.answered) return;
    // Read before `gone`: a stream cut off because its client stopped reading says so.
    const reason = open.responder.cutReason;
    open.responder.gone();
    // Reported before the id is released: the session forgets the cancelled request before another POST with
    // the same id can arrive here.
    if (!this.closed) this.inbound.next(reason === undefined ? { type: 'exchange-closed', exchange, cancels: true } : { type: 'exchange-closed', exchange, cancels: true, reason });
    this.release(exchange, open);
  }

  send(frame: OutboundFrame): void | Promise<void> {
    if (this.closed) return Promise.reject(new LocalError('ConnectionClosed', 'The pooled HTTP connection is closed'));
    const payload = frame.payload;
    const kind = kindOf(payload);
    if (kind === 'request') {
      // A modern server never sends requests; should one be attempted, it fails at once.
      queueMicrotask(() => this.inbound.next({ type: 'undeliverable', payload, error: NO_REQUESTS }));
      return undefined;
    }
    const exchange = frame.exchange;
    const open = exchange === undefined ? undefined : this.byExchange.get(exchange);
    if (open === undefined) {
      // Without an exchange nothing can carry the frame: the session hears why and notes the drop. A frame for
      // an exchange that ended (a notification after the answer, or after the client left) has nowhere to go.
      if (exchange === undefined) queueMicrotask(() => this.inbound.next({ type: 'undeliverable', payload, error: NO_EXCHANGE }));
      return undefined;
    }
    const data = JSON.stringify(payload);
    if (kind === 'notification') return open.responder.notify(data);
    open.responder.answer(payload, data);
    this.release(exchange as ExchangeKey, open);
    return undefined;
  }

  /** Calls `listener` once this connection has closed (at once if it has): the endpoint's accepted connections, the pool. */
  whenClosed(listener: () => void): void {
    if (this.closed) listener();
    else (this.closedListeners ??= []).push(listener);
  }

  close(_reason?: LocalError): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    // POSTs still open get their end: a started stream ends, an unanswered body is refused with 503.
    for (const open of this.byExchange.values()) open.responder.abandon();
    this.byExchange.clear();
    this.ids.clear();
    this.inbound.complete();
    const listeners = this.closedListeners;
    this.closedListeners = undefined;
    if (listeners !== undefined) for (const listener of listeners) listener();
    return Promise.resolve();
  }

  private release(exchange: ExchangeKey, open: OpenPost): void {
    this.byExchange.delete(exchange);
    if (this.ids.get(open.id) === exchange) this.ids.delete(open.id);
    this.lastActive = this.clock.now();
    if (this.byExchange.size !== 0) return;
    // The session sees its transport complete once the frame it is sending now is out.
    if (this.oneShot) queueMicrotask(() => void this.close());
    else if (this.onIdle !== undefined) queueMicrotask(() => this.onIdle?.(this));
  }
}
