/**
 * How a session ends, either way: closed by its owner (new requests are refused, running ones may drain for a
 * while and what still runs then is answered with an error naming the deadline, queued frames get a moment to
 * flush, then the transport closes) or by its transport going away (nothing can be written any more: everything
 * in flight ends at once). It keeps why the session ended, for `closed` and `onClosed`.
 *
 * The order and the deadlines are the lifecycle machine's (machines/session-lifecycle.ts: `shuttingDown` with its
 * `drainDeadline` and `flushDeadline` delays, scheduled on the session's clock by the executor). What is here is
 * what its closing actions do, and the two early ends it waits for: the last running request ending (DRAINED) and
 * the writer's queue emptying (FLUSHED). Both are told, never polled.
 */
import type { Clock } from '../core/clock.ts';
import { ErrorCode } from '../core/error-codes.ts';
import { LocalError } from '../core/errors.ts';
import type { RequestId } from '../core/jsonrpc.ts';
import type { Role } from '../core/protocol/methods.ts';
import type { RunningRequest } from '../actors/session-context.ts';
import type { OutboundWriter } from '../actors/outbound-writer.ts';
import { type LifecycleDelay, type LifecycleEvent, type LifecycleState, lifecycleDelayDefaults } from '../machines/session-lifecycle.ts';
import type { RequestsWeSend } from './requests-we-send.ts';
import type { RunningRequests } from './running-requests.ts';
import type { CloseOptions } from './session-types.ts';

/** What closing needs from the session it closes. */
export interface ClosingHost {
  readonly role: Role;
  readonly clock: Clock;
  readonly state: LifecycleState;
  readonly writer: OutboundWriter;
  readonly incoming: RunningRequests<RequestId, RunningRequest>;
  readonly sent: RequestsWeSend;
  readonly keepaliveRunning: boolean;
  step(event: LifecycleEvent): void;
  stopKeepalive(): void;
  closeTransport(reason: LocalError | undefined): Promise<void>;
}

export class SessionClosing {
  /** Why the session ended (undefined: an orderly close). */
  reason: LocalError | undefined;
  /** The transport is gone: nothing may be written, not even what ending in-flight work would send. */
  transportGone = false;
  private closing: Promise<void> | undefined;
  private options: CloseOptions | undefined;
  private settleClosed: (() => void) | undefined;

  constructor(private readonly host: ClosingHost) {}

  close(options: CloseOptions): Promise<void> {
    this.closing ??= this.shutDown(options);
    return this.closing;
  }

  /** The transport ended (`error`: it failed, and said why). */
  transportEnded(error: LocalError | undefined): void {
    const host = this.host;
    if (host.state === 'closed') return;
    this.transportGone = true;
    this.reason ??= error;
    // An error is built only when something is in flight to receive it (a stateless connection ends per request).
    if (host.incoming.size > 0 || host.sent.pending.size > 0 || host.keepaliveRunning || host.sent.hasDeferred) {
      this.endInFlight(error ?? new LocalError('ConnectionClosed', 'The connection closed'));
    }
    host.step({ type: 'TRANSPORT_CLOSED' });
  }

  /** The length of a closing delay of the machine: the close options', else the machine's default. */
  delayOf(name: LifecycleDelay): number {
    const given = name === 'drainDeadline' ? this.options?.drainMs : this.options?.flushMs;
    return given ?? lifecycleDelayDefaults[name];
  }

  /** The session reached `closed`: a close waiting for it goes on. */
  closedNow(): void {
    this.host.incoming.onEmptied = undefined;
    this.settleClosed?.();
    this.settleClosed = undefined;
  }

  private async shutDown(options: CloseOptions): Promise<void> {
    const host = this.host;
    if (host.state === 'closed') return;
    this.reason ??= options.reason;
    this.options = options;
    const closed = new Promise<void>((resolve) => (this.settleClosed = resolve));
    // From here the machine leads: signalShutdown, the drain, the answers to what still runs, the flush, the end.
    host.step({ type: 'CLOSE' });
    // Nothing to wait for closes at once (the step ran the whole way); else the machine's deadlines or the early ends.
    if (!this.isClosed()) await closed;
    await host.closeTransport(options.reason);
  }

  private isClosed(): boolean {
    return this.host.state === 'closed';
  }

  // --- what the machine's closing actions do -------------------------------------------------------------

  /** DRAINED at once when nothing runs or there is no time to wait; else once the last running request ended. */
  awaitDrain(): void {
    const host = this.host;
    if (this.delayOf('drainDeadline') <= 0 || host.incoming.size === 0) return host.step({ type: 'DRAINED' });
    // Told after the request that ended has sent its answer (it leaves the table first).
    host.incoming.onEmptied = () => queueMicrotask(() => host.step({ type: 'DRAINED' }));
  }

  /** The writer's queue emptied: a flush waiting for it is over (told after the writer is done with its step). */
  queueEmptied(): void {
    queueMicrotask(() => this.host.step({ type: 'FLUSHED' }));
  }

  /**
   * Every request still running when the drain time is over gets its one answer: an error naming it and the
   * deadline, instead of the silence a cancelled request gets.
   */
  answerUnfinished(): void {
    const incoming = this.host.incoming;
    incoming.onEmptied = undefined;
    if (incoming.size === 0) return;
    const drainMs = this.delayOf('drainDeadline');
    const running = [...incoming];
    incoming.clear();
    for (const [id, request] of running) {
      const message = `The ${this.host.role} shut down before ${request.method} (request ${JSON.stringify(id)}) finished: the shutdown deadline of ${drainMs} ms passed`;
      request.abandon(new LocalError('ConnectionClosed', message), { code: ErrorCode.InternalError, message, data: { shutdown: true, deadlineMs: drainMs } });
    }
  }

  /** FLUSHED at once when the writer holds nothing, may not wait, or the peer is the reason (a slow consumer). */
  awaitFlush(): void {
    const host = this.host;
    if (this.reason?.code === 'SlowConsumer' || host.writer.queued === 0 || this.delayOf('flushDeadline') <= 0) host.step({ type: 'FLUSHED' });
  }

  /** The machine's `endInFlight`: what is still in flight ends with why the session closed; then ENDED. */
  endInFlightOnClose(): void {
    this.endInFlight(this.reason ?? new LocalError('ConnectionClosed', 'The session was closed'));
    this.host.step({ type: 'ENDED' });
  }

  /** Ends everything in flight: running handlers are aborted, waiting requests fail. Idempotent. */
  private endInFlight(reason: LocalError): void {
    const host = this.host;
    host.stopKeepalive();
    // Both tables are emptied first: what ending one request triggers (a nested request's cancel) finds nothing.
    const pending = host.sent.takeAll();
    const running = [...host.incoming.values()];
    host.incoming.clear();
    for (const request of running) request.cancel(reason);
    const failure = reason.code === 'ConnectionClosed' ? reason : new LocalError('ConnectionClosed', reason.message, { cause: reason });
    for (const request of pending) request.fail(failure);
  }
}
