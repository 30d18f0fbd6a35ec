/**
 * The Transport a server session sees for one NATS client connection: a modern-era lane or a legacy session.
 * Inbound, the binding feeds it each message with the reply subject of its request as the exchange key.
 * Outbound, it routes every frame the session sends:
 * - an answer goes to the reply subject of its request (by exchange key, or by request id for sessions that
 *   do not keep keys, such as a bridged stdio server);
 * - a notification tied to a request (progress, a log line) goes to that request's reply subject;
 * - anything else (a legacy session's server requests and notifications) goes to the client's session inbox,
 *   with the session subject as reply subject, so the answer reaches whichever process owns the session.
 * An answer larger than the NATS `max_payload` goes by claim-check when the client accepts it, or becomes an
 * internal error naming the sizes: the client never waits for an answer that cannot arrive. What is sent while
 * the NATS connection is down waits for it in the process's outbox (outbox.ts), bounded; a frame given up there
 * comes back to the session as `undeliverable`.
 */
import type { NatsConnection } from '@nats-io/nats-core';
import type { ObjectStore } from '@nats-io/obj';
import { type Observable, Subject } from 'rxjs';
import type { Clock } from '../../../core/clock.ts';
import type { Codec } from '../../../core/codecs/codec.ts';
import { jsonCodec } from '../../../core/codecs/json.ts';
import { ErrorCode } from '../../../core/error-codes.ts';
import { LocalError } from '../../../core/errors.ts';
import { type JsonRpcMessage, type RequestId, errorResponse } from '../../../core/jsonrpc.ts';
import { type ProgressToken, isProgressToken, progressTokenOf, reportedProgressTokenOf } from '../../../core/progress-token.ts';
import type { LegacyRevision } from '../../../core/protocol/versions.ts';
import type { AuthInfo } from '../../../core/auth.ts';
import type { ExchangeKey, FrameOrigin, InboundFrame, OutboundFrame, PortableSessionState, Transport } from '../../../core/transport.ts';
import { depositClaim } from '../claim-check.ts';
import type { EarlyFlush } from '../early-flush.ts';
import type { HeaderBlocks } from '../header-blocks.ts';
import type { Outbox, OutboxSender } from './outbox.ts';
import { type RequestStats, errorMessageOf } from '../announce/request-stats.ts';
import { MSGPACK_CONTENT_TYPE, NatsHeader, newHeaders, SealedHeaders } from '../headers.ts';
import { fitsPayload, maxPayloadOf } from '../payload-limit.ts';
import { type FrameEnvelope, envelopeOf } from '../../../core/frame-envelope.ts';

/** One request in flight: where its answer goes and how the client wants it. */
export interface OpenExchange {
  readonly reply: string;
  readonly requestId: RequestId;
  readonly codec: Codec;
  /** The client fetches oversized answers from the object store. */
  readonly claim: boolean;
  readonly connection: ServedConnection;
  /** The request's progress token, if it asked for progress. */
  readonly progressToken: ProgressToken | undefined;
  /** When the request arrived (its processing time, in the services protocol's stats). */
  readonly received: number;
  /** When something was last sent on it (keepalives fill silences). */
  lastSent: number;
  /** A keepalive probe is out. */
  probing: boolean;
}

/** What every served connection of a process shares. */
export interface ServingHost {
  readonly connection: NatsConnection;
  readonly processId: string;
  readonly now: () => number;
  /** Timers of the binding (keepalives, the idle sweep, owner re-checks). */
  readonly clock: Clock;
  /** In-flight exchanges of the whole process, for keepalives. */
  readonly exchanges: Map<string, OpenExchange>;
  /** The claim-check store, when the server enabled it. */
  readonly claims: { readonly bucket: string; readonly store: Promise<ObjectStore> } | undefined;
  /** The header blocks read so far, shared by the requests that carry the same ones. */
  readonly headers: HeaderBlocks;
  /** Writes what the connection buffered every few messages within a turn (see early-flush.ts). */
  readonly flush: EarlyFlush;
  /** Where what is published while the connection is down waits for it (outbox.ts). */
  readonly outbox: Outbox;
  /** What this process answered, for the services protocol's `$SRV.STATS` (../announce/). */
  readonly stats: RequestStats;
}

