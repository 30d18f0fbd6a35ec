/**
 * The resolved settings the endpoint's parts share (options with their defaults applied, see options.ts).
 */
import type { Clock } from '../../../core/clock.ts';
import type { EventStore } from './event-store.ts';
import type { ChallengeDetails } from './protected-resource.ts';
import type { SseConnectionOptions } from './sse-connection.ts';

export interface SseSettings {
  /** `retry:` sent with priming events and on resumed connections; 0 sends none. */
  readonly retryMs: number;
  /** Prime streams of 2025-11-25 sessions (an id and empty data first). */
  readonly prime: boolean;
  /** Close request-stream connections after this long (2025-11-25 polling); undefined keeps them open. */
  readonly closeRequestStreamsAfterMs: number | undefined;
  readonly keepAliveMs: number;
  readonly drainTimeoutMs: number;
}

export interface TransportSettings {
  readonly clock: Clock;
  /** The endpoint as a protected resource, for the challenge of a 403 `insufficient_scope` answer. */
  readonly challenge: { challenge(details: ChallengeDetails): string } | undefined;
  /** Undefined when streams are not resumable (no store, or stateless). */
  readonly store: EventStore | undefined;
  readonly sse: SseSettings;
  /** What every SSE connection of the endpoint is made with (one object, shared). */
  readonly sseConnection: SseConnectionOptions;
  /**
   * The same with `maxBufferedBytes`: for the streams of modern answers, whose writes are not waited for (one
   * pooled connection carries many callers' requests).
   */
  readonly boundedSseConnection: SseConnectionOptions;
  readonly stateless: boolean;
  /**
   * Other processes serve these sessions too (`restoreSession`): a session closing here keeps its events in the
   * store, unless the client ended it (DELETE).
   */
  readonly sharedSessions: boolean;
}

/** Runs `next` on a value that may be a Promise, synchronously when it is not (the in-memory fast path). */
export function andThen<T, R>(value: T | Promise<T>, next: (value: T) => R): R | Promise<Awaited<R>> {
  return value instanceof Promise ? value.then(next) as Promise<Awaited<R>> : next(value);
}
