/**
 * Legacy-era sessions over NATS. `initialize` arrives on the call subjects (any process of the queue group may
 * take it); the process that answers owns the session: it subscribes to the session subject, where the client
 * sends everything else, and records the session in JetStream KV. Server requests and notifications go to the
 * client's session inbox with the session subject as reply subject.
 *
 * Takeover: when the owner dies, NATS tells the client there are no responders on the session subject; the
 * client sends the same request to the adopt subject. The process that gets it checks that the owner is really
 * gone (its ping subject has no responders), wins the record by compare-and-set, serves the session from its
 * stored revision and capabilities, and handles the request. The client never initializes again. Requests that
 * were running on the dead process end with the client's silence error (no keepalive, no answer).
 *
 * One owner at a time (session-ownership.ts): a process can be taken from while it is alive but cut off from
 * NATS; an owner that learns another process owns the session (a `taken` notice, its record after a reconnection,
 * a state write) lets the session go.
 */
import { randomBytes } from 'node:crypto';
import type { Msg } from '@nats-io/nats-core';
import type { AuthInfo } from '../../../core/auth.ts';
import type { Codec } from '../../../core/codecs/codec.ts';
import { ErrorCode } from '../../../core/error-codes.ts';
import { type JsonObject, type RequestId, isRequestId } from '../../../core/jsonrpc.ts';
import type { LegacyRevision } from '../../../core/protocol/versions.ts';
import type { GracefulCloseOptions, PortableSessionState, SessionAcceptorPort } from '../../../core/transport.ts';
import { type BodyEncoding, answerCodec, codecOf, readsMsgpack } from '../body-codec.ts';
import { headerOf, NatsHeader, type ReceivedHeaders, replyOf } from '../headers.ts';
import { isPlainSubject, type ServerSubjects } from '../subjects.ts';
import { type CallerIdentity, type IdentityGate, identityRefusal } from './identity-gate.ts';
import { type CheckedRequest, decodeBody, malformedRefusal, refuseRequest } from './inbound.ts';
import { ServedConnection, type ServingHost } from './served-connection.ts';
import { PortableStateWrites } from './portable-state-writes.ts';
import { type OwnedSessions, SessionOwnership } from './session-ownership.ts';
import type { SessionRecord, SessionRecords } from './session-records.ts';
import { MAX_HELD, type Reservation, reserveSession } from './session-reservation.ts';
import { type SessionStateWarning, stateWarner } from './session-state-warning.ts';
import { envelopeOf } from '../../../core/frame-envelope.ts';

/** How long a session let go to its new owner may finish the requests it was running here. */
const LET_GO_DRAIN_MS = 5000;
/** What a request for a session that ended (or never was) is answered, so its client initializes a new one. */
const ENDED_SESSION = 'Session not found: the session ended or was never recorded; initialize a new session';

export interface LegacySessionOptions {
  /** A session nobody used for this long is closed and forgotten (default 30 min). */
  readonly idleMs?: number;
  /** How long the adopter waits for the owner's ping before it calls the owner dead (default 1 s). */
  readonly ownerPingMs?: number;
  /**
   * Told when a session's portable state (resource subscriptions, log level) would be lost without it: the
   * record could not be written, a takeover could not restore all of it, or this process changed the state of a
   * session it no longer owns. Default: `process.emitWarning` (stderr), so an operator sees it.
   */
  readonly onStateWarning?: (warning: SessionStateWarning) => void;
}

interface Served {
  readonly connection: ServedConnection;
  readonly handle: { close(options?: GracefulCloseOptions): Promise<void> };
  readonly unsubscribe: () => void;
  /** Leaves the session subject once what NATS routed here before it heard so has come (and been refused). */
  readonly drain: () => void;
  /**
   * Leaves the session subject for good while passing on whatever NATS routed here before it heard so: a plain
   * unsubscribe would drop a message already on its way to this process.
   */
  readonly handOn: () => void;
  /** Close ends the session for good (its record goes) unless the process is handing it over. */
  ending: boolean;
}

export class LegacySessions {
  private readonly sessions = new Map<string, Served>();
  private readonly idleMs: number;
  private readonly warn: (warning: SessionStateWarning) => void;
  private readonly ownership: SessionOwnership;
  private readonly states: PortableStateWrites;
  private handingOver = false;
  /** Messages held per session while ownership is unconfirmed after a NATS disconnection. */
  private fence: Map<string, Msg[]> | undefined;
  /** Takeovers under way in this process, by session: a session's other messages wait for its one attempt. */
  private readonly adopting = new Map<string, Promise<void>>();

