/**
 * The client side of the NATS binding: one Transport per client connection to a named MCP server.
 *
 * - Every request gets its own reply subject under this connection's inbox; its notifications and its one
 *   answer arrive there. Keepalive frames arrive there too and are answered, so the server learns the
 *   client still listens.
 * - Before a legacy session exists, requests go to the call subject of their method (modern era, and
 *   `initialize`); the `initialize` answer names the session, and from then on everything goes to the session
 *   subject. The session's server requests and notifications arrive on the session inbox. What the client sends
 *   while its `initialize` is in flight waits (bounded) and goes, in order, on the session subject once the
 *   answer names it; should the `initialize` fail, the requests that waited fail with its reason.
 * - A brief NATS reconnection loses nothing sent meanwhile: what the client sends while its connection is down
 *   waits (bounded in count and by `reconnectWaitMs`) and goes once the connection is back; a request that waited
 *   too long fails saying it was not sent.
 * - Nothing hangs: a request whose subject has no responders fails at once (or, for a legacy session whose
 *   process died, goes to the adopt subject so another process takes the session over); a request that hears
 *   nothing at all (answer, notification or keepalive) for `silenceMs` fails with a clear error; a request too
 *   large for the NATS `max_payload` fails before it is sent.
 */
import { type Msg, type MsgHdrs, type NatsConnection, type Subscription, headers as natsHeaders } from '@nats-io/nats-core';
import { type Observable, Subject } from 'rxjs';
import { type Clock, type TimerHandle, systemClock } from '../../../core/clock.ts';
import type { Codec } from '../../../core/codecs/codec.ts';
import { jsonCodec } from '../../../core/codecs/json.ts';
import { randomBase64url, randomBytes } from '../../../core/crypto/random.ts';
import { LocalError } from '../../../core/errors.ts';
import { type JsonRpcMessage, type RequestId, classify } from '../../../core/jsonrpc.ts';
import { defaultLimits } from '../../../core/limits.ts';
import type { InboundFrame, OutboundFrame, Transport } from '../../../core/transport.ts';
import { codecOfMessage } from '../body-codec.ts';
import { type EarlyFlush, earlyFlushOf } from '../early-flush.ts';
import { fitsPayload, maxPayloadOf } from '../payload-limit.ts';
import { msgpackCodecIfLoaded, msgpackUnavailableReason } from '../msgpack-codec.ts';
import { type ConnectionState, type PermissionRefusal, connectionState } from '../connection-state.ts';
import { MSGPACK_CONTENT_TYPE, NatsHeader, ReceivedHeaders, replyOf, traceContextOf } from '../headers.ts';
import { ReconnectWait } from '../reconnect-wait.ts';
import { ReplyTokens } from './reply-token.ts';
import { RequestHeaders } from './request-headers.ts';
import { SessionNotices } from './session-notices.ts';
import type { ClaimRedeemer, NatsClientConnectOptions, NatsClientTransportOptions } from './transport-options.ts';
import { DEFAULT_PREFIX, type ServerSubjects, isPlainSubject, serverSubjects } from '../subjects.ts';
import { envelopeOf } from '../../../core/frame-envelope.ts';

interface Pending {
  readonly id: RequestId;
  readonly method: string;
  readonly message: JsonRpcMessage;
  readonly subject: string;
  readonly body: Uint8Array;
  readonly headers: MsgHdrs;
  heardAt: number;
  adoptions: number;
  /** The client cancelled it (legacy session): no answer will come, but the server's last words may still. */
  cancelled?: boolean;
}

const MAX_ADOPTIONS = 4;
/** Frames that may wait for the `initialize` answer (the runtime's outbound queue bound). */
const MAX_HELD = defaultLimits.maxOutboundQueue;
const ADOPT_BACKOFF_MS = 50;
const DEFAULT_RECONNECT_WAIT_MS = 2000;
const EMPTY = new Uint8Array(0);

/** A NATS client transport: its session (once one exists) beside the transport itself. */
export type NatsClientTransport = Transport & { readonly sessionId: string | undefined };

/**
 * The transport over `options.connection` (the caller keeps owning that connection). `redeem` fetches claimed
 * answers (rxmcp/nats gives the object store's; rxmcp/nats/client, made for browsers, has none).
 */
