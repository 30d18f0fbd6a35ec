/**
 * Every bound the runtime enforces, in one table. Each transport, session and actor reads its limits from
 * here (merged with user overrides) so that nothing grows without a bound that someone chose.
 */
export interface Limits {
  /** Largest encoded inbound message (or stdio line) accepted, in bytes. */
  readonly maxMessageBytes: number;
  /** Frames waiting in one session's outbound writer before it refuses more. */
  readonly maxOutboundQueue: number;
  /** Incoming requests one session may run at once; more are refused with an error. */
  readonly maxIncomingInFlight: number;
  /** Outgoing requests one session may have awaiting answers at once. */
  readonly maxOutgoingInFlight: number;
  /** Default time a sent request waits for its answer, in milliseconds. */
  readonly requestTimeoutMs: number;
  /** Hard ceiling on a request's total time even when progress keeps resetting its timeout. */
  readonly maxTotalTimeoutMs: number;
  /**
   * Longest time a handler may run for one incoming request before its signal aborts and the requester gets an
   * internal error. `Infinity` disables it.
   */
  readonly handlerTimeoutMs: number;
  /** Entries in a 2025-03-26 batch. */
  readonly maxBatchSize: number;
  /** Requests deferred until the handshake completes (server requests sent before `initialized`). */
  readonly maxDeferredRequests: number;
}

export const defaultLimits: Limits = Object.freeze({
  maxMessageBytes: 4 * 1024 * 1024,
  maxOutboundQueue: 1024,
  maxIncomingInFlight: 256,
  maxOutgoingInFlight: 1024,
  requestTimeoutMs: 60_000,
  maxTotalTimeoutMs: 10 * 60_000,
  handlerTimeoutMs: 10 * 60_000,
  maxBatchSize: 128,
  maxDeferredRequests: 64,
});

export function resolveLimits(overrides?: Partial<Limits>): Limits {
  if (overrides === undefined) return defaultLimits;
  return Object.freeze({ ...defaultLimits, ...overrides });
}