  constructor(
    private readonly host: ServingHost,
    private readonly acceptor: SessionAcceptorPort,
    private readonly subjects: ServerSubjects,
    private readonly records: SessionRecords | undefined,
    private readonly gate: IdentityGate,
    private readonly maxMessageBytes: number,
    private readonly allowed: { readonly claims: boolean; readonly msgpack: boolean },
    options: LegacySessionOptions,
  ) {
    this.idleMs = options.idleMs ?? 30 * 60_000;
    this.warn = stateWarner(options.onStateWarning);
    const owned: OwnedSessions = { isServed: (sessionId) => this.sessions.has(sessionId), letGo: (sessionId) => this.letGo(sessionId), warn: this.warn };
    this.ownership = new SessionOwnership(host, subjects, records, options.ownerPingMs ?? 1000, owned);
    this.states = new PortableStateWrites(host.processId, records, owned);
  }

  get size(): number {
    return this.sessions.size;
  }

  has(sessionId: string): boolean {
    return this.sessions.has(sessionId);
  }

  /** `initialize` on the call subjects: a new session owned by this process, bound to its caller (`auth`). */
  open(request: CheckedRequest, msg: Msg, codec: Codec, auth: AuthInfo | undefined): void {
    const reply = replyOf(msg) as string;
    const clientInbox = headerOf(msg.headers, NatsHeader.clientInbox) ?? '';
    if (!isPlainSubject(clientInbox)) {
      return refuseRequest(this.host, reply, codec, request.id, ErrorCode.InvalidRequest, `Invalid request: initialize over NATS needs a ${NatsHeader.clientInbox} header naming a subject for the session's server requests`);
    }
    const refused = this.acceptor.refusal?.();
    if (refused !== undefined) return refuseRequest(this.host, reply, codec, request.id, ErrorCode.InternalError, refused.message);
    const sessionId = randomBytes(24).toString('base64url');
    const encoding: BodyEncoding = this.allowed.msgpack && readsMsgpack(msg.headers) ? 'msgpack' : 'json';
    const params = request.params ?? {};
    const served = this.tryServe(sessionId, clientInbox, encoding, async (revision) => {
      const headers = { [NatsHeader.sessionId]: sessionId };
      if (revision === undefined) {
        // The handshake failed: the session will never operate.
        queueMicrotask(() => void this.end(sessionId));
        return headers;
      }
      await this.record(sessionId, {
        revision,
        peerCapabilities: (params['capabilities'] ?? {}) as JsonObject,
        ...(typeof params['clientInfo'] === 'object' && params['clientInfo'] !== null ? { peerInfo: params['clientInfo'] as SessionRecord['peerInfo'] & object } : {}),
        clientInbox,
        encoding,
        owner: this.host.processId,
        ...(auth === undefined ? {} : { principal: auth.principal }),
      });
      return headers;
    }, undefined, auth);
    if (!served.ok) return refuseRequest(this.host, reply, codec, request.id, ErrorCode.InternalError, served.reason);
    served.served.connection.deliverRequest(request, reply, codec, this.allowed.claims && headerOf(msg.headers, NatsHeader.acceptClaim) !== undefined, undefined, auth);
  }

  /** A request for a session whose owner did not answer. */
  async adopt(msg: Msg): Promise<void> {
    const sessionId = headerOf(msg.headers, NatsHeader.sessionId) ?? '';
    const local = this.sessions.get(sessionId);
    if (local !== undefined) return this.dispatch(local, msg);
    // Several of a session's messages reach the adopt subject at once (a client's concurrent requests): this
    // process tries to take the session over once, and the others wait for that.
    const under = this.adopting.get(sessionId);
    if (under !== undefined) {
      await under;
      const served = this.sessions.get(sessionId);
      // Not taken over here: on to whoever serves the session (or back to the client as "no responders").
      if (served !== undefined) this.dispatch(served, msg);
      else this.passOn(sessionId, msg);
      return;
    }
    const attempt = this.takeOver(sessionId, msg);
    this.adopting.set(sessionId, attempt.then(() => undefined, () => undefined));
    let again: 'adopt-again' | void;
    try {
      again = await attempt;
    } finally {
      this.adopting.delete(sessionId);
    }
    // Overtaken by another claim: the message goes through the adopt subject once more, now that this process no
    // longer waits on its own attempt (whoever the record names serves it, or a process takes it over from them).
    if (again !== undefined) this.publishAgain(this.subjects.adopt, msg);
  }

