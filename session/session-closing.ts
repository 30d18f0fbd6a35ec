/**
 * How a session ends, either way: closed by its owner (new requests are refused, running ones may drain for a
 * while and what still runs then is answered with an error naming the deadline, queued frames get a moment to
 * flush, then the transport closes) or by its transport going away (nothing can be written any more: everything
 * in flight ends at once). It keeps why the session ended, for `closed` and `onClosed`.
 */
import type { Clock } from '../core/clock.ts';
import { ErrorCode } from '../core/error-codes.ts';
import { LocalError } from '../core/errors.ts';
import type { RequestId } from '../core/jsonrpc.ts';
import type { LazyTable } from '../core/lazy-table.ts';
import type { Role } from '../core/protocol/methods.ts';
import type { RunningRequest } from '../actors/session-context.ts';
import type { OutboundWriter } from '../actors/outbound-writer.ts';
import type { LifecycleEvent, LifecycleState } from '../machines/session-lifecycle.ts';
import type { RequestsWeSend } from './requests-we-send.ts';
import type { CloseOptions } from './session-types.ts';

const DEFAULT_FLUSH_MS = 1_000;

/** What closing needs from the session it closes. */
export interface ClosingHost {
  readonly role: Role;
  readonly clock: Clock;
  readonly state: LifecycleState;
  readonly writer: OutboundWriter;
  readonly incoming: LazyTable<RequestId, RunningRequest>;
  readonly sent: RequestsWeSend;
  readonly keepaliveRunning: boolean;
  step(event: LifecycleEvent): void;
  stopKeepalive(): void;
  isWritable(): boolean;
  closeTransport(reason: LocalError | undefined): Promise<void>;
}

export class SessionClosing {
  /** Why the session ended (undefined: an orderly close). */
  reason: LocalError | undefined;
  /** The transport is gone: nothing may be written, not even what ending in-flight work would send. */
  transportGone = false;
  private closing: Promise<void> | undefined;

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

  private async shutDown(options: CloseOptions): Promise<void> {
    const host = this.host;
    if (host.state === 'closed') return;
    this.reason ??= options.reason;
    // Entering shuttingDown tells running requests (the machine's `signalShutdown`).
    host.step({ type: 'CLOSE' });
    const drainMs = options.drainMs ?? 0;
    if (drainMs > 0 && host.incoming.size > 0) await this.drain(drainMs);
    // The transport may have gone while draining: then nothing can be answered or flushed any more.
    if (host.isWritable()) {
      this.answerUnfinished(drainMs);
      if (this.reason?.code !== 'SlowConsumer') await this.flush(options.flushMs ?? DEFAULT_FLUSH_MS);
    }
    this.endInFlight(this.reason ?? new LocalError('ConnectionClosed', 'The session was closed'));
    host.step({ type: 'DRAINED' });
    await host.closeTransport(options.reason);
  }

  /** Waits until no incoming request runs, or `ms` pass. */
  private drain(ms: number): Promise<void> {
    const host = this.host;
    return this.pollUntil(() => host.incoming.size === 0 || host.state === 'closed', ms, 50);
  }

  /** Waits until the writer has handed every queued frame to the transport, or `ms` pass. */
  private flush(ms: number): Promise<void> {
    const host = this.host;
    if (host.writer.queued === 0 || ms <= 0) return Promise.resolve();
    return this.pollUntil(() => host.writer.queued === 0 || !host.isWritable(), ms, 20);
  }

  /** Resolves once `done()` holds (checked every `ms / 10`, at most `maxStepMs`) or `ms` passed, on the session's clock. */
  private pollUntil(done: () => boolean, ms: number, maxStepMs: number): Promise<void> {
    const clock = this.host.clock;
    return new Promise((resolve) => {
      const deadline = clock.setTimeout(() => {
        poll.cancel();
        resolve();
      }, ms);
      const poll = clock.setInterval(() => {
        if (!done()) return;
        poll.cancel();
        deadline.cancel();
        resolve();
      }, Math.max(1, Math.min(maxStepMs, ms / 10)));
    });
  }

  /**
   * Every request still running when the drain time is over gets its one answer: an error naming it and the
   * deadline, instead of the silence a cancelled request gets.
   */
  private answerUnfinished(drainMs: number): void {
    const incoming = this.host.incoming;
    if (incoming.size === 0) return;
    const running = [...incoming];
    incoming.clear();
    for (const [id, request] of running) {
      const message = `The ${this.host.role} shut down before ${request.method} (request ${JSON.stringify(id)}) finished: the shutdown deadline of ${drainMs} ms passed`;
      request.abandon(new LocalError('ConnectionClosed', message), { code: ErrorCode.InternalError, message, data: { shutdown: true, deadlineMs: drainMs } });
    }
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
