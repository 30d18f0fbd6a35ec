/**
 * Where bucket levels live. The port ({@link BucketStore}) lets the same limits run in one process (the
 * {@link MemoryBucketStore} here, no Node needed) or shared by many through NATS JetStream KV
 * (`rxmcp/limits/nats`).
 *
 * The memory store is bounded for millions of callers: an insertion-ordered Map used as a least-recently-used
 * list. Two things keep it small:
 * - idle expiry: a bucket untouched for as long as it takes to refill is full, and a full bucket is what an
 *   absent one means, so it is dropped without changing any decision (checked on the injected clock as buckets
 *   are touched, a few at a time: no timer);
 * - a hard cap (`maxBuckets`): beyond it the least recently used bucket is dropped even if not full yet, which
 *   hands that caller a full bucket early. Such evictions are counted (`stats().evicted`) so an operator can see
 *   the cap is too small for the traffic.
 */
import { systemClock, type Clock } from '../core/clock.ts';
import type { TakeDecision, TokenBucket } from './token-bucket.ts';

/** Stores bucket levels by key and applies takes to them atomically. */
export interface BucketStore {
  /**
   * Takes `costUnits` (see {@link TokenBucket.costUnits}) from the bucket `key` of rate `bucket`, as one atomic
   * step for every process sharing the store. A store decides the unreachable case by its own policy rather
   * than rejecting (see `rxmcp/limits/nats`).
   */
  take(key: string, bucket: TokenBucket, costUnits: number): TakeDecision | Promise<TakeDecision>;
}

export interface MemoryBucketStoreOptions {
  /** The most buckets kept (default 1,000,000: about 85 bytes each plus the key, measured; see docs/limits.md). */
  readonly maxBuckets?: number;
  /** Time, for refills and idle expiry (default the system clock). */
  readonly clock?: Clock;
}

export interface MemoryBucketStoreStats {
  /** Buckets held now. */
  readonly size: number;
  /** Buckets dropped because they were full again (lossless). */
  readonly expired: number;
  /** Buckets dropped by the cap before they were full (each hands its caller a full bucket early). */
  readonly evicted: number;
}

/** One bucket's level; mutated in place so a take allocates nothing. */
interface Slot {
  units: number;
  at: number;
  /** When it is full again, so forgetting it is lossless. */
  fullAt: number;
}

/** Stale buckets looked at per take: enough to outpace insertions, small enough to keep a take O(1). */
const SWEEP_PER_TAKE = 2;

export class MemoryBucketStore implements BucketStore {
  private readonly slots = new Map<string, Slot>();
  private readonly maxBuckets: number;
  private readonly clock: Clock;
  private expiredCount = 0;
  private evictedCount = 0;

  constructor(options: MemoryBucketStoreOptions = {}) {
    const maxBuckets = options.maxBuckets ?? 1_000_000;
    if (!Number.isInteger(maxBuckets) || maxBuckets < 1) throw new RangeError(`maxBuckets is a positive integer (got ${maxBuckets})`);
    this.maxBuckets = maxBuckets;
    this.clock = options.clock ?? systemClock;
  }

  take(key: string, bucket: TokenBucket, costUnits: number): TakeDecision {
    const now = this.clock.now();
    this.sweep(now, SWEEP_PER_TAKE);
    const slot = this.slots.get(key);
    const { state, decision } = bucket.take(slot, costUnits, now);
    if (slot !== undefined) {
      // Re-inserting moves the key to the most recently used end.
      this.slots.delete(key);
      slot.units = state.units;
      slot.at = state.at;
      slot.fullAt = bucket.fullAt(state);
      this.slots.set(key, slot);
    } else if (state.units < bucket.capacityUnits) {
      // A take that leaves a new bucket full (cost 0, or refused) needs no slot.
      if (this.slots.size >= this.maxBuckets) this.evictOldest();
      this.slots.set(key, { units: state.units, at: state.at, fullAt: bucket.fullAt(state) });
    }
    return decision;
  }

  /** Drops every bucket that is full again by now (the takes do this a few at a time). */
  sweepAll(): void {
    const now = this.clock.now();
    for (const [key, slot] of this.slots) {
      if (slot.fullAt > now) continue;
      this.slots.delete(key);
      this.expiredCount += 1;
    }
  }

  stats(): MemoryBucketStoreStats {
    return { size: this.slots.size, expired: this.expiredCount, evicted: this.evictedCount };
  }

  /**
   * Drops up to `budget` buckets from the least recently used end while they are full again. The walk stops
   * at the first that is not: buckets of different rates fill at different speeds, so one may wait behind a
   * slower one until the cap or `sweepAll` reaches it; the cap bounds memory either way.
   */
  private sweep(now: number, budget: number): void {
    let left = budget;
    for (const [key, slot] of this.slots) {
      if (left <= 0 || slot.fullAt > now) return;
      this.slots.delete(key);
      this.expiredCount += 1;
      left -= 1;
    }
  }

  private evictOldest(): void {
    for (const key of this.slots.keys()) {
      this.slots.delete(key);
      this.evictedCount += 1;
      return;
    }
  }
}