  /**
   * Takes `sessionId` over for `msg`, if its owner is gone and the caller is the session's, and serves `msg`;
   * `'adopt-again'` when this process's claim was overtaken and `msg` is to be adopted anew.
   */
  private async takeOver(sessionId: string, msg: Msg): Promise<'adopt-again' | void> {
    const reply = replyOf(msg);
    const decoded = decodeBody(msg, this.maxMessageBytes);
    const id = decoded.ok ? idOf(decoded.value) : undefined;
    const found = this.records === undefined || sessionId === '' ? undefined : await this.records.get(sessionId);
    if (found === undefined) {
      if (reply !== undefined) refuseRequest(this.host, reply, decoded.codec, id, ErrorCode.InvalidRequest, `Session not found: ${sessionId === '' ? 'no session id was given' : 'the session ended or was never recorded'}; initialize a new session`);
      return;
    }
    const { record, revision } = found;
    // The session is its caller's: another identity (or none, for a caller's session) finds nothing here.
    const caller = await new Promise<CallerIdentity>((resolve) => this.gate.pass(msg, resolve));
    if (!caller.ok) {
      if (reply !== undefined) refuseRequest(this.host, reply, decoded.codec, id, ErrorCode.IdentityRefused, identityRefusal(caller.reason));
      return;
    }
    if (caller.auth?.principal !== record.principal) {
      if (reply !== undefined) refuseRequest(this.host, reply, decoded.codec, id, ErrorCode.InvalidRequest, ENDED_SESSION);
      return;
    }
    if (record.owner !== this.host.processId && (await this.ownership.ownerAlive(record.owner))) {
      // The owner lives: it did not serve the subject a moment ago (it was reconnecting to NATS, or is taking the
      // session back) and may well now. The request goes on to the session subject; should nobody serve it there,
      // the client hears "no responders" and comes back here (a bounded number of times).
      const again = this.sessions.get(sessionId);
      if (again !== undefined) return this.dispatch(again, msg);
      this.passOn(sessionId, msg);
      return;
    }
    const again = this.sessions.get(sessionId);
    if (again !== undefined) return this.dispatch(again, msg);
    // A process that would refuse the session must not claim it: the record stays for another process.
    const refused = this.acceptor.refusal?.();
    if (refused !== undefined) {
      if (reply !== undefined) refuseRequest(this.host, reply, decoded.codec, id, ErrorCode.InternalError, `${refused.message}; retry the request`);
      return;
    }
    // Subscribed before claiming: a process that reads the record naming this one finds it on the session subject.
    const reservation = this.reserve(sessionId);
    const won = await this.records!.claim(sessionId, { ...record, owner: this.host.processId }, revision);
    if (!won) {
      // Another process's claim came first (and it subscribed before it): the request goes on to it.
      this.release(sessionId, reservation);
      this.passOn(sessionId, msg);
      return;
    }
    if (!(await this.ownership.confirmClaim(sessionId))) {
      this.release(sessionId, reservation);
      return 'adopt-again';
    }
    // Asked again: the acceptor may have filled up while the claim was under way (nothing runs between this
    // question and `accept` below).
    const refusedNow = this.acceptor.refusal?.();
    const served = refusedNow !== undefined
      ? { ok: false as const, reason: refusedNow.message }
      : this.tryServe(sessionId, record.clientInbox, record.encoding, undefined, {
          revision: record.revision as LegacyRevision,
          peerCapabilities: record.peerCapabilities,
          ...(record.peerInfo === undefined ? {} : { peerInfo: { name: record.peerInfo.name, version: record.peerInfo.version } }),
        }, caller.auth, record.state, reservation);
    if (served.ok) this.states.served(sessionId);
    else this.states.notRestoring(sessionId);
    if (!served.ok) {
      // Claimed but not served: the record goes back as it was, so another process takes the session over.
      reservation.subscription.unsubscribe();
      await this.records!.handBack(sessionId, this.host.processId, record).catch(() => undefined);
      for (const held of [msg, ...reservation.held.splice(0)]) {
        const heldReply = replyOf(held);
        if (heldReply !== undefined) refuseRequest(this.host, heldReply, decodeBody(held, this.maxMessageBytes).codec, held === msg ? id : undefined, ErrorCode.InternalError, `${served.reason}; retry the request`);
      }
      return;
    }
    // The previous owner may be alive, merely cut off from NATS a moment ago: should it still serve the session
    // when it hears this, it lets the session go.
    if (record.owner !== this.host.processId) this.ownership.tellTaken(record.owner, sessionId);
    this.dispatch(served.served, msg);
    // Then what reached the session subject while the claim was under way, in order.
    const deliver = reservation.deliver;
    for (const held of reservation.held.splice(0)) deliver?.(held);
  }

