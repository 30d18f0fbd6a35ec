/**
 * Serves an MCP server over NATS (the binding is documented in docs/nats-binding.md). Every process that serves
 * the same name joins one queue group on the call subjects, so modern requests and new legacy sessions spread
 * over all of them; legacy sessions stay with their process and move when it dies; changes reach every process.
 */
import { randomBytes } from 'node:crypto';
import type { Msg, NatsConnection, Subscription } from '@nats-io/nats-core';
import { type Clock, systemClock } from '../../../core/clock.ts';
import type { Codec } from '../../../core/codecs/codec.ts';
import { ErrorCode } from '../../../core/error-codes.ts';
import { defaultLimits } from '../../../core/limits.ts';
import type { GracefulCloseOptions, SessionAcceptorPort } from '../../../core/transport.ts';
import { answerCodec } from '../body-codec.ts';
import { type ClaimCheckOptions, DEFAULT_CLAIM_BUCKET, openClaimStore } from '../claim-check.ts';
import { earlyFlushOf } from '../early-flush.ts';
import { HeaderBlocks } from '../header-blocks.ts';
import { headerOf, NatsHeader, type ReceivedHeaders, replyOf } from '../headers.ts';
import { DEFAULT_PREFIX, DEFAULT_QUEUE, serverSubjects } from '../subjects.ts';
import { connectionState } from '../connection-state.ts';
import { fanOutChanges } from './change-fanout.ts';
import { type CheckedRequest, checkCall, decodeBody, malformedRefusal, refuseRequest } from './inbound.ts';
import { createIdentityVerifier, type NatsIdentityOptions } from '../identity/identity-verifier.ts';
import { type CallerIdentity, IdentityGate, identityRefusal } from './identity-gate.ts';
import { startKeepalives } from './keepalive.ts';
import { type LaneOptions, Lanes } from './lanes.ts';
import { type LegacySessionOptions, LegacySessions } from './legacy-sessions.ts';
import type { OpenExchange, ServingHost } from './served-connection.ts';
import { type SessionRecordOptions, SessionRecords } from './session-records.ts';
import { msgpackCodecLoaded } from '../msgpack-codec.ts';
import { DEFAULT_SERVER_RECONNECT_WAIT_MS, Outbox } from './outbox.ts';
import { type Announcer, type NatsAnnounceOptions, startAnnouncer } from '../announce/announcer.ts';
import { RequestStats } from '../announce/request-stats.ts';

export interface NatsServeOptions {
  /** A connected `nats` client; the binding never closes it. */
  readonly connection: NatsConnection;
  /** The server's name: one subject token under the prefix. */
  readonly name: string;
  /** Subject prefix (default `mcp`). */
  readonly prefix?: string;
  /** Queue group of the server processes (default `mcp-servers`). */
  readonly queue?: string;
  /** Keepalive interval of requests in flight (default 5 s); clients call a request dead after `silenceMs`. */
  readonly keepaliveMs?: number;
  /** Largest decoded message accepted (default 4 MiB; NATS `max_payload` limits it first). */
  readonly maxMessageBytes?: number;
  /**
   * Legacy session records in JetStream KV so another process can take a session over (default on). `false`
   * keeps sessions in this process only (no JetStream needed).
   */
  readonly sessionRecords?: SessionRecordOptions | false;
  readonly sessions?: LegacySessionOptions;
  readonly lanes?: LaneOptions;
  /** Answer in msgpack to clients that announce they read it (default true). */
  readonly msgpack?: boolean;
  /** Oversized answers through the JetStream object store, for clients that accept them (default off). */
  readonly claimCheck?: ClaimCheckOptions | boolean;
  /**
   * Identity across NATS (docs/nats-binding.md): the public keys of the gateways whose `Mcp-Identity` assertions
   * this server believes. A verified caller reaches handlers as `ctx.auth` (and sessions, lanes and the request log
   * as its principal); an assertion that does not verify is refused with -32041, never served as anonymous.
   * Without this option any message carrying an assertion is refused (it cannot be verified).
   */
  readonly identity?: NatsIdentityOptions;
  /**
   * How long an answer, a notification or a server request sent while the NATS connection is down (nats.js
   * reconnecting) waits for it before it is given up (default 10 s; 0: given up at once). nats.js itself would
   * drop it, and the client would wait for its silence limit. Longer than the client's default: an answer is work
   * already done, and its client waits up to its `silenceMs` (30 s) for it. Bounded in count and bytes too; what
   * is given up is reported to its session (`undeliverable`) or, the session gone, as a process warning.
   */
  readonly reconnectWaitMs?: number;
  /**
   * Announce this process on the NATS services protocol (`$SRV.PING`, `INFO`, `STATS`), so `nats micro ls` and
   * `discoverNatsServers` list it with its MCP name, version, revisions, eras and catalog revision (default on;
   * docs/nats-binding.md, "Discovery"). Best effort: without permission for the `$SRV` subjects it still serves, and
   * warns once. Needs a server that describes itself (`McpServer.describe`); other acceptors are not announced.
   */
  readonly announce?: boolean | NatsAnnounceOptions;
  /** Keepalives, idle expiry of sessions and lanes, and owner re-checks run on this clock (default: the system clock). */
  readonly clock?: Clock;
  /** Time for idle expiry and keepalive due dates, when it should differ from `clock.now` (default `clock.now`). */
  readonly now?: () => number;
}