export function makeNatsClientTransport(options: NatsClientTransportOptions, redeem: ClaimRedeemer | undefined): NatsClientTransport {
  refuseClaimCheckWithout(options, redeem);
  return new NatsClientTransportImpl(options, options.connection, redeem, false);
}

/**
 * Connects with `options.connect`, then the transport over that connection, which the transport owns: it drains
 * the connection when it closes, and a transport that cannot be made closes it at once.
 */
export async function connectNatsClient(options: NatsClientConnectOptions, redeem: ClaimRedeemer | undefined): Promise<NatsClientTransport> {
  refuseClaimCheckWithout(options, redeem);
  const { connect, ...rest } = options;
  const connection = await connect();
  try {
    return new NatsClientTransportImpl({ ...rest, connection }, connection, redeem, true);
  } catch (error) {
    void connection.close().catch(() => undefined);
    throw error;
  }
}

/** Refused before any connection is made: the browser entry has no object store to redeem claims from. */
function refuseClaimCheckWithout(options: { readonly claimCheck?: boolean | undefined }, redeem: ClaimRedeemer | undefined): void {
  if (options.claimCheck === true && redeem === undefined) {
    throw new TypeError('rxmcp/nats/client: claimCheck needs the JetStream object store, which rxmcp/nats/client leaves out: use rxmcp/nats');
  }
}

class NatsClientTransportImpl implements Transport {
  readonly kind = 'nats';
  readonly remote: string;
  readonly incoming$: Observable<InboundFrame>;
  sessionId: string | undefined;
  private readonly connection: NatsConnection;
  private readonly subjects: ServerSubjects;
  private readonly inbox: string;
  private readonly clientInbox: string;
  private readonly lane = randomBase64url(12);
  /** Requests waiting for their answer, by the token of their reply subject (a number: see reply-token.ts). */
  private readonly pending = new Map<number, Pending>();
  /** Reply token of each pending request, by request id (cancellation). */
  private readonly tokenById = new Map<RequestId, number>();
  /** Reply subjects of the server's own requests, by id. */
  private readonly serverRequests = new Map<RequestId, string>();
  /** A legacy session's notifications sent a moment ago, until NATS would have said nobody took them. */
  private readonly notices: SessionNotices;
  private readonly inbound = new Subject<InboundFrame>();
  private readonly subscriptions: Subscription[] = [];
  private readonly silenceMs: number;
  private readonly maxMessageBytes: number;
  private readonly clock: Clock;
  private readonly timer: TimerHandle;
  private sendCodec: Codec = jsonCodec;
  private readonly requestHeaders = new RequestHeaders();
  private readonly state: ConnectionState;
  /** Writes what the connection buffered every few messages within a turn (see early-flush.ts). */
  private readonly flush: EarlyFlush;
  /** Hands out and reads the tokens of the requests' reply subjects (`<inbox>.r.<token>`). */
  private readonly replies: ReplyTokens;
  /** The session subject, made once per session rather than per message. */
  private sessionSubjectOf: { readonly sessionId: string; readonly subject: string } | undefined;
  /** The `initialize` request in flight before a session exists, and the frames that wait for its answer. */
  private initializing: RequestId | undefined;
  private held: Array<{ readonly message: JsonRpcMessage; readonly mirror: Readonly<Record<string, string>> | undefined }> = [];
  private closed = false;
  private readonly stopRefusals: () => void;
  private readonly stopReconnects: () => void;
  /** Frames sent while the NATS connection was down, until it is back. */
  private readonly waitingForNats: ReconnectWait<{ readonly message: JsonRpcMessage; readonly mirror: Readonly<Record<string, string>> | undefined }>;