  /** Gives a reservation up: no longer subscribed, what it held goes on to the session subject (its owner). */
  private release(sessionId: string, reservation: Reservation): void {
    reservation.subscription.unsubscribe();
    for (const held of reservation.held.splice(0)) this.passOn(sessionId, held);
  }

  /** Another process says it took a session over (on this process's `taken` subject): see {@link SessionOwnership.taken}. */
  taken(data: Uint8Array): Promise<void> {
    return this.ownership.taken(data);
  }

  /** Closes idle sessions. */
  sweep(): void {
    const cutoff = this.host.now() - this.idleMs;
    for (const [sessionId, served] of this.sessions) {
      if (served.connection.inFlight === 0 && served.connection.lastActive <= cutoff) void this.end(sessionId);
    }
  }

  /**
   * Stops serving every session. `handover` keeps their records so other processes take them over at the
   * clients' next request (a rolling restart); otherwise the sessions end. With `options`, each session first
   * drains (see {@link GracefulCloseOptions}).
   */
  async closeAll(handover: boolean, options?: GracefulCloseOptions): Promise<void> {
    this.handingOver = handover;
    this.ownership.forgetAll();
    await Promise.all(Array.from(this.sessions.keys(), (sessionId) => this.end(sessionId, options)));
  }

  /** {@link serve}, with an acceptor that throws (it refuses the session) as a result rather than an exception. */
  private tryServe(...args: Parameters<LegacySessions['serve']>): { readonly ok: true; readonly served: Served } | { readonly ok: false; readonly reason: string } {
    try {
      return { ok: true, served: this.serve(...args) };
    } catch (error) {
      return { ok: false, reason: error instanceof Error ? error.message : String(error) };
    }
  }

  private serve(
    sessionId: string,
    clientInbox: string,
    encoding: BodyEncoding,
    onNegotiated: ((revision: LegacyRevision | undefined) => Promise<Record<string, string>>) | undefined,
    preinitialized: { readonly revision: LegacyRevision; readonly peerCapabilities: JsonObject; readonly peerInfo?: { readonly name: string; readonly version: string } } | undefined,
    auth: AuthInfo | undefined,
    restoredState?: PortableSessionState,
    reserved?: Reservation,
  ): Served {
    const subject = this.subjects.session(sessionId);
    // The connection's callbacks need the session record, which needs the connection.
    const made: { served?: Served } = {};
    const connection = new ServedConnection(this.host, {
      clientInbox,
      sessionSubject: subject,
      inboxCodec: codecOf(encoding),
      ...(onNegotiated === undefined ? {} : { onNegotiated }),
      ...(auth === undefined ? {} : { auth }),
      onPortableState: (state) => this.states.changed(sessionId, state),
      onClosed: () => {
        const served = made.served;
        if (served === undefined || this.sessions.get(sessionId) !== served) return;
        this.sessions.delete(sessionId);
        const ended = !this.handingOver || served.ending;
        // An ended session drains its subject: what NATS routed here before it heard of the unsubscribe still
        // comes, and is refused as for an ended session (dispatchAs) rather than lost to its client's silence limit.
        if (ended) served.drain();
        else served.unsubscribe();
        this.ownership.forget(sessionId);
        if (ended) void this.records?.deleteIfOwner(sessionId, this.host.processId).catch(() => undefined);
      },
    });
    const reservation = reserved ?? this.reserve(sessionId);
    const subscription = reservation.subscription;
    let handle: Served['handle'];
    try {
      if (restoredState !== undefined) this.states.restoringFrom(sessionId, restoredState);
      handle = this.acceptor.accept(connection, preinitialized === undefined ? undefined : {
        preinitialized,
        restoredSessionId: sessionId,
        ...(restoredState === undefined ? {} : { restoredState }),
      });
    } catch (error) {
      this.states.notRestoring(sessionId);
      // A refused session leaves nothing behind: no subscription serves its subject, no connection waits (what
      // was held for it is the caller's to answer).
      subscription.unsubscribe();
      void connection.close();
      throw error;
    }
    const served: Served = {
      connection,
      handle,
      unsubscribe: () => subscription.unsubscribe(),
      drain: () => void subscription.drain().catch(() => subscription.unsubscribe()),
      handOn: () => {
        reservation.deliver = (msg) => this.passOn(sessionId, msg);
        subscription.drain().catch(() => subscription.unsubscribe());
      },
      ending: false,
    };
    made.served = served;
    this.sessions.set(sessionId, served);
    reservation.deliver = (msg) => {
      if (this.fence !== undefined) this.hold(this.fence, sessionId, msg);
      else this.dispatch(served, msg);
    };
    return served;
  }

