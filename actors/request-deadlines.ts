/**
 * The deadlines of the requests a session sends, kept by one timer per session instead of one per request.
 *
 * Each request keeps its own deadline (a clock instant; `Infinity`: none). The sweep's single timer is armed for
 * the earliest deadline it knows of: a request whose deadline is later costs nothing to watch (no timer is armed,
 * none cancelled when it is answered), because when the timer fires the sweep reads every request still waiting,
 * times out those due, and arms itself again for the earliest deadline left. Under load, a session whose requests
 * all wait the same time therefore arms about one timer per timeout period rather than two timer operations per
 * request.
 *
 * Exactness: a request is timed out only once the session's clock has reached its deadline (a timer that fires
 * early by the host's clock skew finds it not yet due and arms again for the rest), and the timer is armed for
 * that deadline itself, not a coarser tick, so a timeout is never early and is late only by the host's own timer
 * latency, as a timer per request was. Requests due at the same sweep time out in the order they were sent.
 *
 * An idle session holds no timer: the owner stops the sweep when its last request leaves (see
 * session/requests-we-send.ts), and a sweep that finds no deadline left does not arm again.
 */
import type { Clock, TimerHandle } from '../core/clock.ts';
import type { RequestId } from '../core/jsonrpc.ts';
import type { LazyTable } from '../core/lazy-table.ts';
import type { PendingRequest } from './session-context.ts';

/**
 * The longest wait a timer is armed for: hosts take a delay above 2^31 - 1 ms (about 24.8 days) as 1 ms, so a
 * later deadline is reached in steps of this (a sweep that finds it not yet due arms again for the rest).
 */
const MAX_TIMER_MS = 2 ** 31 - 1;

export class DeadlineSweep {
  private timer: TimerHandle | undefined;
  /** The instant the armed timer is due (meaningful only while `timer` is set). */
  private due = 0;

  constructor(
    private readonly clock: Clock,
    /** The requests awaiting answers, each with its deadline; the sweep only reads it. */
    private readonly pending: LazyTable<RequestId, PendingRequest>,
  ) {}

  /** Whether a timer is armed (for specs and the owner's bookkeeping). */
  get armed(): boolean {
    return this.timer !== undefined;
  }

  /** A request's deadline was set or moved to `deadline` (finite): the sweep comes no later than that. */
  watch(deadline: number): void {
    // An armed sweep due no later finds this deadline when it runs, and arms again for it if it is still waiting.
    if (this.timer !== undefined && this.due <= deadline) return;
    this.arm(deadline, this.clock.now());
  }

  /** Nothing waits any more: the timer goes. */
  stop(): void {
    this.timer?.cancel();
    this.timer = undefined;
  }

  private arm(deadline: number, now: number): void {
    this.timer?.cancel();
    this.due = deadline;
    this.timer = this.clock.setTimeout(() => this.sweep(), Math.min(MAX_TIMER_MS, Math.max(0, deadline - now)));
  }

  private sweep(): void {
    this.timer = undefined;
    const now = this.clock.now();
    let expired: PendingRequest[] | undefined;
    let next = Infinity;
    for (const request of this.pending.values()) {
      const deadline = request.deadline;
      if (deadline <= now) (expired ??= []).push(request);
      else if (deadline < next) next = deadline;
    }
    // Armed before the timeouts run: what they set off (answers, new requests, the last request leaving) then
    // finds the sweep in its next state, and a stop they cause is not undone.
    if (next !== Infinity) this.arm(next, now);
    if (expired !== undefined) for (const request of expired) request.expire();
  }
}