export interface ServedConnectionOptions {
  /** Legacy sessions: the client's session inbox, for frames that belong to no request. */
  readonly clientInbox?: string;
  /** Legacy sessions: the reply subject of server requests (the session subject). */
  readonly sessionSubject?: string;
  /** Legacy sessions: the codec of frames sent to the client's session inbox. */
  readonly inboxCodec?: Codec;
  /**
   * Legacy `initialize`: the session answered the handshake (with the revision, or `undefined`: refused). Runs
   * before the answer goes out (it records the session) and returns extra headers for the answer.
   */
  readonly onNegotiated?: (revision: LegacyRevision | undefined) => Promise<Record<string, string>>;
  /** The last exchange finished (one-shot lanes close then). */
  readonly onIdle?: () => void;
  readonly onClosed: () => void;
  /**
   * Legacy sessions: the session's portable state changed; settles (never rejects) once it is in the session's
   * record, or could not be put there.
   */
  readonly onPortableState?: (state: PortableSessionState) => Promise<void>;
  /** The caller the connection belongs to (a verified identity assertion), if any: lanes and sessions are bound to it. */
  readonly auth?: AuthInfo | undefined;
}

const EMPTY_HEADERS: Readonly<Record<string, string>> = Object.freeze({});
/** The headers of a msgpack frame that has none of its own. */
const MSGPACK_HEADERS = new SealedHeaders({ [NatsHeader.contentType]: MSGPACK_CONTENT_TYPE });

function isAnswer(message: JsonRpcMessage): message is JsonRpcMessage & { readonly id: RequestId } {
  return !('method' in message) && 'id' in message;
}

export class ServedConnection implements Transport, OutboxSender {
  readonly kind = 'nats';
  /** The portable state write under way, if any: frames wait for it (see `send`). */
  private stateWrite: Promise<void> | undefined;
  readonly incoming$: Observable<InboundFrame>;
  /** Reply subject of each request in flight on this connection, by request id. */
  private readonly byId = new Map<RequestId, OpenExchange>();
  /**
   * The same, by progress token: progress from a session that does not keep exchange keys (a bridged stdio
   * server) still travels with its request, in order with its answer.
   */
  private readonly byProgressToken = new Map<ProgressToken, OpenExchange>();
  private readonly inbound = new Subject<InboundFrame>();
  /** The id of the `initialize` this connection carries, until it is answered. */
  private initializeId: RequestId | undefined;
  /** Headers of the initialize answer, once the session announced how the handshake went. */
  private initializeHeaders: Promise<Record<string, string>> | undefined;
  private closed = false;
  /** Set by a graceful close: requests still open when the connection closes are answered, not dropped. */
  private answerOnClose = false;
  /** When it last carried anything either way (idle expiry). */
  lastActive: number;
  /** Who the connection belongs to (fixed: a message of another caller is refused before it gets here). */
  readonly principal: string | undefined;
  /** The caller's identity as the latest of its messages vouched for it (scopes and expiry may move on). */
  auth: AuthInfo | undefined;