  /** Subscribes to `sessionId`'s subject, holding its messages until the session is served here. */
  private reserve(sessionId: string): Reservation {
    return reserveSession(this.host.connection, this.subjects.session(sessionId), this.maxMessageBytes);
  }

  /**
   * One message on a session subject (or handed over by the adopt subject), served once its identity is the
   * session's caller's: a message of anyone else (a forged or stale assertion, another caller, none for a
   * caller's session) is refused, so a session id seen on the bus opens no door.
   */
  private dispatch(served: Served, msg: Msg): void {
    // Read once: the identity, frame, encodings and claim-check below all ask them.
    const headers = this.host.headers.of(msg);
    // An anonymous message with nothing waiting before it is served at once; any other goes through the gate.
    const caller = this.gate.anonymousNow(headers);
    if (caller !== undefined) this.dispatchFrom(caller, served, msg, headers);
    else this.dispatchLater(served, msg, headers);
  }

  /** {@link dispatchFrom} once the gate has verified the caller (apart, so that the common path makes no closure). */
  private dispatchLater(served: Served, msg: Msg, headers: ReceivedHeaders): void {
    this.gate.pass(msg, (caller) => this.dispatchFrom(caller, served, msg, headers), headers);
  }

  private dispatchFrom(caller: CallerIdentity, served: Served, msg: Msg, headers: ReceivedHeaders): void {
    const principal = caller.ok ? caller.auth?.principal : undefined;
    if (caller.ok && principal === served.connection.principal) return this.dispatchAs(served, msg, headers, caller.auth);
    const reply = replyOf(msg);
    if (reply === undefined || headers.get(NatsHeader.frame) === 'close') return;
    const decoded = decodeBody(msg, this.maxMessageBytes, headers);
    const reason = caller.ok ? (principal === undefined ? 'this session belongs to an identified caller and the message names none' : 'this session belongs to another caller') : caller.reason;
    refuseRequest(this.host, reply, decoded.codec, decoded.ok ? idOf(decoded.value) : undefined, ErrorCode.IdentityRefused, identityRefusal(reason));
  }

  private dispatchAs(served: Served, msg: Msg, headers: ReceivedHeaders, auth: AuthInfo | undefined): void {
    const control = headers.get(NatsHeader.frame);
    if (control === 'close') {
      served.ending = true;
      // The client ended its session and waits for nothing: the connection goes first, so what still runs is
      // cancelled, not answered.
      void served.connection.close();
      void served.handle.close();
      if (replyOf(msg) !== undefined) msg.respond(new Uint8Array(0));
      return;
    }
    const decoded = decodeBody(msg, this.maxMessageBytes, headers);
    const reply = replyOf(msg);
    if (!decoded.ok) {
      if (reply !== undefined) {
        const refusal = malformedRefusal(decoded.error);
        refuseRequest(this.host, reply, decoded.codec, undefined, refusal.code, refusal.message);
      }
      return;
    }
    const envelope = envelopeOf(decoded.value);
    const classified = envelope.classified;
    if (served.connection.isClosed) {
      // The session ended a moment ago (its server closed it) and is not let go yet: a request is answered as for
      // an ended session, never dropped (its client would wait out its silence limit).
      if (classified.kind === 'request' && reply !== undefined) refuseRequest(this.host, reply, decoded.codec, classified.message.id, ErrorCode.InvalidRequest, ENDED_SESSION);
      return;
    }
    if (classified.kind === 'request' && reply !== undefined) {
      served.connection.deliverRequest(classified.message, reply, answerCodec(headers, decoded.codec, this.allowed.msgpack), this.allowed.claims && headers.get(NatsHeader.acceptClaim) !== undefined, undefined, auth, envelope);
      return;
    }
    // Notifications, answers to server requests, and whatever the session itself should refuse.
    served.connection.deliver(decoded.value, auth, envelope);
  }

  /**
   * The NATS connection dropped: while it is away another process may take these sessions over, so from now
   * until ownership is confirmed after the reconnection, their messages are held, not served.
   */
  disconnected(): void {
    this.fence ??= new Map();
  }

