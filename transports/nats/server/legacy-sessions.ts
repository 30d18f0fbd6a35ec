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
 * One owner at a time: a process can be taken from while it is alive but cut off from NATS. The taker tells the
 * previous owner (its `taken` subject); an owner that hears it, that finds another owner in the record after a
 * reconnection or when it writes the session's state, lets the session go. A record that cannot be read after a
 * reconnection (the bucket electing a leader) is read again later, a bounded number of times.
 */
import { randomBytes } from 'node:crypto';
import type { Msg, Subscription } from 'nats';
import type { TimerHandle } from '../../../core/clock.ts';
import type { AuthInfo } from '../../../core/auth.ts';
import type { Codec } from '../../../core/codecs/codec.ts';
import { ErrorCode } from '../../../core/error-codes.ts';
import { type JsonObject, type RequestId, classify, isRequestId } from '../../../core/jsonrpc.ts';
import type { LegacyRevision } from '../../../core/protocol/versions.ts';
import type { GracefulCloseOptions, PortableSessionState, SessionAcceptorPort } from '../../../core/transport.ts';
import { type BodyEncoding, answerCodec, codecOf, readsMsgpack } from '../body-codec.ts';
import { headerOf, isNoRespondersError, NatsHeader, type ReceivedHeaders, replyOf } from '../headers.ts';
import { isPlainSubject, type ServerSubjects } from '../subjects.ts';
import { type CallerIdentity, type IdentityGate, identityRefusal } from './identity-gate.ts';
import { type CheckedRequest, decodeBody, malformedRefusal, refuse } from './inbound.ts';
import { ServedConnection, type ServingHost } from './served-connection.ts';
import type { SessionRecord, SessionRecords } from './session-records.ts';

/** Messages held for one session while its ownership is re-checked. */
const MAX_HELD = 256;
/** The wait before an owner that had no responders is pinged again (see `ownerAlive`). */
const OWNER_RECHECK_MS = 250;
/**
 * The pauses before a session's record is read again when it could not be read after a reconnection: about
 * half a minute in all, on top of each read's own retries through a leader election.
 */
const RECORD_RECHECK_PAUSES_MS = [1000, 2000, 4000, 8000, 15_000] as const;
/** How long a claimant waits for a concurrent claim to land before it reads whose claim came last. */
const CLAIM_SETTLE_MS = 100;
/** How long a session let go to its new owner may finish the requests it was running here. */
const LET_GO_DRAIN_MS = 5000;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

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

export interface SessionStateWarning {
  readonly sessionId: string;
  /**
   * `not-recorded`: the record did not take the new state (KV failed or kept conflicting), a takeover would miss
   * it; `not-restored`: the process taking the session over restored less than the record held; `not-owner`:
   * the state changed here after another process took the session over (the change stays here, the client's
   * notifications come from the new owner; this process lets the session go); `not-confirmed`: the record could
   * not be read for about half a minute when this process's ownership was to be confirmed (after a NATS
   * reconnection, a claim, a takeover notice), so it serves the session on without knowing whether another
   * process took it over meanwhile.
   */
  readonly kind: 'not-recorded' | 'not-restored' | 'not-owner' | 'not-confirmed';
  readonly message: string;
}

function emitStateWarning(warning: SessionStateWarning): void {
  process.emitWarning(`session ${warning.sessionId}: ${warning.message}`, { type: 'RxmcpSessionStateWarning', code: warning.kind });
}

/**
 * This process's subscription to a session's subject, made before it claims the session (so whoever reads the
 * record naming it finds it subscribed) and kept once it serves the session. Until then messages are held.
 */
interface Reservation {
  readonly subscription: Subscription;
  readonly held: Msg[];
  /** Where messages go once the session is served here; held until then. */
  deliver: ((msg: Msg) => void) | undefined;
}

