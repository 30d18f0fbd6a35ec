/**
 * A session host: the one owner of every live session a server accepts in this process. It refuses sessions
 * past a maximum (clearly, before any work is done for them), closes sessions that sat idle too long, gives
 * every session the same backpressure policy, closes them all on demand, and reports what it holds as a
 * stream of metrics and of slow-consumer events.
 *
 * The host costs its sessions nothing per session beyond one set entry: idle expiry is one sweep timer for all
 * of them (reading each session's last-activity time), metrics are computed when sampled, and flow and close
 * reports arrive through one shared function each.
 */
import { Observable, Subject } from 'rxjs';
import type { BackpressureOptions, FlowStatus } from '../core/backpressure.ts';
import { type Clock, type TimerHandle, systemClock } from '../core/clock.ts';
import { LocalError } from '../core/errors.ts';
import type { SessionAcceptorPort, Transport } from '../core/transport.ts';
import type { McpServer } from './server-api.ts';
import type { CloseOptions, McpSession, SessionRuntimeOptions } from '../session/session-core.ts';

export interface SessionHostOptions {
  /** Live sessions at most; another is refused with a `SessionLimit` error (default 10,000). */
  readonly maxSessions?: number;
  /**
   * A session that received nothing and had nothing in flight for this long is closed with an `IdleTimeout`
   * error (default 30 min; `Infinity`: never). Clients that want to stay connected while quiet send pings.
   */
  readonly idleTimeoutMs?: number;
  /** How often idle sessions are looked for (default a quarter of the idle timeout, at most 30 s). */
  readonly sweepIntervalMs?: number;
  /** What every session does when its peer stops reading (see core/backpressure.ts). */
  readonly backpressure?: BackpressureOptions;
  /** How often `metrics$` emits (default 1 s). */
  readonly metricsIntervalMs?: number;
  /** Runtime options for every session (limits, keepalive), under the host's own. */
  readonly session?: SessionRuntimeOptions;
  readonly clock?: Clock;
}

/** A sample of what the host holds, and totals since it started. */
export interface HostMetrics {
  /** On the host's clock. */
  readonly at: number;
  readonly liveSessions: number;
  /** Requests in flight over all sessions, both ways. */
  readonly inFlightRequests: number;
  /** Outbound frames waiting for their transports, over all sessions. */
  readonly queuedFrames: number;
  /** Sessions whose peers are not keeping up now. */
  readonly slowConsumers: number;
  readonly accepted: number;
  /**
   * Sessions refused (the host full or closed), and requests its media refused before any session took them (a
   * Host or Origin not allowed, a body too large, an unknown session id...; see `SessionAcceptorPort.noteRefusal`).
   */
  readonly refused: number;
  /** Closed for idling. */
  readonly expired: number;
  /** Dropped because their peers stopped reading (`SlowConsumer`). */
  readonly dropped: number;
  /** Closed for any reason (including the expired and the dropped). */
  readonly closed: number;
}

export type HostEvent =
  | { readonly type: 'slow'; readonly session: McpSession; readonly queued: number }
  | { readonly type: 'flowing'; readonly session: McpSession }
  | { readonly type: 'dropped'; readonly session: McpSession; readonly reason: LocalError }
  | { readonly type: 'expired'; readonly session: McpSession }
  /** A session or a request refused; `status` is the medium's answer, when a medium refused it (HTTP: its status). */
  | { readonly type: 'refused'; readonly reason: LocalError; readonly status?: number };

type AcceptOptions = NonNullable<Parameters<SessionAcceptorPort['accept']>[1]>;

export interface SessionHost extends SessionAcceptorPort {
  /**
   * Serves one client on `transport`. Throws a `SessionLimit` {@link LocalError} (after closing the transport
   * with it) when the host is full or closed.
   */
  accept(transport: Transport, options?: AcceptOptions & SessionRuntimeOptions): McpSession;
  /** Why a new session would be refused now, if it would be (media check it before doing any work). */
  refusal(): LocalError | undefined;
  /** Counts a refusal a medium made before any session took the request (`metrics().refused`, a `refused` event). */
  noteRefusal(reason: LocalError, status?: number): void;
  /** The sessions open now. */
  readonly sessions: ReadonlySet<McpSession>;
  /** The figures now. */
  metrics(): HostMetrics;
  /** The figures now, then every `metricsIntervalMs`. */
  readonly metrics$: Observable<HostMetrics>;
  /** Slow consumers, their recovery, sessions dropped or expired, sessions refused. */
  readonly events$: Observable<HostEvent>;
  /** Closes every session open now (the host keeps accepting). */
  closeAll(options?: CloseOptions): Promise<void>;
  /**
   * Shuts down gracefully: refuses new sessions at once, closes every session with `options` (`drainMs`
   * defaults to 10 s here: each session refuses new requests, lets the running ones finish that long, answers
   * the rest with an error naming the deadline and flushes), then stops the host's timers.
   */
  close(options?: CloseOptions): Promise<void>;
}

/** How long a closing host lets requests in flight finish, unless told otherwise. */
const DEFAULT_DRAIN_MS = 10_000;

interface Totals {
  accepted: number;
  refused: number;
  expired: number;
  dropped: number;
  closed: number;
}