export interface NatsServing {
  /** This process's id in the binding (its ping subject, its session records' owner). */
  readonly processId: string;
  /**
   * Open legacy sessions and modern lanes here, requests in flight, and the messages waiting for the NATS
   * connection to come back (`held`, see `reconnectWaitMs`).
   */
  readonly counts: () => { readonly sessions: number; readonly lanes: number; readonly inFlight: number; readonly held: number };
  /**
   * Stops serving, gracefully. First this process stops answering the services protocol (discovery no longer
   * lists it) and leaves the call subjects' queue group (and the adopt subject's), so other processes get the new
   * work; then every lane and legacy session drains: new requests on them are refused, requests in flight run
   * for up to `drainMs` (default 10 s) and what still runs then is answered with an error naming the deadline.
   * `handover` (the default) leaves legacy sessions' records so other processes take them over at their clients'
   * next request; `end` ends them. Open listens end with their complete result. While the NATS connection is
   * down, answers wait for it until the drain's deadline, and the close never waits on NATS beyond that (a connection that is down is not drained, a flush that is
   * not answered is given up after a moment): it resolves within `drainMs` and about a second more.
   */
  close(mode?: 'handover' | 'end', options?: GracefulCloseOptions): Promise<void>;
}

/** How long requests in flight may still run once serving stops, unless told otherwise. */
export const DEFAULT_DRAIN_MS = 10_000;
/**
 * While serving stops: how long leaving the queue group (a subscription's drain: one round trip), and the last
 * flush, may wait for a NATS server that does not answer.
 */
const NATS_ROUND_TRIP_MS = 250;