  constructor(
    private readonly options: NatsClientTransportOptions,
    connection: NatsConnection,
    private readonly redeem: ClaimRedeemer | undefined,
    /** The transport connected itself (a connect function): its connection is drained when it closes. */
    private readonly ownsConnection: boolean,
  ) {
    this.connection = connection;
    this.flush = earlyFlushOf(this.connection);
    this.subjects = serverSubjects(options.prefix ?? DEFAULT_PREFIX, options.name);
    this.remote = `nats:${this.subjects.base}`;
    this.silenceMs = options.silenceMs ?? 30_000;
    this.clock = options.clock ?? systemClock;
    this.maxMessageBytes = options.maxMessageBytes ?? defaultLimits.maxMessageBytes;
    const noMsgpack = options.encoding === 'msgpack' ? msgpackUnavailableReason() : undefined;
    if (noMsgpack !== undefined) throw new TypeError(`createNatsClientTransport: encoding 'msgpack' cannot be used: ${noMsgpack}`);
    const prefix = options.inboxPrefix ?? '_INBOX';
    if (!isPlainSubject(prefix)) throw new TypeError(`inbox prefix ${JSON.stringify(prefix)} is not a plain NATS subject`);
    this.inbox = `${prefix}.${Array.from(randomBytes(12), (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
    this.clientInbox = options.clientInbox ?? `${this.inbox}.s`;
    if (!isPlainSubject(this.clientInbox)) throw new TypeError(`client inbox ${JSON.stringify(this.clientInbox)} is not a plain NATS subject`);
    this.sessionId = options.resumeSession;
    this.state = connectionState(this.connection);
    this.stopRefusals = this.state.onRefused((refusal) => this.refused(refusal));
    this.waitingForNats = new ReconnectWait(this.clock, Math.max(0, options.reconnectWaitMs ?? DEFAULT_RECONNECT_WAIT_MS), MAX_HELD, ({ message }) => this.waitedTooLong(message));
    this.stopReconnects = this.state.on((event) => {
      if (event === 'reconnect') this.sendWaiting();
    });
    this.incoming$ = this.inbound.asObservable();
    this.replies = new ReplyTokens(`${this.inbox}.r.`);
    this.notices = new SessionNotices(`${this.inbox}.n.`);
    this.subscriptions.push(
      this.connection.subscribe(`${this.inbox}.>`, {
        callback: (error, msg) => {
          if (error !== null) return this.refusedInbox(error);
          // Answers first, read from the subject's bytes; the inbox's other subjects are rare.
          const token = this.replies.of(msg);
          if (token >= 0) return this.onReply(token, msg);
          const notice = this.notices.tokenOf(msg);
          if (notice >= 0) this.onNotice(notice, msg);
          else if (msg.subject === this.clientInbox) this.onSessionInbox(msg);
        },
      }),
    );
    if (options.clientInbox !== undefined) {
      this.subscriptions.push(
        this.connection.subscribe(this.clientInbox, { queue: 'mcp-client', callback: (error, msg) => (error === null ? this.onSessionInbox(msg) : this.refusedInbox(error)) }),
      );
    }
    this.timer = this.clock.setInterval(() => this.checkSilence(), Math.max(10, Math.min(this.silenceMs / 4, 1000)));
    this.connection.closed().then(() => this.close(new LocalError('ConnectionClosed', 'The NATS connection closed')), () => undefined);
  }

  send(frame: OutboundFrame): void | Promise<void> {
    if (this.closed) return Promise.reject(new LocalError('ConnectionClosed', 'The NATS transport is closed'));
    // One JSON-RPC message per NATS message: a batch goes as its messages.
    const messages = Array.isArray(frame.payload) ? (frame.payload as readonly JsonRpcMessage[]) : [frame.payload as JsonRpcMessage];
    try {
      for (const message of messages) this.sendOne(message, frame.mirror);
    } catch (error) {
      return Promise.reject(error);
    }
    return undefined;
  }

  async close(_reason?: LocalError): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.timer.cancel();
    this.stopRefusals();
    this.stopReconnects();
    this.waitingForNats.clear();
    const sessionId = this.sessionId;
    if (sessionId !== undefined && this.options.keepSessionOnClose !== true && !this.connection.isClosed()) {
      const frame = this.stamped(natsHeaders());
      frame.set(NatsHeader.frame, 'close');
      frame.set(NatsHeader.sessionId, sessionId);
      try {
        this.connection.publish(this.subjects.session(sessionId), EMPTY, { headers: frame });
      } catch {
        // The NATS connection is going away too; the server's idle expiry ends the session.
      }
    }
    if (sessionId === undefined && !this.connection.isClosed()) {
      // Modern era: the processes holding this client's lane may let it go now.
      const frame = this.stamped(natsHeaders());
      frame.set(NatsHeader.frame, 'close');
      frame.set(NatsHeader.lane, this.lane);
      try {
        this.connection.publish(this.subjects.cancel, EMPTY, { headers: frame });
      } catch {
        // Idle lanes expire anyway.
      }
    }
    for (const subscription of this.subscriptions) subscription.unsubscribe();
    this.notices.clear();
    this.initializing = undefined;
    this.held = [];
    this.pending.clear();
    this.tokenById.clear();
    this.inbound.complete();
    if (this.ownsConnection && !this.connection.isClosed()) await this.connection.drain().catch(() => this.connection.close());
  }

  private sendOne(message: JsonRpcMessage, mirror: Readonly<Record<string, string>> | undefined): void {
    if (this.initializing !== undefined) return this.hold(message, mirror);
    if (this.state.down && this.waitingForNats.waitMs > 0) return this.waitForNats(message, mirror);
    const classified = classify(message);
    if (classified.kind === 'request') return this.sendRequest(classified.message, mirror);
    if (classified.kind === 'notification') return this.sendNotification(message, classified.message.method, classified.message.params);
    if (classified.kind === 'response') {
      const id = classified.message.id;
      const reply = id === undefined ? undefined : this.serverRequests.get(id);
      if (id !== undefined) this.serverRequests.delete(id);
      const target = reply ?? (this.sessionId === undefined ? undefined : this.subjects.session(this.sessionId));
      if (target !== undefined) this.publish(target, message, this.sessionHeaders(), undefined);
    }
  }

  private sendRequest(message: JsonRpcMessage & { readonly id: RequestId; readonly method: string; readonly params?: { readonly [key: string]: unknown } }, mirror: Readonly<Record<string, string>> | undefined): void {
    const sessionId = this.sessionId;
    const subject = sessionId !== undefined ? this.sessionSubject(sessionId) : this.subjects.call(message.method);
    if (subject === undefined) {
      return this.undeliverable(message, new LocalError('TransportFailed', `The method ${JSON.stringify(message.method)} cannot be named in a NATS subject`));
    }
    const token = this.replies.take();
    const trace = traceContextOf(message.params);
    const initialize = message.method === 'initialize' ? { [NatsHeader.clientInbox]: this.clientInbox } : undefined;
    // Headers of this request's own, on top of the set it shares with the connection's other requests.
    const extra = mirror === undefined && trace === undefined ? initialize : { ...mirror, ...initialize, ...trace };
    const codec = this.sendCodec;
    const headers = this.requestHeaders.of({
      identity: this.options.identity?.(),
      sessionId,
      lane: this.lane,
      contentType: codec === jsonCodec ? undefined : MSGPACK_CONTENT_TYPE,
      // Announced only once this side can read it (msgpackr is an optional peer, loaded in the background).
      acceptMsgpack: this.options.encoding === 'msgpack' && msgpackCodecIfLoaded() !== undefined,
      acceptClaim: this.options.claimCheck === true,
    }, message, extra);
    if (this.state.down) {
      return this.undeliverable(message, new LocalError('TransportFailed', `The NATS connection is down (reconnecting): the ${message.method} request was not sent`));
    }
    const body = codec.encode(message);
    if (!fitsPayload(this.connection, body.byteLength)) {
      return this.undeliverable(message, new LocalError('FrameTooLarge', `The ${message.method} request is ${body.byteLength} bytes, more than the NATS max_payload of ${maxPayloadOf(this.connection)} bytes allows`));
    }
    const entry: Pending = { id: message.id, method: message.method, message, subject, body, headers, heardAt: this.clock.now(), adoptions: 0 };
    this.pending.set(token, entry);
    this.tokenById.set(message.id, token);
    if (sessionId === undefined && message.method === 'initialize') this.initializing = message.id;
    this.publishRaw(subject, body, headers, this.replies.subject(token), message);
  }

  private sendNotification(message: JsonRpcMessage, method: string, params: { readonly [key: string]: unknown } | undefined): void {
    const sessionId = this.sessionId;
    if (sessionId !== undefined && method === 'notifications/cancelled') {
      // No answer will come: the request is let go at its silence limit without an error (what the server still
      // sends on its reply subject meanwhile, such as the cancellation of its own nested requests, is delivered).
      const requestId = params?.['requestId'];
      const token = requestId === undefined ? undefined : this.tokenById.get(requestId as RequestId);
      const entry = token === undefined ? undefined : this.pending.get(token);
      if (entry !== undefined) entry.cancelled = true;
    }
    if (sessionId !== undefined) return this.sendSessionNotice(sessionId, message, method);
    if (method !== 'notifications/cancelled') return;
    // Modern era: the cancel goes to every process; the one holding this lane's request aborts it.
    const requestId = params?.['requestId'];
    const token = requestId === undefined ? undefined : this.tokenById.get(requestId as RequestId);
    if (token !== undefined) this.forget(token);
    const headers = this.stamped(natsHeaders());
    headers.set(NatsHeader.lane, this.lane);
    this.publish(this.subjects.cancel, message, headers, undefined);
  }

  /**
   * A notification on the session subject, with a reply subject of its own: the server never answers a
   * notification, so the only message that can come back there is NATS saying nobody serves the subject (the
   * owner died), and then it goes to the adopt subject like a request would (see `noticeBounced`).
   */
  private sendSessionNotice(sessionId: string, message: JsonRpcMessage, method: string): void {
    const headers = this.sessionHeaders();
    const body = this.encode(message, headers);
    if (!fitsPayload(this.connection, body.byteLength)) {
      return this.undeliverable(message, new LocalError('FrameTooLarge', `A ${body.byteLength}-byte message does not fit the NATS max_payload of ${maxPayloadOf(this.connection)} bytes`));
    }
    const token = this.notices.watch({ message, method, body, headers, sentAt: this.clock.now(), adoptions: 0 });
    this.publishRaw(this.subjects.session(sessionId), body, headers, this.notices.subject(token), message);
  }

  /** What came back to a notification's reply subject: "no responders" re-routes it; a refusal reports it. */
  private onNotice(token: number, msg: Msg): void {
    const notice = this.notices.get(token);
    if (notice === undefined || this.closed) return;
    const headers = ReceivedHeaders.of(msg);
    if (headers.code !== 503) {
      // A process that could not take the session over says why (a refusal with no id): the notice is lost.
      this.notices.delete(token);
      let reason = 'the server refused it';
      try {
        const refusal = codecOfMessage(msg.headers).decode(msg.data, this.maxMessageBytes) as { error?: { message?: unknown } };
        if (typeof refusal.error?.message === 'string') reason = refusal.error.message;
      } catch {
        // Not a message: the plain reason stands.
      }
      return this.undeliverable(notice.message, new LocalError('TransportFailed', `The ${notice.method} notification was not delivered: ${reason}`));
    }
    const sessionId = this.sessionId;
    if (sessionId === undefined || notice.adoptions >= MAX_ADOPTIONS) {
      this.notices.delete(token);
      return this.undeliverable(notice.message, new LocalError('TransportFailed', `The ${notice.method} notification was not delivered: no MCP server process serves session ${sessionId ?? '(none)'} of "${this.options.name}" any more (its owner is gone and none took it over)`));
    }
    // The session's process is gone: another one takes the session over with this notification.
    notice.adoptions++;
    this.toAdopt(notice, this.notices.subject(token), () => this.notices.get(token) === notice);
  }

  /**
   * Sends a message of a session whose process is gone to the adopt subject, as it was sent before (its body and
   * headers), the n-th attempt after a pause growing with n; `current` says whether it still waits then.
   */
  private toAdopt(sent: { readonly body: Uint8Array; readonly headers: MsgHdrs; readonly message: JsonRpcMessage; readonly adoptions: number }, reply: string, current: () => boolean): void {
    const send = (): void => {
      if (current()) this.publishRaw(this.subjects.adopt, sent.body, sent.headers, reply, sent.message);
    };
    const delay = (sent.adoptions - 1) * ADOPT_BACKOFF_MS;
    if (delay === 0) send();
    else this.clock.setTimeout(send, delay);
  }

  private sessionSubject(sessionId: string): string {
    const known = this.sessionSubjectOf;
    if (known !== undefined && known.sessionId === sessionId) return known.subject;
    const subject = this.subjects.session(sessionId);
    this.sessionSubjectOf = { sessionId, subject };
    return subject;
  }

  /** `headers` with the identity assertion, when this transport vouches for a caller. */
  private stamped(headers: MsgHdrs): MsgHdrs {
    const assertion = this.options.identity?.();
    if (assertion !== undefined) headers.set(NatsHeader.identity, assertion);
    return headers;
  }

  private sessionHeaders(): MsgHdrs {
    const headers = this.stamped(natsHeaders());
    if (this.sessionId !== undefined) headers.set(NatsHeader.sessionId, this.sessionId);
    return headers;
  }

  private encode(message: JsonRpcMessage, headers: MsgHdrs): Uint8Array {
    if (this.sendCodec !== jsonCodec) headers.set(NatsHeader.contentType, MSGPACK_CONTENT_TYPE);
    return this.sendCodec.encode(message);
  }

  private publish(subject: string, message: JsonRpcMessage, headers: MsgHdrs, reply: string | undefined): void {
    const body = this.encode(message, headers);
    if (!fitsPayload(this.connection, body.byteLength)) {
      return this.undeliverable(message, new LocalError('FrameTooLarge', `A ${body.byteLength}-byte message does not fit the NATS max_payload of ${maxPayloadOf(this.connection)} bytes`));
    }
    this.publishRaw(subject, body, headers, reply, message);
  }

  private publishRaw(subject: string, body: Uint8Array, headers: MsgHdrs, reply: string | undefined, message: JsonRpcMessage): void {
    try {
      this.connection.publish(subject, body, reply === undefined ? { headers } : { headers, reply });
      this.flush.published();
    } catch (error) {
      this.undeliverable(message, new LocalError('TransportFailed', `NATS refused the message: ${error instanceof Error ? error.message : String(error)}`, { cause: error }));
    }
  }

  /**
   * Keeps a frame sent while `initialize` is in flight: sent now it would go sessionless (to the call subject,
   * where a legacy server refuses it) or nowhere (a notification has no subject yet).
   */
  private hold(message: JsonRpcMessage, mirror: Readonly<Record<string, string>> | undefined): void {
    if (this.held.length >= MAX_HELD) {
      const error = new LocalError('QueueFull', `${MAX_HELD} messages already wait for the answer to initialize; this one was not sent`);
      if (classify(message).kind === 'request') return this.undeliverable(message, error);
      throw error;
    }
    this.held.push({ message, mirror });
  }

  /**
   * Keeps a frame sent while the NATS connection is down until it is back (nats.js would drop it), within the
   * outbound bound and for at most `reconnectWaitMs`.
   */
  private waitForNats(message: JsonRpcMessage, mirror: Readonly<Record<string, string>> | undefined): void {
    if (this.waitingForNats.add({ message, mirror })) return;
    const error = new LocalError('QueueFull', `${MAX_HELD} messages already wait for the NATS connection to come back; this one was not sent`);
    if (classify(message).kind === 'request') return this.undeliverable(message, error);
    throw error;
  }

  /** The NATS connection is back: what waited for it goes, in order. */
  private sendWaiting(): void {
    for (const { message, mirror } of this.waitingForNats.takeAll()) {
      if (this.closed) return;
      try {
        this.sendOne(message, mirror);
      } catch {
        // A notification that no longer fits (the outbound bound): its sender is gone; nothing to fail.
      }
    }
  }

  /** A frame waited `reconnectWaitMs` and the connection is still down: its request fails (nothing was sent). */
  private waitedTooLong(message: JsonRpcMessage): void {
    const what = classify(message);
    const name = what.kind === 'request' || what.kind === 'notification' ? `the ${what.message.method} ${what.kind}` : 'the answer';
    this.undeliverable(message, new LocalError('TransportFailed', `The NATS connection is down (reconnecting): ${name} was not sent (it waited ${this.waitingForNats.waitMs} ms for the connection to come back)`));
  }

  /**
   * The `initialize` exchange ended: with a session, what waited goes now, in order, on the session subject
   * (without one, as the client would have sent it); with a failure, the requests that waited fail with its
   * reason (their notifications have nobody to go to).
   */
  private initialized(failure: LocalError | undefined): void {
    this.initializing = undefined;
    const held = this.held;
    this.held = [];
    for (const { message, mirror } of held) {
      if (failure === undefined) this.sendOne(message, mirror);
      else if (classify(message).kind === 'request') this.undeliverable(message, failure);
    }
  }

  /** Fails the request a message carried (asynchronously: never inside the session's own send). */
  private undeliverable(message: JsonRpcMessage, error: LocalError): void {
    queueMicrotask(() => {
      if (!this.closed) this.inbound.next({ type: 'undeliverable', payload: message, error });
    });
    const id = (message as { readonly id?: RequestId }).id;
    if (this.initializing !== undefined && id === this.initializing && (message as { readonly method?: string }).method === 'initialize') {
      this.initialized(new LocalError(error.code, `The initialize request failed, so this request was not sent: ${error.message}`, { cause: error }));
    }
  }

  private forget(token: number): Pending | undefined {
    const entry = this.pending.get(token);
    if (entry === undefined) return undefined;
    this.pending.delete(token);
    if (this.tokenById.get(entry.id) === token) this.tokenById.delete(entry.id);
    return entry;
  }

  private onReply(token: number, msg: Msg): void {
    const entry = this.pending.get(token);
    if (entry === undefined) {
      // A keepalive for a request this client gave up on: leave it unanswered, so the server stops.
      return;
    }
    // Read once (an answer asks up to five questions of them); a JSON answer usually has none at all.
    const headers = ReceivedHeaders.of(msg);
    if (headers.code === 503) return this.noResponders(token, entry);
    // The request was heard from (its silence limit starts again): noted where it stays in flight, not for the
    // answer that ends it (receiveReply), which would read the clock only to forget the entry.
    if (headers.get(NatsHeader.frame) === 'keepalive') {
      entry.heardAt = this.clock.now();
      if (replyOf(msg) !== undefined) msg.respond(EMPTY);
      return;
    }
    const claim = headers.get(NatsHeader.claim);
    if (claim !== undefined) {
      entry.heardAt = this.clock.now();
      const bucket = headers.get(NatsHeader.claimBucket) ?? '';
      if (this.redeem === undefined) return this.receiveReply(token, entry, msg.data, headers);
      this.redeem(this.connection, bucket, claim, headers.get(NatsHeader.claimDigest)).then(
        (body) => this.receiveReply(token, entry, body, headers),
        (error: unknown) => {
          this.forget(token);
          this.undeliverable(entry.message, error instanceof LocalError ? error : new LocalError('TransportFailed', `The claimed answer could not be fetched: ${String(error)}`));
        },
      );
      return;
    }
    this.receiveReply(token, entry, msg.data, headers);
  }

  private receiveReply(token: number, entry: Pending, body: Uint8Array, headers: ReceivedHeaders): void {
    if (this.closed) return;
    const codec = codecOfMessage(headers);
    let payload: unknown;
    try {
      payload = codec.decode(body, this.maxMessageBytes);
    } catch (error) {
      entry.heardAt = this.clock.now();
      this.inbound.next({ type: 'malformed', error: error instanceof LocalError ? error : new LocalError('DecodeFailed', String(error)) });
      return;
    }
    const envelope = envelopeOf(payload);
    const classified = envelope.classified;
    // A reply subject belongs to one request: its answer, or an error without an id (the server refused the
    // request without using its id, say as a duplicate), ends it.
    if (classified.kind !== 'response' || (classified.message.id !== entry.id && classified.message.id !== undefined)) {
      entry.heardAt = this.clock.now();
    } else {
      this.forget(token);
      // Its own answer (not an id-less refusal) to a request sent once: nothing more comes to its subject.
      if (classified.message.id === entry.id && entry.adoptions === 0 && entry.cancelled !== true) this.replies.release(token);
      // A msgpack answer decoded, so the codec is loaded: from now on this side sends msgpack too.
      if (codec !== jsonCodec && this.options.encoding === 'msgpack') this.sendCodec = codec;
      if (entry.method === 'initialize') {
        const sessionId = headers.get(NatsHeader.sessionId);
        if (sessionId !== undefined && 'result' in classified.message) this.sessionId = sessionId;
      }
    }
    this.inbound.next({ type: 'message', payload, envelope, exchange: entry.id });
    if (classified.kind === 'response' && this.initializing !== undefined && entry.method === 'initialize' && entry.id === this.initializing && this.pending.get(token) === undefined) {
      // After the answer itself, so the client session learns the session before what it sent meanwhile goes.
      const refusal = 'error' in classified.message ? (classified.message.error as { readonly message?: unknown }) : undefined;
      this.initialized(refusal === undefined ? undefined : new LocalError('TransportFailed', `The initialize request failed, so this request was not sent: the server refused it (${String(refusal.message)})`));
    }
  }

  private onSessionInbox(msg: Msg): void {
    if (this.closed) return;
    let payload: unknown;
    try {
      payload = codecOfMessage(msg.headers).decode(msg.data, this.maxMessageBytes);
    } catch (error) {
      this.inbound.next({ type: 'malformed', error: error instanceof LocalError ? error : new LocalError('DecodeFailed', String(error)) });
      return;
    }
    const envelope = envelopeOf(payload);
    const classified = envelope.classified;
    if (classified.kind === 'request' && replyOf(msg) !== undefined) {
      if (this.serverRequests.size >= 1024) this.serverRequests.delete(this.serverRequests.keys().next().value as RequestId);
      this.serverRequests.set(classified.message.id, replyOf(msg) as string);
    }
    this.inbound.next({ type: 'message', payload, envelope });
  }

  private noResponders(token: number, entry: Pending): void {
    const sessionId = this.sessionId;
    if (sessionId !== undefined && entry.adoptions < MAX_ADOPTIONS) {
      // The session's process is gone: another one takes the session over.
      entry.adoptions++;
      entry.heardAt = this.clock.now();
      return this.toAdopt(entry, this.replies.subject(token), () => this.pending.get(token) === entry);
    }
    this.forget(token);
    const where = sessionId !== undefined ? `session ${sessionId} of "${this.options.name}" (no server process took it over)` : `"${this.options.name}" (${entry.subject})`;
    this.undeliverable(entry.message, new LocalError('TransportFailed', `No MCP server answers on NATS for ${where}`));
  }

  /**
   * The NATS server refused a publish of this connection (no permission): the requests sent there fail now with
   * the reason, instead of waiting out their silence limit for an answer that cannot come.
   */
  private refused(refusal: PermissionRefusal): void {
    if (refusal.operation !== 'publish') return;
    for (const [token, entry] of this.pending) {
      if (entry.subject !== refusal.subject && !(refusal.subject === this.subjects.adopt && entry.adoptions > 0)) continue;
      this.forget(token);
      this.undeliverable(entry.message, new LocalError('TransportFailed', `NATS refused the ${entry.method} request: this user may not publish to ${refusal.subject} (a permissions violation; see "Permissions" in docs/nats-binding.md)`));
    }
  }

  /** The NATS server refused this transport's inbox subscription: nothing can reach it, so it closes saying why. */
  private refusedInbox(error: Error): void {
    if (this.closed) return;
    const reason = new LocalError('TransportFailed', `NATS refused the subscription to this client's inbox (${this.inbox}): ${error.message}; give the user subscribe permission there, or an inboxPrefix it has`);
    for (const [token, entry] of this.pending) {
      this.forget(token);
      this.undeliverable(entry.message, reason);
    }
    queueMicrotask(() => void this.close(reason));
  }

  private checkSilence(): void {
    this.notices.expire(this.clock.now());
    const cutoff = this.clock.now() - this.silenceMs;
    for (const [token, entry] of this.pending) {
      if (entry.heardAt > cutoff) continue;
      this.forget(token);
      if (entry.cancelled === true) continue;
      const state = this.connection.isClosed() ? 'closed' : this.state.down ? 'reconnecting' : 'open';
      this.undeliverable(entry.message, new LocalError('PeerUnresponsive', `No word from the MCP server "${this.options.name}" about ${entry.method} for ${this.silenceMs} ms (no answer, no keepalive; NATS connection ${state}): its process may have died`));
    }
  }

}