interface Served {
  readonly connection: ServedConnection;
  readonly handle: { close(options?: GracefulCloseOptions): Promise<void> };
  readonly unsubscribe: () => void;
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
  private readonly ownerPingMs: number;
  private readonly warn: (warning: SessionStateWarning) => void;
  /** Per session, the state write under way: writes of one session go in order. */
  private readonly stateWrites = new Map<string, Promise<void>>();
  /** Sessions just taken over, with the state their record held, until the server says what it restored. */
  private readonly restoring = new Map<string, PortableSessionState>();
  private handingOver = false;
  /** Messages held per session while ownership is unconfirmed after a NATS disconnection. */
  private fence: Map<string, Msg[]> | undefined;
  /** Sessions whose record is to be read again (it could not be read when it had to be), with their timer. */
  private readonly rechecks = new Map<string, TimerHandle>();
  /** Takeovers under way in this process, by session: a session's other messages wait for its one attempt. */
  private readonly adopting = new Map<string, Promise<void>>();
  /** Sessions whose ownership is being read after a `taken` notice: one read at a time each. */
  private readonly confirming = new Set<string>();

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
    this.ownerPingMs = options.ownerPingMs ?? 1000;
    const warn = options.onStateWarning ?? emitStateWarning;
    // A listener that throws must not break the session (its state writes and answers wait on this).
    this.warn = (warning) => {
      try {
        warn(warning);
      } catch {
        // The operator's listener failed; nothing else to tell.
      }
    };
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
      return refuse(this.host.connection, reply, codec, request.id, ErrorCode.InvalidRequest, `Invalid request: initialize over NATS needs a ${NatsHeader.clientInbox} header naming a subject for the session's server requests`);
    }
    const refused = this.acceptor.refusal?.();
    if (refused !== undefined) return refuse(this.host.connection, reply, codec, request.id, ErrorCode.InternalError, refused.message);
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
    if (!served.ok) return refuse(this.host.connection, reply, codec, request.id, ErrorCode.InternalError, served.reason);
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
      if (reply !== undefined) refuse(this.host.connection, reply, decoded.codec, id, ErrorCode.InvalidRequest, `Session not found: ${sessionId === '' ? 'no session id was given' : 'the session ended or was never recorded'}; initialize a new session`);
      return;
    }
    const { record, revision } = found;
    // The session is its caller's: another identity (or none, for a caller's session) finds nothing here.
    const caller = await new Promise<CallerIdentity>((resolve) => this.gate.pass(msg, resolve));
    if (!caller.ok) {
      if (reply !== undefined) refuse(this.host.connection, reply, decoded.codec, id, ErrorCode.IdentityRefused, identityRefusal(caller.reason));
      return;
    }
    if (caller.auth?.principal !== record.principal) {
      if (reply !== undefined) refuse(this.host.connection, reply, decoded.codec, id, ErrorCode.InvalidRequest, 'Session not found: the session ended or was never recorded; initialize a new session');
      return;
    }
    if (record.owner !== this.host.processId && (await this.ownerAlive(record.owner))) {
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
      if (reply !== undefined) refuse(this.host.connection, reply, decoded.codec, id, ErrorCode.InternalError, `${refused.message}; retry the request`);
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
    if (!(await this.confirmClaim(sessionId))) {
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
    const unanswered = this.restoring.get(sessionId);
    this.restoring.delete(sessionId);
    if (served.ok && unanswered !== undefined && !isEmpty(unanswered)) {
      // The server restored nothing (it reports no portable state): the client's subscriptions and level are gone.
      this.warn({ sessionId, kind: 'not-restored', message: `taken over, but the server restored none of its state (${describe(unanswered)})` });
    }
    if (!served.ok) {
      // Claimed but not served: the record goes back as it was, so another process takes the session over.
      reservation.subscription.unsubscribe();
      await this.records!.handBack(sessionId, this.host.processId, record).catch(() => undefined);
      for (const held of [msg, ...reservation.held.splice(0)]) {
        const heldReply = replyOf(held);
        if (heldReply !== undefined) refuse(this.host.connection, heldReply, decodeBody(held, this.maxMessageBytes).codec, held === msg ? id : undefined, ErrorCode.InternalError, `${served.reason}; retry the request`);
      }
      return;
    }
    // The previous owner may be alive, merely cut off from NATS a moment ago: should it still serve the session
    // when it hears this, it lets the session go.
    if (record.owner !== this.host.processId) this.tellTaken(record.owner, sessionId);
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

  /**
   * Whether this process's claim of `sessionId` stands. A JetStream cluster may accept two compare-and-sets made
   * at once on one revision (nats-server checks the expected revision before the write's consensus, not in it:
   * before 2.9.21 for any two writes in flight, later still across a change of the stream's leader); both are
   * stored, and the record is whichever came last. So a claimant waits a moment for a concurrent write to land,
   * then reads the record as the stream's leader holds it: only the process it names serves the session. A read
   * that fails leaves the claim standing, to be read again later (`recheck`).
   */
  private async confirmClaim(sessionId: string): Promise<boolean> {
    await new Promise<void>((resolve) => this.host.clock.setTimeout(resolve, CLAIM_SETTLE_MS));
    try {
      const found = await this.records!.getFromLeader(sessionId);
      return found?.record.owner === this.host.processId;
    } catch {
      this.recheck(sessionId);
      return true;
    }
  }

  /**
   * Another process says it took `sessionId` over (on this process's `taken` subject). Believed only when the
   * record says so too: a notice proves nothing by itself.
   */
  async taken(data: Uint8Array): Promise<void> {
    if (data.length > 256) return;
    const sessionId = decoder.decode(data);
    if (!this.sessions.has(sessionId) || this.confirming.has(sessionId)) return;
    this.confirming.add(sessionId);
    try {
      const owned = await this.owns(sessionId);
      if (owned === false) this.letGo(sessionId);
      else if (owned === undefined) this.recheck(sessionId);
    } finally {
      this.confirming.delete(sessionId);
    }
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
    for (const timer of this.rechecks.values()) timer.cancel();
    this.rechecks.clear();
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
      onPortableState: (state) => this.stateChanged(sessionId, state),
      onClosed: () => {
        const served = made.served;
        if (served === undefined || this.sessions.get(sessionId) !== served) return;
        this.sessions.delete(sessionId);
        served.unsubscribe();
        this.rechecks.get(sessionId)?.cancel();
        this.rechecks.delete(sessionId);
        if (!this.handingOver || served.ending) void this.records?.deleteIfOwner(sessionId, this.host.processId).catch(() => undefined);
      },
    });
    const reservation = reserved ?? this.reserve(sessionId);
    const subscription = reservation.subscription;
    let handle: Served['handle'];
    try {
      if (restoredState !== undefined) this.restoring.set(sessionId, restoredState);
      handle = this.acceptor.accept(connection, preinitialized === undefined ? undefined : {
        preinitialized,
        restoredSessionId: sessionId,
        ...(restoredState === undefined ? {} : { restoredState }),
      });
    } catch (error) {
      this.restoring.delete(sessionId);
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
    const held: Msg[] = [];
    const reservation: { subscription?: Subscription; held: Msg[]; deliver: Reservation['deliver'] } = { held, deliver: undefined };
    reservation.subscription = this.host.connection.subscribe(this.subjects.session(sessionId), {
      // A queue group: while a session changes hands, a message still reaches one process only.
      queue: 'mcp-session',
      callback: (error, msg) => {
        if (error !== null) return;
        if (reservation.deliver !== undefined) return reservation.deliver(msg);
        if (held.length < MAX_HELD) return void held.push(msg);
        const reply = replyOf(msg);
        if (reply !== undefined) refuse(this.host.connection, reply, decodeBody(msg, this.maxMessageBytes).codec, undefined, ErrorCode.InternalError, 'The session is being taken over; retry the request');
      },
    });
    return reservation as Reservation;
  }

  /**
   * The server changed a session's portable state (or says what it restored after a takeover): it goes into the
   * session's record, in order, while this process owns it; whatever cannot be kept is told (`onStateWarning`).
   */
  private stateChanged(sessionId: string, state: PortableSessionState): Promise<void> {
    const expected = this.restoring.get(sessionId);
    if (expected !== undefined) {
      this.restoring.delete(sessionId);
      const lost = lostState(expected, state);
      if (lost !== undefined) this.warn({ sessionId, kind: 'not-restored', message: `taken over, but not all of its state was restored: ${lost}` });
    }
    const records = this.records;
    if (records === undefined) return Promise.resolve();
    const previous = this.stateWrites.get(sessionId) ?? Promise.resolve();
    const write = previous.then(async () => {
      let outcome: 'saved' | 'not-owner' | 'gone' | 'conflict' | 'failed';
      try {
        outcome = await records.saveState(sessionId, this.host.processId, state);
      } catch {
        outcome = 'failed';
      }
      if (outcome === 'not-owner') {
        // Another process owns the session now (it took it over while this one was cut off): this one steps down.
        if (this.sessions.has(sessionId)) {
          this.warn({ sessionId, kind: 'not-owner', message: 'its state changed on a process that no longer owns it; the change was not recorded, and this process let the session go to its owner' });
          this.letGo(sessionId);
        }
      } else if (outcome === 'gone') {
        // The record expired (a session ending here deletes its record, and then is no longer served here).
        if (this.sessions.has(sessionId)) this.warn({ sessionId, kind: 'not-recorded', message: `its record is gone (expired?), so its state was not recorded; a takeover would not find the session` });
      } else if (outcome !== 'saved') {
        this.warn({ sessionId, kind: 'not-recorded', message: `its state could not be recorded (${outcome === 'conflict' ? 'concurrent writes' : 'the session store failed'}); a takeover would not restore ${describe(state)}` });
      }
    });
    this.stateWrites.set(sessionId, write);
    void write.finally(() => {
      if (this.stateWrites.get(sessionId) === write) this.stateWrites.delete(sessionId);
    });
    return write;
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
    refuse(this.host.connection, reply, decoded.codec, decoded.ok ? idOf(decoded.value) : undefined, ErrorCode.IdentityRefused, identityRefusal(reason));
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
        refuse(this.host.connection, reply, decoded.codec, undefined, refusal.code, refusal.message);
      }
      return;
    }
    const classified = classify(decoded.value);
    if (classified.kind === 'request' && reply !== undefined) {
      served.connection.deliverRequest(classified.message, reply, answerCodec(headers, decoded.codec, this.allowed.msgpack), this.allowed.claims && headers.get(NatsHeader.acceptClaim) !== undefined, undefined, auth);
      return;
    }
    // Notifications, answers to server requests, and whatever the session itself should refuse.
    served.connection.deliver(decoded.value, auth);
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
      const owned = await this.owns(sessionId);
      // Cannot tell: keep serving rather than drop a session that may well be ours, and read the record again later.
      if (owned === undefined) this.recheck(sessionId);
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
   * Whether this process owns `sessionId` by its record: `false` when another process does or the record is gone,
   * `undefined` when it cannot be read.
   */
  private async owns(sessionId: string): Promise<boolean | undefined> {
    if (this.records === undefined) return true;
    try {
      return (await this.records.get(sessionId))?.record.owner === this.host.processId;
    } catch {
      return undefined;
    }
  }

  /** Reads `sessionId`'s record again after a pause (the `attempt`-th), and lets the session go if it is not ours. */
  private recheck(sessionId: string, attempt = 0): void {
    if (attempt === 0 && this.rechecks.has(sessionId)) return;
    const pause = RECORD_RECHECK_PAUSES_MS[attempt];
    if (pause === undefined) {
      this.rechecks.delete(sessionId);
      this.warn({ sessionId, kind: 'not-confirmed', message: 'its record could not be read when its ownership was to be confirmed (after a NATS reconnection, a claim or a takeover notice); it is still served here, though another process may have taken it over meanwhile' });
      return;
    }
    this.rechecks.set(sessionId, this.host.clock.setTimeout(() => {
      void (async () => {
        if (!this.sessions.has(sessionId)) return void this.rechecks.delete(sessionId);
        const owned = await this.owns(sessionId);
        // Let go (or closed) meanwhile: its timer is gone with it.
        if (!this.rechecks.has(sessionId)) return;
        if (owned === undefined) return this.recheck(sessionId, attempt + 1);
        this.rechecks.delete(sessionId);
        if (!owned) this.letGo(sessionId);
      })();
    }, pause));
  }

  /**
   * Stops serving a session another process owns now (its record untouched): the session subject's subscription
   * goes, so its messages reach the owner only, and what was held here for it goes on to the owner.
   */
  private letGo(sessionId: string): void {
    this.rechecks.get(sessionId)?.cancel();
    this.rechecks.delete(sessionId);
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
    const writing = this.stateWrites.get(sessionId);
    if (writing === undefined) close();
    else void writing.then(close);
    const held = this.fence?.get(sessionId);
    if (held === undefined) return;
    this.fence?.delete(sessionId);
    for (const msg of held) this.passOn(sessionId, msg);
  }

  /** Tells `owner` that this process took `sessionId` over from it. */
  private tellTaken(owner: string, sessionId: string): void {
    try {
      this.host.connection.publish(this.subjects.taken(owner), encoder.encode(sessionId));
    } catch {
      // The connection went away: the owner, if alive, finds the record naming this process when it reconnects.
    }
  }

  private hold(fence: Map<string, Msg[]>, sessionId: string, msg: Msg): void {
    let held = fence.get(sessionId);
    if (held === undefined) fence.set(sessionId, (held = []));
    if (held.length >= MAX_HELD) {
      const reply = replyOf(msg);
      if (reply !== undefined) refuse(this.host.connection, reply, decodeBody(msg, this.maxMessageBytes).codec, undefined, ErrorCode.InternalError, 'The session is being re-checked after a NATS reconnection; retry the request');
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

  /** Only "no responders" proves the owner gone; a slow answer is not a death. */
  /**
   * Whether the owner is alive. "No responders" is believed only when a second ping, `OWNER_RECHECK_MS` later,
   * says it again: right after a NATS restart every process reconnects at once, and an owner whose subscriptions
   * are not back yet would otherwise be taken from although it is about to confirm its sessions (both would then
   * serve one session).
   */
  private async ownerAlive(owner: string): Promise<boolean> {
    if (await this.ownerAnswers(owner)) return true;
    await new Promise<void>((resolve) => this.host.clock.setTimeout(resolve, OWNER_RECHECK_MS));
    return this.ownerAnswers(owner);
  }

  private async ownerAnswers(owner: string): Promise<boolean> {
    try {
      await this.host.connection.request(this.subjects.ping(owner), new Uint8Array(0), { timeout: this.ownerPingMs });
      return true;
    } catch (error) {
      return !isNoRespondersError(error);
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

function isEmpty(state: PortableSessionState): boolean {
  return (state.subscriptions?.length ?? 0) === 0 && state.logLevel === undefined;
}

function describe(state: PortableSessionState): string {
  return `${state.subscriptions?.length ?? 0} resource subscription(s), log level ${state.logLevel ?? 'unset'}`;
}

/** What `restored` lacks of `expected`, in words, or `undefined` when it lacks nothing. */
function lostState(expected: PortableSessionState, restored: PortableSessionState): string | undefined {
  const kept = new Set(restored.subscriptions ?? []);
  const missing = (expected.subscriptions ?? []).filter((uri) => !kept.has(uri)).length;
  const lost = [
    ...(missing === 0 ? [] : [`${missing} resource subscription(s)`]),
    ...(expected.logLevel !== undefined && restored.logLevel !== expected.logLevel ? [`log level ${expected.logLevel}`] : []),
  ];
  return lost.length === 0 ? undefined : lost.join(', ');
}

function idOf(value: unknown): RequestId | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const id = (value as Record<string, unknown>)['id'];
  return isRequestId(id) ? id : undefined;
}