export async function serveNats(acceptor: SessionAcceptorPort, options: NatsServeOptions): Promise<NatsServing> {
  const connection = options.connection;
  const subjects = serverSubjects(options.prefix ?? DEFAULT_PREFIX, options.name);
  const processId = randomBytes(8).toString('hex');
  const maxMessageBytes = options.maxMessageBytes ?? defaultLimits.maxMessageBytes;
  const eras = acceptor.eras ?? 'legacy';
  const claimOptions = options.claimCheck === true ? {} : options.claimCheck === false || options.claimCheck === undefined ? undefined : options.claimCheck;
  const clock = options.clock ?? systemClock;
  // msgpackr is an optional peer: without it this process answers in JSON whatever a client announces.
  const msgpackLoaded = (await msgpackCodecLoaded()) !== undefined;
  const host: ServingHost = {
    connection,
    processId,
    now: options.now ?? (() => clock.now()),
    clock,
    exchanges: new Map<string, OpenExchange>(),
    claims: claimOptions === undefined ? undefined : { bucket: claimOptions.bucket ?? DEFAULT_CLAIM_BUCKET, store: openClaimStore(connection, claimOptions) },
    headers: new HeaderBlocks(),
    flush: earlyFlushOf(connection),
    outbox: new Outbox(connection, clock, Math.max(0, options.reconnectWaitMs ?? DEFAULT_SERVER_RECONNECT_WAIT_MS), earlyFlushOf(connection)),
    stats: new RequestStats(),
  };
  const state = connectionState(connection);
  if (host.claims !== undefined) await host.claims.store;
  const identity = options.identity;
  const gate = new IdentityGate(identity === undefined ? undefined : createIdentityVerifier({ now: () => clock.now(), ...identity }, subjects.base), identity?.required === true);
  const records = eras === 'modern' || options.sessionRecords === false ? undefined : await SessionRecords.open(connection, options.name, options.sessionRecords ?? {});
  const lanes = new Lanes(host, acceptor, options.lanes ?? {});
  const legacy = new LegacySessions(host, acceptor, subjects, records, gate, maxMessageBytes, { claims: host.claims !== undefined, msgpack: options.msgpack !== false && msgpackLoaded }, options.sessions ?? {});
  const msgpackAllowed = options.msgpack !== false && msgpackLoaded;
  /** A checked request on a call subject, once its caller is known. */
  const serveCall = (caller: CallerIdentity, msg: Msg, reply: string, headers: ReceivedHeaders, received: Codec, request: CheckedRequest, isInitialize: boolean): void => {
    if (!caller.ok) return refuseRequest(host, reply, received, request.id, ErrorCode.IdentityRefused, identityRefusal(caller.reason));
    const codec = answerCodec(headers, received, msgpackAllowed);
    if (isInitialize && eras !== 'modern') return legacy.open(request, msg, codec, caller.auth);
    if (!isInitialize && eras === 'legacy') {
      return refuseRequest(host, reply, received, request.id, ErrorCode.InvalidRequest, 'Invalid request: this server speaks the legacy protocol era; send initialize first and then use the session');
    }
    const lane = lanes.connectionFor(headers.get(NatsHeader.lane), caller.auth);
    if (lane === undefined) return refuseRequest(host, reply, received, request.id, ErrorCode.InternalError, 'The server holds as many client lanes as it may; retry later');
    lane.deliverRequest(request, reply, codec, host.claims !== undefined && headers.get(NatsHeader.acceptClaim) !== undefined, headers.lookup, caller.auth);
  };
  /** The same, after the gate has verified the caller (kept apart so that the common path makes no closure). */
  const serveCallLater = (msg: Msg, reply: string, headers: ReceivedHeaders, received: Codec, request: CheckedRequest, isInitialize: boolean): void =>
    gate.pass(msg, (caller) => serveCall(caller, msg, reply, headers, received, request, isInitialize), headers);
  const onCall = (msg: Msg): void => {
    const reply = replyOf(msg);
    // Requests only: a message nobody can answer is dropped.
    if (reply === undefined) return;
    // Read once: the identity, lane, encodings, claim-check and mirror checks below all ask them.
    const headers = host.headers.of(msg);
    const decoded = decodeBody(msg, maxMessageBytes, headers);
    if (!decoded.ok) {
      const refusal = malformedRefusal(decoded.error);
      return refuseRequest(host, reply, decoded.codec, undefined, refusal.code, refusal.message);
    }
    const subjectMethod = msg.subject.slice(subjects.callPrefix.length);
    const isInitialize = subjectMethod === 'initialize';
    const checked = checkCall(decoded.value, subjectMethod, headers, !isInitialize);
    if (!('request' in checked)) return refuseRequest(host, reply, decoded.codec, checked.id, checked.code, checked.message);
    // An anonymous caller with nothing waiting before it is served at once; any other goes through the gate.
    const caller = gate.anonymousNow(headers);
    if (caller !== undefined) serveCall(caller, msg, reply, headers, decoded.codec, checked.request, isInitialize);
    else serveCallLater(msg, reply, headers, decoded.codec, checked.request, isInitialize);
  };

  const onCancel = (msg: Msg): void => {
    const laneId = headerOf(msg.headers, NatsHeader.lane);
    if (laneId === undefined) return;
    // A cancellation reaches only the lanes of the caller it names (an unverified one reaches none).
    gate.pass(msg, (caller) => {
      if (!caller.ok) return;
      const principal = caller.auth?.principal;
      const lane = lanes.existing(laneId, principal);
      if (lane === undefined) return;
      if (headerOf(msg.headers, NatsHeader.frame) === 'close') return lanes.close(laneId, principal);
      const decoded = decodeBody(msg, maxMessageBytes);
      if (decoded.ok) lane.deliver(decoded.value, caller.auth);
    });
  };

  const queue = options.queue ?? DEFAULT_QUEUE;
  /** Subscriptions the NATS server refused (no permission): serving does not start without them. */
  const refused: string[] = [];
  const guarded = (handle: (msg: Msg) => void) => (error: Error | null, msg: Msg): void => {
    if (error !== null) refused.push(error.message);
    else handle(msg);
  };
  // New work: left first when serving stops. The others stay while what runs here drains.
  const newWork: Subscription[] = [connection.subscribe(subjects.callWildcard, { queue, callback: guarded(onCall) })];
  if (eras !== 'modern') {
    newWork.push(connection.subscribe(subjects.adopt, { queue, callback: guarded((msg) => void legacy.adopt(msg).catch(() => undefined)) }));
  }
  const subscriptions: Subscription[] = [
    connection.subscribe(subjects.cancel, { callback: guarded(onCancel) }),
    connection.subscribe(subjects.ping(processId), { callback: guarded((msg) => msg.respond(new Uint8Array(0))) }),
  ];
  if (records !== undefined) {
    // Another process took one of this process's sessions over (this one was cut off from NATS meanwhile).
    subscriptions.push(connection.subscribe(subjects.taken(processId), { callback: guarded((msg) => void legacy.taken(msg.data).catch(() => undefined)) }));
  }
  // A legacy session's owner re-checks its sessions after every NATS reconnection (see LegacySessions).
  const stopWatching = records === undefined ? () => undefined : connectionState(connection).on((event) => {
    if (event === 'disconnect') legacy.disconnected();
    else void legacy.reconnected().catch(() => undefined);
  });
  const stopChanges = acceptor.changes === undefined ? undefined : fanOutChanges(connection, subjects.changes, processId, acceptor.changes);
  // Made with the other subscriptions, so the flush below puts them in place too; answering from when serving starts.
  const announcer: Announcer | undefined = options.announce === false || acceptor.describe === undefined ? undefined : startAnnouncer({
    connection,
    binding: options.name,
    prefix: options.prefix ?? DEFAULT_PREFIX,
    subjects,
    queue,
    eras,
    instanceId: processId,
    describe: acceptor.describe.bind(acceptor),
    stats: host.stats,
    clock,
    options: typeof options.announce === 'object' ? options.announce : {},
  });
  const keepaliveMs = options.keepaliveMs ?? 5000;
  const stopKeepalives = startKeepalives(host, keepaliveMs);
  const sweeper = clock.setInterval(() => {
    lanes.sweep();
    legacy.sweep();
  }, Math.min(keepaliveMs * 4, 30_000));
  // The subscriptions are in place at the NATS server before anyone is told this process serves (a refusal
  // comes back before the flush's answer).
  await connection.flush();
  if (refused.length > 0) {
    announcer?.stop();
    for (const subscription of [...newWork, ...subscriptions]) subscription.unsubscribe();
    host.outbox.stop();
    stopChanges?.();
    stopWatching();
    stopKeepalives();
    sweeper.cancel();
    throw new Error(`NATS refused the subscriptions serving ${subjects.base} needs: ${refused.join('; ')} (see "Permissions" in docs/nats-binding.md)`);
  }

  /** Waits for `promise`, at most `ms` (on the binding's clock). */
  const within = (promise: Promise<unknown>, ms: number): Promise<void> =>
    new Promise<void>((resolve) => {
      const timer = clock.setTimeout(resolve, ms);
      void promise.then(() => {
        timer.cancel();
        resolve();
      });
    });
  const leave = async (subscription: Subscription): Promise<void> => {
    if (connection.isClosed() || subscription.isClosed()) return;
    if (!state.down) await within(subscription.drain().catch(() => undefined), NATS_ROUND_TRIP_MS);
    if (!subscription.isClosed()) subscription.unsubscribe();
  };

  announcer?.open();

  let closed: Promise<void> | undefined;
  return {
    processId,
    counts: () => ({ sessions: legacy.size, lanes: lanes.size, inFlight: host.exchanges.size, held: host.outbox.size }),
    close(mode = 'handover', closeOptions = {}) {
      closed ??= (async () => {
        const drain = { ...closeOptions, drainMs: closeOptions.drainMs ?? DEFAULT_DRAIN_MS };
        const deadline = clock.now() + drain.drainMs;
        // Discovery stops listing this process first: nobody should pick it for new work while it leaves.
        announcer?.stop();
        // Messages already on their way to this process are still taken (drain); the queue group sends the rest
        // to the other processes. A connection that is down has nothing on its way: nats.js's drain would wait
        // for a flush that only fails at its next reconnection attempt.
        await Promise.all(newWork.map((subscription) => leave(subscription)));
        // Cancellations, pings and keepalives go on meanwhile: the requests still running are alive.
        await Promise.all([lanes.closeAll(drain), legacy.closeAll(mode === 'handover', drain)]);
        // The last answers, if the connection is down, wait for it until the drain's deadline, no longer.
        await host.outbox.settle(deadline - clock.now());
        for (const subscription of subscriptions) subscription.unsubscribe();
        stopChanges?.();
        stopWatching();
        stopKeepalives();
        sweeper.cancel();
        host.outbox.stop();
        if (!connection.isClosed() && !state.down) await within(connection.flush().catch(() => undefined), NATS_ROUND_TRIP_MS);
      })();
      return closed;
    },
  };
}
