/**
 * Modern-era lanes. A modern request carries no session, but request ids are only unique per client, so each
 * client connection (named by its `Mcp-Lane` header) gets a stateless server connection of its own in every
 * process that serves it: ids stay apart, cancellations find their request, and a listen's subscription id is
 * the client's own request id. A request without a lane gets a one-shot connection that ends with its answer.
 * Lanes are bounded in number and close when idle.
 */
import type { AuthInfo } from '../../../core/auth.ts';
import type { Limits } from '../../../core/limits.ts';
import type { GracefulCloseOptions, SessionAcceptorPort } from '../../../core/transport.ts';
import { ServedConnection, type ServingHost } from './served-connection.ts';

export interface LaneOptions {
  /** Lanes one process keeps at once (default 10 000). */
  readonly maxLanes?: number;
  /** A lane with nothing in flight closes after this long (default 60 s). */
  readonly laneIdleMs?: number;
  /** Limits of each lane's connection (default: the server's). */
  readonly limits?: Partial<Limits>;
}

interface Lane {
  readonly connection: ServedConnection;
  readonly handle: { close(options?: GracefulCloseOptions): Promise<void> };
}

export class Lanes {
  private readonly lanes = new Map<string, Lane>();
  private readonly maxLanes: number;
  private readonly idleMs: number;

  constructor(private readonly host: ServingHost, private readonly acceptor: SessionAcceptorPort, private readonly options: LaneOptions) {
    this.maxLanes = options.maxLanes ?? 10_000;
    this.idleMs = options.laneIdleMs ?? 60_000;
  }

  get size(): number {
    return this.lanes.size;
  }

  /**
   * The lane's connection, opened on first use; undefined when the process holds as many lanes as it may. A lane
   * belongs to its caller: the same lane id with another identity is another lane (no request of one caller
   * lands among another's ids, and no cancellation crosses).
   */
  connectionFor(laneId: string | undefined, auth: AuthInfo | undefined): ServedConnection | undefined {
    const laneKey = laneId === undefined ? undefined : this.keyOf(laneId, auth?.principal);
    if (laneKey !== undefined) {
      const found = this.lanes.get(laneKey);
      if (found !== undefined && !found.connection.isClosed) return found.connection;
    }
    if (this.lanes.size >= this.maxLanes) this.sweep(0);
    if (this.lanes.size >= this.maxLanes) return undefined;
    // The server (a session host at its maximum) would refuse a new connection.
    if (this.acceptor.refusal?.() !== undefined) return undefined;
    const key = laneKey ?? `one-shot:${this.host.now()}:${Math.random()}`;
    // The connection's callbacks need the lane, which needs the connection.
    const made: { lane?: Lane } = {};
    const connection = new ServedConnection(this.host, {
      onClosed: () => {
        if (made.lane !== undefined && this.lanes.get(key) === made.lane) this.lanes.delete(key);
      },
      ...(laneId === undefined ? { onIdle: () => queueMicrotask(() => void made.lane?.handle.close()) } : {}),
      ...(auth === undefined ? {} : { auth }),
    });
    let handle: Lane['handle'];
    try {
      handle = this.acceptor.accept(connection, { knownEra: 'modern', ...(this.options.limits === undefined ? {} : { limits: this.options.limits }) });
    } catch {
      // The acceptor refused after all: no lane is kept, and the request is refused as for a full process.
      void connection.close();
      return undefined;
    }
    made.lane = { connection, handle };
    this.lanes.set(key, made.lane);
    return connection;
  }

  /** The lane of a cancellation, if this process holds it for that caller. */
  existing(laneId: string, principal: string | undefined): ServedConnection | undefined {
    return this.lanes.get(this.keyOf(laneId, principal))?.connection;
  }

  /** The client closed its connection: its lane goes once nothing is in flight on it. */
  close(laneId: string, principal: string | undefined): void {
    const lane = this.lanes.get(this.keyOf(laneId, principal));
    if (lane !== undefined && lane.connection.inFlight === 0) void lane.handle.close();
  }

  /** The key of the lane last asked for: a client's requests come in runs on its lane, so most ask for it again. */
  private last: { readonly laneId: string; readonly principal: string | undefined; readonly key: string } | undefined;

  private keyOf(laneId: string, principal: string | undefined): string {
    const last = this.last;
    if (last !== undefined && last.laneId === laneId && last.principal === principal) return last.key;
    const key = keyOf(laneId, principal);
    this.last = { laneId, principal, key };
    return key;
  }

  /** Closes lanes idle for longer than `idleMs` (the configured idle time by default). */
  sweep(idleMs = this.idleMs): void {
    const cutoff = this.host.now() - idleMs;
    for (const lane of this.lanes.values()) {
      if (lane.connection.inFlight === 0 && lane.connection.lastActive <= cutoff) void lane.handle.close();
    }
  }

  /** Closes every lane (gracefully, with `options`: see {@link GracefulCloseOptions}). */
  async closeAll(options?: GracefulCloseOptions): Promise<void> {
    await Promise.all(Array.from(this.lanes.values(), (lane) => {
      if (options !== undefined) lane.connection.answerOpenRequestsOnClose();
      return lane.handle.close(options);
    }));
  }
}

/** A lane's key: its id and its caller's principal, encoded so that no lane id a peer picks can name another's key. */
function keyOf(laneId: string, principal: string | undefined): string {
  return principal === undefined ? JSON.stringify([laneId]) : JSON.stringify([laneId, principal]);
}
