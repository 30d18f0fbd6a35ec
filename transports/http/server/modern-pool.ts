/**
 * The connections that serve modern-era (2026-07-28) POSTs. Making a server session per POST (its lifecycle
 * actor, its subjects, its router) and tearing it down costs more than the request; so, as NATS lanes do, a few
 * long-lived connections serve many POSTs, each POST an exchange of its own.
 * - A connection belongs to one caller (the principal of the frame origin): requests of different callers never
 *   share one, so neither their ids nor their cancellations can meet.
 * - Request ids are unique per client only: a POST goes to a connection of its caller where its id is not in
 *   flight (and that holds fewer than {@link PER_CONNECTION} POSTs); if there is none, a new one is accepted.
 * - Connections are bounded by the endpoint's `maxSessions`; past it, a POST gets a one-shot connection that
 *   ends with its answer (the cost of the era before pooling, never a refusal the server would not make).
 * - A new connection is only made when the server takes one (`refusal()`, then `accept`): a full server still
 *   answers 503. Idle connections are closed first, so the place they hold goes to whoever asked.
 * - A connection with nothing in flight for {@link POOL_IDLE_MS} closes (one sweep timer for the pool, on the
 *   endpoint's clock, only while it holds connections). A burst that opened several connections for one caller
 *   shrinks back as it ends: a connection whose last POST ended closes at once while another of the caller's
 *   connections is idle too, so each caller keeps at most one idle connection.
 */
import type { Clock, TimerHandle } from '../../../core/clock.ts';
import type { LocalError } from '../../../core/errors.ts';
import type { RequestId } from '../../../core/jsonrpc.ts';
import type { FrameOrigin, SessionAcceptorPort } from '../../../core/transport.ts';
import { PooledConnection } from './pooled-connection.ts';

/** How long a pooled connection with nothing in flight stays open. */
export const POOL_IDLE_MS = 60_000;
/**
 * POSTs one pooled connection carries at once: well under a session's default `maxIncomingInFlight` (256), so a
 * burst spreads over a few sessions rather than meeting that refusal.
 */
const PER_CONNECTION = 64;

type Handle = ReturnType<SessionAcceptorPort['accept']>;

export interface ModernPoolOptions {
  readonly server: SessionAcceptorPort;
  readonly clock: Clock;
  /** Pooled connections at most (the endpoint's `maxSessions`). */
  readonly maxConnections: number;
}

export class ModernPool {
  private readonly byPrincipal = new Map<string | undefined, PooledConnection[]>();
  private readonly handles = new Map<PooledConnection, Handle>();
  /** Every connection open now, pooled or one-shot (closed with the endpoint). */
  private readonly live = new Set<PooledConnection>();
  private nextExchange = 0;
  private sweep: TimerHandle | undefined;

  constructor(private readonly options: ModernPoolOptions) {}

  /** Pooled connections open now. */
  get size(): number {
    return this.handles.size;
  }

  /** A fresh exchange key for a POST. */
  exchange(): number {
    return ++this.nextExchange;
  }

  /**
   * A connection of `origin`'s caller on which `id` is free, accepted if there is none; or the server's reason
   * to refuse a new one. `accept` may still throw (a server that refuses without saying so beforehand).
   */
  connectionFor(origin: FrameOrigin | undefined, id: RequestId): PooledConnection | LocalError | Promise<PooledConnection | LocalError> {
    // The usual case answers at once: a connection of the caller's is open and the id is free on it.
    const found = this.existing(origin?.principal, id);
    if (found !== undefined) return found;
    const refusal = this.options.server.refusal?.();
    if (refusal === undefined) return this.open(origin);
    // The place may be held by a connection of the pool that does nothing: let it go, then ask again.
    if (this.handles.size === 0) return refusal;
    return this.closeIdle(0).then((closed) => (closed ? this.options.server.refusal?.() : refusal) ?? this.open(origin));
  }

  /**
   * Closes pooled connections with nothing in flight for `idleMs` or longer; true when it closed any (settled once
   * they are closed).
   */
  async closeIdle(idleMs = POOL_IDLE_MS): Promise<boolean> {
    const cutoff = this.options.clock.now() - idleMs;
    const idle = [...this.handles].filter(([connection]) => connection.inFlight === 0 && connection.lastActive <= cutoff);
    await Promise.all(idle.map(([, handle]) => handle.close().catch(() => undefined)));
    return idle.length > 0;
  }

  /** Closes every connection still open (after the endpoint's graceful close drained them). */
  async closeAll(reason: LocalError): Promise<void> {
    this.stopSweeping();
    await Promise.all(Array.from(this.live, (connection) => connection.close(reason)));
  }

  private existing(principal: string | undefined, id: RequestId): PooledConnection | undefined {
    const connections = this.byPrincipal.get(principal);
    if (connections === undefined) return undefined;
    for (const connection of connections) {
      if (connection.inFlight >= PER_CONNECTION || !connection.takes(id)) continue;
      if (this.takesRequests(connection)) return connection;
    }
    return undefined;
  }

  private open(origin: FrameOrigin | undefined): PooledConnection {
    const pooled = this.handles.size < this.options.maxConnections;
    const connection = new PooledConnection(origin, this.options.clock, !pooled);
    this.live.add(connection);
    connection.whenClosed(() => this.forget(connection));
    let handle: Handle;
    try {
      handle = this.options.server.accept(connection, { knownEra: 'modern' });
    } catch (error) {
      // Refused after all (the router answers 503 for a session limit): nothing is kept.
      void connection.close();
      throw error;
    }
    if (!pooled || connection.isClosed || handle.state === 'closed') return connection;
    connection.onIdle = (idle) => this.shrink(idle);
    const principal = origin?.principal;
    const connections = this.byPrincipal.get(principal);
    if (connections === undefined) this.byPrincipal.set(principal, [connection]);
    else connections.push(connection);
    this.handles.set(connection, handle);
    this.startSweeping();
    return connection;
  }

  /** Whether the connection takes new requests: a session draining (the endpoint, the server or the pool closing it) does not. */
  private takesRequests(connection: PooledConnection): boolean {
    const state = this.handles.get(connection)?.state;
    return !connection.isClosed && state !== 'shuttingDown' && state !== 'closed';
  }

  /** `idle` has nothing in flight: it closes when another connection of its caller is idle as well. */
  private shrink(idle: PooledConnection): void {
    if (idle.inFlight !== 0 || idle.isClosed) return;
    const others = this.byPrincipal.get(idle.principal);
    if (others === undefined || !others.some((other) => other !== idle && other.inFlight === 0 && this.takesRequests(other))) return;
    const handle = this.handles.get(idle);
    if (handle !== undefined) void handle.close().catch(() => undefined);
  }

  private forget(connection: PooledConnection): void {
    this.live.delete(connection);
    if (!this.handles.delete(connection)) return;
    const principal = connection.principal;
    const connections = this.byPrincipal.get(principal);
    if (connections !== undefined) {
      const at = connections.indexOf(connection);
      if (at >= 0) connections.splice(at, 1);
      if (connections.length === 0) this.byPrincipal.delete(principal);
    }
    if (this.handles.size === 0) this.stopSweeping();
  }

  private startSweeping(): void {
    this.sweep ??= this.options.clock.setInterval(() => void this.closeIdle(), POOL_IDLE_MS / 4);
  }

  private stopSweeping(): void {
    this.sweep?.cancel();
    this.sweep = undefined;
  }
}
