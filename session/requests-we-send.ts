/**
 * The requests a session sends: their ids, the table of those awaiting the peer's answer (responses and
 * progress are routed to them by id), the one timer that times them out (actors/request-deadlines.ts: made
 * while something waits with a deadline, gone when the table empties), and the starts that wait for the
 * handshake to complete (a server's own requests before `notifications/initialized`), in a bounded list.
 */
import { DeadlineSweep } from '../actors/request-deadlines.ts';
import type { Clock } from '../core/clock.ts';
import { LocalError } from '../core/errors.ts';
import { LazyTable } from '../core/lazy-table.ts';
import type { RequestId } from '../core/jsonrpc.ts';
import type { PendingRequest } from '../actors/session-context.ts';

export class RequestsWeSend {
  /** Empty while nothing awaits an answer (an idle session's state): no Map then. */
  readonly pending = new LazyTable<RequestId, PendingRequest>();
  private lastId = 0;
  private deferred: Array<() => void> | undefined;
  /** Only while a request waits with a deadline: an idle session holds neither the sweep nor its timer. */
  private sweep: DeadlineSweep | undefined;

  nextId(): number {
    return ++this.lastId;
  }

  /** A request in the table has its deadline set or moved to `deadline` (finite), on `clock`. */
  watchDeadline(deadline: number, clock: Clock): void {
    (this.sweep ??= new DeadlineSweep(clock, this.pending)).watch(deadline);
  }

  /** A request got its outcome: it leaves the table, and with the last one the sweep and its timer go. */
  settle(id: RequestId): void {
    this.pending.delete(id);
    if (this.pending.size === 0) this.stopSweep();
  }

  /** Whether a deadline timer is armed (the specs' view of "an idle session holds no timer"). */
  get sweeping(): boolean {
    return this.sweep?.armed ?? false;
  }

  private stopSweep(): void {
    this.sweep?.stop();
    this.sweep = undefined;
  }

  /** Whether something waits for the handshake. */
  get hasDeferred(): boolean {
    return this.deferred !== undefined;
  }

  /** Holds `start` until {@link releaseDeferred}; an error when `maxDeferred` already wait. */
  defer(start: () => void, maxDeferred: number): LocalError | undefined {
    const deferred = (this.deferred ??= []);
    if (deferred.length >= maxDeferred) {
      return new LocalError('QueueFull', `Too many requests wait for the handshake: at most ${maxDeferred} may (maxDeferredRequests)`);
    }
    deferred.push(start);
    return undefined;
  }

  cancelDeferred(start: () => void): void {
    const index = this.deferred?.indexOf(start) ?? -1;
    if (index >= 0) this.deferred?.splice(index, 1);
  }

  /** The handshake completed: what waited for it starts, in order. */
  releaseDeferred(): void {
    const deferred = this.deferred;
    this.deferred = undefined;
    if (deferred !== undefined) for (const start of deferred) start();
  }

  /**
   * The session ends: nothing waits for the handshake any more, and the table is emptied. Returns what awaited
   * an answer, for the caller to fail once everything else in flight has ended.
   */
  takeAll(): readonly PendingRequest[] {
    this.deferred = undefined;
    this.stopSweep();
    if (this.pending.size === 0) return [];
    const pending = [...this.pending.values()];
    this.pending.clear();
    return pending;
  }
}