export function createSessionHost(server: McpServer, options: SessionHostOptions = {}): SessionHost {
  const clock = options.clock ?? systemClock;
  const maxSessions = options.maxSessions ?? 10_000;
  const idleTimeoutMs = options.idleTimeoutMs ?? 30 * 60_000;
  const metricsIntervalMs = options.metricsIntervalMs ?? 1_000;
  if (!Number.isInteger(maxSessions) || maxSessions < 1) throw new RangeError(`maxSessions must be a positive integer; got ${maxSessions}`);
  if (!(idleTimeoutMs > 0)) throw new RangeError(`idleTimeoutMs must be positive (Infinity: never); got ${idleTimeoutMs}`);
  const sweepIntervalMs = options.sweepIntervalMs ?? Math.max(10, Math.min(idleTimeoutMs / 4, 30_000));
  const sessions = new Set<McpSession>();
  const events$ = new Subject<HostEvent>();
  const totals: Totals = { accepted: 0, refused: 0, expired: 0, dropped: 0, closed: 0 };
  let sweep: TimerHandle | undefined;
  let closed = false;

  const onClosed = (session: McpSession, reason: LocalError | undefined): void => {
    if (!sessions.delete(session)) return;
    totals.closed += 1;
    if (reason?.code === 'SlowConsumer') {
      totals.dropped += 1;
      events$.next({ type: 'dropped', session, reason });
    }
    if (sessions.size === 0) stopSweeping();
  };
  const onFlow = (session: McpSession, status: FlowStatus): void => {
    events$.next(status.type === 'slow' ? { type: 'slow', session, queued: status.queued } : { type: 'flowing', session });
  };
  // One runtime object for every session: the host's hooks over the user's.
  const userRuntime = options.session ?? {};
  const runtime: SessionRuntimeOptions = {
    ...userRuntime,
    ...(options.backpressure === undefined ? {} : { backpressure: options.backpressure }),
    onClosed: userRuntime.onClosed === undefined ? onClosed : (session, reason) => {
      onClosed(session, reason);
      userRuntime.onClosed?.(session, reason);
    },
    onFlow: userRuntime.onFlow === undefined ? onFlow : (session, status) => {
      onFlow(session, status);
      userRuntime.onFlow?.(session, status);
    },
  };

  function refusal(): LocalError | undefined {
    if (closed) return new LocalError('SessionLimit', 'This server is shutting down and takes no new sessions');
    if (sessions.size >= maxSessions) return new LocalError('SessionLimit', `This server holds its maximum of ${maxSessions} sessions; retry later`);
    return undefined;
  }

  function startSweeping(): void {
    if (sweep !== undefined || !Number.isFinite(idleTimeoutMs)) return;
    sweep = clock.setInterval(expireIdle, sweepIntervalMs);
  }

  function stopSweeping(): void {
    sweep?.cancel();
    sweep = undefined;
  }

  function expireIdle(): void {
    const before = clock.now() - idleTimeoutMs;
    for (const session of sessions) {
      // A session already shutting down (expired by an earlier sweep, or closing anyway) is not expired again.
      if (session.lastActivityAt > before || session.inFlight > 0 || session.state === 'shuttingDown') continue;
      totals.expired += 1;
      events$.next({ type: 'expired', session });
      void session.close({ reason: new LocalError('IdleTimeout', `The session was idle for ${idleTimeoutMs} ms`) });
    }
  }

  function metrics(): HostMetrics {
    let inFlightRequests = 0;
    let queuedFrames = 0;
    let slowConsumers = 0;
    for (const session of sessions) {
      inFlightRequests += session.inFlight;
      queuedFrames += session.queuedFrames;
      if (session.isSlow) slowConsumers += 1;
    }
    return { at: clock.now(), liveSessions: sessions.size, inFlightRequests, queuedFrames, slowConsumers, ...totals };
  }

  const metrics$ = new Observable<HostMetrics>((subscriber) => {
    subscriber.next(metrics());
    const timer = clock.setInterval(() => subscriber.next(metrics()), metricsIntervalMs);
    return () => timer.cancel();
  });

  async function closeAll(closeOptions?: CloseOptions): Promise<void> {
    await Promise.all(Array.from(sessions, (session) => session.close(closeOptions)));
  }

  return {
    eras: server.eras,
    changes: server.changes,
    describe: () => server.describe(),
    missingScopes: (method, params, auth) => server.missingScopes(method, params, auth),
    noteRefusal(reason, status) {
      totals.refused += 1;
      events$.next(status === undefined ? { type: 'refused', reason } : { type: 'refused', reason, status });
    },
    accept(transport, acceptOptions) {
      const refused = refusal();
      if (refused !== undefined) {
        totals.refused += 1;
        events$.next({ type: 'refused', reason: refused });
        void transport.close(refused);
        throw refused;
      }
      const session = server.accept(transport, acceptOptions === undefined ? runtime : { ...runtime, ...acceptOptions, onClosed: runtime.onClosed, onFlow: runtime.onFlow } as SessionRuntimeOptions);
      totals.accepted += 1;
      // A transport that was already closed closes its session at once: it is not held.
      if (session.state !== 'closed') {
        sessions.add(session);
        startSweeping();
      }
      return session;
    },
    refusal,
    sessions,
    metrics,
    metrics$,
    events$: events$.asObservable(),
    closeAll,
    async close(closeOptions = {}) {
      closed = true;
      stopSweeping();
      await closeAll({ ...closeOptions, drainMs: closeOptions.drainMs ?? DEFAULT_DRAIN_MS });
      events$.complete();
    },
  };
}