  constructor(private readonly host: ServingHost, private readonly options: ServedConnectionOptions) {
    this.incoming$ = this.inbound.asObservable();
    this.lastActive = host.now();
    this.auth = options.auth;
    this.principal = options.auth?.principal;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  get inFlight(): number {
    return this.byId.size;
  }

  /** A frame the outbox gave up (the NATS connection stayed down): the session hears it was not sent, and why. */
  undelivered(message: JsonRpcMessage, error: LocalError): void {
    if (!this.closed) this.inbound.next({ type: 'undeliverable', payload: message, error });
  }

  /** Registers a request's reply subject and hands the request to the session. */
  deliverRequest(message: JsonRpcMessage & { readonly id: RequestId; readonly method: string; readonly params?: unknown }, reply: string, codec: Codec, claim: boolean, mirror?: (name: string) => string | undefined, auth?: AuthInfo, envelope: FrameEnvelope = envelopeOf(message)): void {
    if (this.closed) return;
    const origin = this.originOf(auth);
    const asked = progressTokenOf(message.params);
    const token = isProgressToken(asked) ? asked : undefined;
    const now = this.host.now();
    // Every exchange has the same fields (one shape for V8), and no literal spreads one object into another: on
    // the per-request path those copies cost more than the rest of this method.
    const open: OpenExchange = { reply, requestId: message.id, codec, claim, connection: this, progressToken: token, received: now, lastSent: now, probing: false };
    // A duplicate id is the session's to refuse; its answer still needs a way back.
    if (!this.byId.has(message.id)) this.byId.set(message.id, open);
    if (token !== undefined && !this.byProgressToken.has(token)) this.byProgressToken.set(token, open);
    this.host.exchanges.set(reply, open);
    if (message.method === 'initialize' && this.options.onNegotiated !== undefined) this.initializeId = message.id;
    this.lastActive = now;
    const frame: { type: 'message'; payload: unknown; envelope: FrameEnvelope; exchange: string; mirror?: (name: string) => string | undefined; origin?: FrameOrigin } = { type: 'message', payload: message, envelope, exchange: reply };
    if (mirror !== undefined) frame.mirror = mirror;
    if (origin !== undefined) frame.origin = origin;
    this.inbound.next(frame);
  }

  /** A notification or an answer to a server request. */
  deliver(payload: unknown, auth?: AuthInfo, envelope: FrameEnvelope = envelopeOf(payload)): void {
    if (this.closed) return;
    this.lastActive = this.host.now();
    const origin = this.originOf(auth);
    this.inbound.next(origin === undefined ? { type: 'message', payload, envelope } : { type: 'message', payload, envelope, origin });
    // A cancelled request gets no answer, and its client stops listening for one: its exchange ends here, or
    // keepalives would probe it (and it would count as in flight, keeping the session from idling out) forever.
    const cancelled = cancelledRequestOf(payload);
    const open = cancelled === undefined ? undefined : this.byId.get(cancelled);
    if (open !== undefined) this.finish(open);
  }

  /** The origin of a message its caller's identity vouched for (the binding checked it is this connection's caller). */
  private originOf(auth: AuthInfo | undefined): FrameOrigin | undefined {
    if (auth === undefined) return undefined;
    this.auth = auth;
    return { principal: auth.principal, auth };
  }

  /** Bytes that did not decode, on the exchange of `reply` when they came as a request. */
  deliverMalformed(error: LocalError, reply: string | undefined): void {
    if (this.closed) return;
    this.inbound.next(reply === undefined ? { type: 'malformed', error } : { type: 'malformed', error, exchange: reply });
  }

  /** The client's inbox for `reply` is gone: no answer can reach it, so the request is cancelled (both eras). */
  exchangeGone(reply: string): void {
    const open = this.host.exchanges.get(reply);
    if (open === undefined || open.connection !== this) return;
    this.finish(open);
    this.inbound.next({ type: 'exchange-closed', exchange: reply, cancels: true });
  }

  /** The session answered this connection's `initialize`: the session is recorded before the answer goes out. */
  negotiated(revision: LegacyRevision | undefined): void {
    if (this.initializeId === undefined || this.options.onNegotiated === undefined) return;
    this.initializeHeaders ??= this.options.onNegotiated(revision);
  }

  portableStateChanged(state: PortableSessionState): void {
    const write = this.options.onPortableState?.(state);
    if (write === undefined) return;
    this.stateWrite = write;
    void write.then(() => {
      if (this.stateWrite === write) this.stateWrite = undefined;
    });
  }

  send(frame: OutboundFrame): void | Promise<void> {
    // The answer to the request that changed the state (and what follows it) leaves once the record holds the
    // state: a client that heard "subscribed" keeps its subscription even if this process dies the next moment.
    const recording = this.stateWrite;
    if (recording !== undefined) return recording.then(() => this.send(frame));
    if (this.closed) return Promise.reject(new LocalError('ConnectionClosed', 'The NATS connection of this session is closed'));
    const payload = frame.payload;
    if (Array.isArray(payload)) {
      let pending: Promise<void>[] | undefined;
      for (const message of payload as readonly JsonRpcMessage[]) {
        const sent = this.sendOne(message, frame.exchange);
        if (sent !== undefined) (pending ??= []).push(sent);
      }
      return pending === undefined ? undefined : Promise.all(pending).then(() => undefined);
    }
    return this.sendOne(payload as JsonRpcMessage, frame.exchange);
  }

  /**
   * The server is closing this connection gracefully: a session answers what it ran before it closes, and
   * whatever is still open then (a bridged process that went away) gets one answer when the connection closes,
   * instead of leaving the client to its silence limit. (A client that ended its session itself waits for
   * nothing: its connection closes without answers.)
   */
  answerOpenRequestsOnClose(): void {
    this.answerOnClose = true;
  }

  async close(reason?: LocalError): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const open of this.byId.values()) {
      if (this.host.exchanges.get(open.reply) === open) this.host.exchanges.delete(open.reply);
      if (this.answerOnClose) {
        const answer = errorResponse(open.requestId, {
          code: ErrorCode.InternalError,
          message: `The server closed the connection before answering request ${JSON.stringify(open.requestId)}${reason === undefined ? '' : `: ${reason.message}`}`,
        });
        this.answered(open, answer, this.host.now());
        this.publishBody(open.reply, open.codec.encode(answer), open.codec, EMPTY_HEADERS, undefined, answer);
      }
    }
    this.byId.clear();
    this.inbound.complete();
    this.options.onClosed();
  }

  private sendOne(message: JsonRpcMessage, exchange: ExchangeKey | undefined): void | Promise<void> {
    this.lastActive = this.host.now();
    const answer = isAnswer(message);
    const open = answer
      ? this.byId.get(message.id)
      : typeof exchange === 'string'
        ? this.host.exchanges.get(exchange)
        : 'method' in message && message.method === 'notifications/progress'
          ? this.byProgressToken.get(reportedProgressTokenOf(message.params) as ProgressToken)
          : undefined;
    if (answer) {
      if (open === undefined) return undefined;
      if (message.id === this.initializeId && this.options.onNegotiated !== undefined) {
        // An answer the session did not announce (an initialize it refused for its envelope) is a refusal too.
        const headers = this.initializeHeaders ?? this.options.onNegotiated(undefined);
        this.initializeId = undefined;
        this.initializeHeaders = undefined;
        // The exchange stays open, keepalives and all, until the session's record is written: through a JetStream
        // leader election that takes seconds, longer than a client waits in silence.
        return headers.then((extra) => {
          this.answered(open, message, this.host.now());
          this.finish(open);
          return this.publishAnswer(open, message, extra);
        });
      }
      this.answered(open, message, this.lastActive);
      this.finish(open);
      return this.publishAnswer(open, message, EMPTY_HEADERS);
    }
    if (open !== undefined && open.connection === this) {
      open.lastSent = this.host.now();
      // An error without an id (the refusal of a request whose id it could not use, such as a duplicate) is
      // still the last word on its exchange: the exchange ends, or its keepalives would go on forever.
      if (!('method' in message)) {
        this.answered(open, message, this.lastActive);
        this.finish(open);
      }
      return this.publish(open.reply, message, open.codec, EMPTY_HEADERS, undefined);
    }
    if (typeof exchange === 'string' && this.options.clientInbox === undefined) {
      // A related notification whose request already ended: its inbox may still listen (modern lanes).
      return this.publish(exchange, message, jsonCodec, EMPTY_HEADERS, undefined);
    }
    const inbox = this.options.clientInbox;
    if (inbox === undefined) return undefined;
    return this.publish(inbox, message, this.options.inboxCodec ?? jsonCodec, EMPTY_HEADERS, this.options.sessionSubject);
  }

  /** Counts the answer of an exchange, sent `now`, in the process's stats. */
  private answered(open: OpenExchange, message: JsonRpcMessage, now: number): void {
    this.host.stats.answered(open.received, now, errorMessageOf(message));
  }

  private finish(open: OpenExchange): void {
    if (this.byId.get(open.requestId) === open) this.byId.delete(open.requestId);
    if (open.progressToken !== undefined && this.byProgressToken.get(open.progressToken) === open) this.byProgressToken.delete(open.progressToken);
    if (this.host.exchanges.get(open.reply) === open) this.host.exchanges.delete(open.reply);
    if (this.byId.size === 0) this.options.onIdle?.();
  }

  private publishAnswer(open: OpenExchange, message: JsonRpcMessage & { readonly id: RequestId }, headers: Readonly<Record<string, string>>): void | Promise<void> {
    const body = open.codec.encode(message);
    if (fitsPayload(this.host.connection, body.byteLength)) return this.publishBody(open.reply, body, open.codec, headers, undefined, message);
    const claims = this.host.claims;
    if (open.claim && claims !== undefined) {
      return claims.store
        .then((store) => depositClaim(store, claims.bucket, body))
        .then((claim) => this.publishBody(open.reply, new Uint8Array(0), open.codec, { ...headers, ...claim }, undefined, message))
        .catch((error: unknown) => this.publishTooLarge(open, message.id, body.byteLength, `the object store refused it: ${String(error)}`));
    }
    return this.publishTooLarge(open, message.id, body.byteLength, open.claim ? 'this server has no claim-check store' : 'the client did not accept claim-checks');
  }

  private publishTooLarge(open: OpenExchange, id: RequestId, bytes: number, why: string): void {
    const refusal = errorResponse(id, {
      code: ErrorCode.InternalError,
      message: `The answer is ${bytes} bytes, more than the NATS max_payload of ${maxPayloadOf(this.host.connection)} bytes allows, and ${why}`,
      data: { bytes, maxPayload: maxPayloadOf(this.host.connection) },
    });
    this.publishBody(open.reply, open.codec.encode(refusal), open.codec, EMPTY_HEADERS, undefined, refusal);
  }

  private publish(subject: string, message: JsonRpcMessage, codec: Codec, headers: Readonly<Record<string, string>>, reply: string | undefined): void {
    const body = codec.encode(message);
    if (!fitsPayload(this.host.connection, body.byteLength)) {
      const error = new LocalError('FrameTooLarge', `A ${body.byteLength}-byte message does not fit the NATS max_payload of ${maxPayloadOf(this.host.connection)} bytes`);
      // A server request that cannot go fails at once; a notification is dropped (the session notes it).
      queueMicrotask(() => this.inbound.next({ type: 'undeliverable', payload: message, error }));
      return;
    }
    this.publishBody(subject, body, codec, headers, reply, message);
  }

  private publishBody(subject: string, body: Uint8Array, codec: Codec, headers: Readonly<Record<string, string>>, reply: string | undefined, message: JsonRpcMessage): void {
    // Most frames carry no headers of their own: a JSON one goes without any, a msgpack one with the one shared,
    // already encoded Content-Type set; only the rare others (a claim, the initialize answer) build theirs.
    const own = headers !== EMPTY_HEADERS && hasAny(headers);
    const sent = codec === jsonCodec
      ? (own ? newHeaders(headers) : undefined)
      : (own ? newHeaders({ ...headers, [NatsHeader.contentType]: MSGPACK_CONTENT_TYPE }) : MSGPACK_HEADERS);
    const options = sent === undefined ? (reply === undefined ? undefined : { reply }) : (reply === undefined ? { headers: sent } : { headers: sent, reply });
    // nats.js would drop it while reconnecting: it waits for the connection instead (bounded; outbox.ts).
    if (this.host.outbox.holding) return this.host.outbox.hold(subject, body, options, message, this);
    try {
      this.host.connection.publish(subject, body, options);
      this.host.flush.published();
    } catch (error) {
      // The NATS connection itself is closed: this connection is over.
      void this.close(new LocalError('ConnectionClosed', 'The NATS connection closed', { cause: error }));
    }
  }
}

function hasAny(record: Readonly<Record<string, string>>): boolean {
  for (const _ in record) return true;
  return false;
}

/** The id a `notifications/cancelled` names, if `payload` is one. */
function cancelledRequestOf(payload: unknown): RequestId | undefined {
  if (typeof payload !== 'object' || payload === null || (payload as { method?: unknown }).method !== 'notifications/cancelled') return undefined;
  const params = (payload as { params?: unknown }).params;
  const id = typeof params === 'object' && params !== null ? (params as { requestId?: unknown }).requestId : undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}