  /**
   * Back on NATS (nats.js has already restored the subscriptions): each session whose record names another
   * owner now, or no longer exists, is let go here (its record untouched) and what was held for it goes on to
   * its session subject, where its owner listens; the others are served again, held messages first.
   */
  async reconnected(): Promise<void> {
    const fence = (this.fence ??= new Map());
    const checks = await Promise.all(Array.from(this.sessions.keys(), async (sessionId) => {
      const owned = await this.ownership.owns(sessionId);
      // Cannot tell: keep serving rather than drop a session that may well be ours, and read the record again later.
      if (owned === undefined) this.ownership.recheck(sessionId);
      return { sessionId, ours: owned !== false };
    }));
    if (this.fence !== fence) return;
    this.fence = undefined;
    for (const { sessionId, ours } of checks) {
      const served = this.sessions.get(sessionId);
      const held = fence.get(sessionId) ?? [];
      fence.delete(sessionId);
      if (served === undefined) continue;
      if (ours) {
        for (const msg of held) this.dispatch(served, msg);
        continue;
      }
      this.letGo(sessionId);
      for (const msg of held) this.passOn(sessionId, msg);
    }
    // Sessions opened meanwhile (none are fenced at birth) and anything else held are served now.
    for (const [sessionId, held] of fence) {
      const served = this.sessions.get(sessionId);
      for (const msg of held) {
        if (served !== undefined) this.dispatch(served, msg);
        else this.passOn(sessionId, msg);
      }
    }
  }

  /**
   * Stops serving a session another process owns now (its record untouched): the session subject's subscription
   * goes, so its messages reach the owner only, and what was held here for it goes on to the owner.
   */
  private letGo(sessionId: string): void {
    this.ownership.forget(sessionId);
    const served = this.sessions.get(sessionId);
    if (served === undefined) return;
    this.sessions.delete(sessionId);
    served.handOn();
    // What it still runs here is answered (within a bound): those requests were delivered here, not to the owner.
    // Answers held for a state write under way (see ServedConnection.send) leave once it settles: then it closes.
    const close = (): void => {
      served.connection.answerOpenRequestsOnClose();
      void served.handle.close({ drainMs: LET_GO_DRAIN_MS });
    };
    const writing = this.states.pending(sessionId);
    if (writing === undefined) close();
    else void writing.then(close);
    const held = this.fence?.get(sessionId);
    if (held === undefined) return;
    this.fence?.delete(sessionId);
    for (const msg of held) this.passOn(sessionId, msg);
  }

  private hold(fence: Map<string, Msg[]>, sessionId: string, msg: Msg): void {
    let held = fence.get(sessionId);
    if (held === undefined) fence.set(sessionId, (held = []));
    if (held.length >= MAX_HELD) {
      const reply = replyOf(msg);
      if (reply !== undefined) refuseRequest(this.host, reply, decodeBody(msg, this.maxMessageBytes).codec, undefined, ErrorCode.InternalError, 'The session is being re-checked after a NATS reconnection; retry the request');
      return;
    }
    held.push(msg);
  }

  /** Publishes a session message again, to whichever process serves the session subject. */
  private passOn(sessionId: string, msg: Msg): void {
    this.publishAgain(this.subjects.session(sessionId), msg);
  }

  /** Publishes `msg` again on `subject`, with its reply subject and headers. */
  private publishAgain(subject: string, msg: Msg): void {
    const reply = replyOf(msg);
    try {
      this.host.connection.publish(subject, msg.data, { ...(reply === undefined ? {} : { reply }), ...(msg.headers === undefined ? {} : { headers: msg.headers }) });
    } catch {
      // The connection went away again; the client's silence limit ends its wait.
    }
  }

  private async record(sessionId: string, record: SessionRecord): Promise<void> {
    if (this.records === undefined) return;
    try {
      await this.records.put(sessionId, record);
    } catch {
      // Without a record the session still works here; only a takeover would not find it.
    }
  }

  private async end(sessionId: string, options?: GracefulCloseOptions): Promise<void> {
    const served = this.sessions.get(sessionId);
    if (served === undefined) return;
    if (!this.handingOver) served.ending = true;
    if (options !== undefined) served.connection.answerOpenRequestsOnClose();
    await served.handle.close(options);
  }
}

function idOf(value: unknown): RequestId | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const id = (value as Record<string, unknown>)['id'];
  return isRequestId(id) ? id : undefined;
}
