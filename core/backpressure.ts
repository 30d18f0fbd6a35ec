/**
 * What a session does when its peer stops reading. Every session's outbound frames go through one bounded
 * queue (see actors/outbound-writer.ts); this decides what happens as it fills.
 *
 * - `close` (the default): the session is dropped with a `SlowConsumer` error once the queue overflows
 *   (`maxOutboundQueue` frames) or stays slow for `stallTimeoutMs`. Producers are never held back.
 * - `pause`: once `slowAfterFrames` frames wait, producers that ask (`context.whenWritable()`) wait until the
 *   queue has drained to half that, and progress reports still waiting are merged into the latest one per
 *   request. A producer that does not ask still meets the hard bound, and a peer that stays stalled for
 *   `stallTimeoutMs` still gets the session dropped: memory stays bounded whatever the handler does.
 *
 * Either way the session reports `slow` when `slowAfterFrames` frames wait and `flowing` once it drained.
 */
export type BackpressurePolicy = 'close' | 'pause';

export interface BackpressureOptions {
  readonly policy?: BackpressurePolicy;
  /** Frames waiting for the transport at which the peer counts as a slow consumer (default 64). */
  readonly slowAfterFrames?: number;
  /** How long a slow peer may read nothing before the session is dropped (default 60 s; `Infinity` never). */
  readonly stallTimeoutMs?: number;
}

export interface Backpressure {
  readonly policy: BackpressurePolicy;
  readonly slowAfterFrames: number;
  /** The queue length at which a slow peer counts as flowing again (half of `slowAfterFrames`). */
  readonly flowingBelowFrames: number;
  readonly stallTimeoutMs: number;
}

export const defaultBackpressure: Backpressure = Object.freeze({
  policy: 'close',
  slowAfterFrames: 64,
  flowingBelowFrames: 32,
  stallTimeoutMs: 60_000,
});

/** Resolved once per options object: every session of a server shares the same one. */
const resolvedByOptions = new WeakMap<BackpressureOptions, Backpressure>();

export function resolveBackpressure(options: BackpressureOptions | undefined): Backpressure {
  if (options === undefined) return defaultBackpressure;
  let found = resolvedByOptions.get(options);
  if (found === undefined) resolvedByOptions.set(options, (found = resolveOnce(options)));
  return found;
}

function resolveOnce(options: BackpressureOptions): Backpressure {
  const slowAfterFrames = options.slowAfterFrames ?? defaultBackpressure.slowAfterFrames;
  if (!Number.isInteger(slowAfterFrames) || slowAfterFrames < 1) throw new RangeError(`slowAfterFrames must be a positive integer; got ${slowAfterFrames}`);
  const stallTimeoutMs = options.stallTimeoutMs ?? defaultBackpressure.stallTimeoutMs;
  if (!(stallTimeoutMs > 0)) throw new RangeError(`stallTimeoutMs must be positive (Infinity: never); got ${stallTimeoutMs}`);
  return Object.freeze({
    policy: options.policy ?? defaultBackpressure.policy,
    slowAfterFrames,
    flowingBelowFrames: Math.floor(slowAfterFrames / 2),
    stallTimeoutMs,
  });
}

/** A session's flow as its peer reads (or does not read) what it sends. */
export type FlowStatus =
  /** `queued` frames wait for the transport: the peer is not keeping up. */
  | { readonly type: 'slow'; readonly queued: number }
  /** The queue drained: the peer keeps up again. */
  | { readonly type: 'flowing' };
