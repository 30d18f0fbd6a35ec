/**
 * Where bucket levels live. The port ({@link BucketStore}) lets the same limits run in one process (the
 * {@link MemoryBucketStore} here, no Node needed) or shared by many through NATS JetStream KV
 * (`rxmcp/limits/nats`).
 *
 * The memory store is bounded for millions of callers. Its buckets live in typed arrays (level, instant, when
 * full again, and the links of a least-recently-used list), with a Map from key to slot: no object per bucket,
 * nothing for the garbage collector to trace but the keys. Two things keep it small:
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
  /** The most buckets kept (default 1,000,000: about 47 bytes each plus the key, measured; see docs/limits.md). */
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

/** Slots allocated at first; the arrays double as needed, up to `maxBuckets`. */
const INITIAL_SLOTS = 1024;
/** Stale buckets looked at per take: enough to outpace insertions, small enough to keep a take O(1). */
const SWEEP_PER_TAKE = 2;
/** No slot (the end of a list). */
const NONE = -1;

export class MemoryBucketStore implements BucketStore {
  private readonly slotOf = new Map<string, number>();
  private readonly maxBuckets: number;
  private readonly clock: Clock;
  private expiredCount = 0;
  private evictedCount = 0;
  // Per slot: the level (units), its instant, when it is full again (so forgetting it is lossless), its key,
  // and its neighbours in the least-recently-used list (or, for a free slot, the next free one).
  private units: Float64Array;
  private at: Float64Array;
  private fullAt: Float64Array;
  private keys: (string | undefined)[] = [];
  private older: Int32Array;
  private newer: Int32Array;
  private oldest = NONE;
  private newest = NONE;
  private firstFree = NONE;
  /** Slots ever handed out (the next never-used slot). */
  private used = 0;

  constructor(options: MemoryBucketStoreOptions = {}) {
    const maxBuckets = options.maxBuckets ?? 1_000_000;
    if (!Number.isInteger(maxBuckets) || maxBuckets < 1) throw new RangeError(`maxBuckets is a positive integer (got ${maxBuckets})`);
    this.maxBuckets = maxBuckets;
    this.clock = options.clock ?? systemClock;
    const slots = Math.min(INITIAL_SLOTS, maxBuckets);
    this.units = new Float64Array(slots);
    this.at = new Float64Array(slots);
    this.fullAt = new Float64Array(slots);
    this.older = new Int32Array(slots);
    this.newer = new Int32Array(slots);
  }

  take(key: string, bucket: TokenBucket, costUnits: number): TakeDecision {
    const now = this.clock.now();
    this.sweep(now, SWEEP_PER_TAKE);
    const slot = this.slotOf.get(key);
    const { state, decision } = bucket.take(slot === undefined ? undefined : { units: this.units[slot] as number, at: this.at[slot] as number }, costUnits, now);
    if (slot !== undefined) {
      this.write(slot, state.units, state.at, bucket.fullAt(state));
      this.unlink(slot);
      this.append(slot);
    } else if (state.units < bucket.capacityUnits) {
      // A take that leaves a new bucket full (cost 0, or refused) needs no slot.
      if (this.slotOf.size >= this.maxBuckets) {
        this.remove(this.oldest);
        this.evictedCount += 1;
      }
      const fresh = this.allocate();
      this.write(fresh, state.units, state.at, bucket.fullAt(state));
      this.keys[fresh] = key;
      this.slotOf.set(key, fresh);
      this.append(fresh);
    }
    return decision;
  }

  /** Drops every bucket that is full again by now (the takes do this a few at a time). */
  sweepAll(): void {
    const now = this.clock.now();
    let slot = this.oldest;
    while (slot !== NONE) {
      const next = this.newer[slot] as number;
      if ((this.fullAt[slot] as number) <= now) {
        this.remove(slot);
        this.expiredCount += 1;
      }
      slot = next;
    }
  }

  stats(): MemoryBucketStoreStats {
    return { size: this.slotOf.size, expired: this.expiredCount, evicted: this.evictedCount };
  }

  /**
   * Drops up to `budget` buckets from the least recently used end while they are full again. The walk stops
   * at the first that is not: buckets of different rates fill at different speeds, so one may wait behind a
   * slower one until the cap or `sweepAll` reaches it; the cap bounds memory either way.
   */
  private sweep(now: number, budget: number): void {
    for (let left = budget; left > 0 && this.oldest !== NONE && (this.fullAt[this.oldest] as number) <= now; left -= 1) {
      this.remove(this.oldest);
      this.expiredCount += 1;
    }
  }

  private write(slot: number, units: number, at: number, fullAt: number): void {
    this.units[slot] = units;
    this.at[slot] = at;
    this.fullAt[slot] = fullAt;
  }

  private append(slot: number): void {
    this.older[slot] = this.newest;
    this.newer[slot] = NONE;
    if (this.newest === NONE) this.oldest = slot;
    else this.newer[this.newest] = slot;
    this.newest = slot;
  }

  private unlink(slot: number): void {
    const older = this.older[slot] as number;
    const newer = this.newer[slot] as number;
    if (older === NONE) this.oldest = newer;
    else this.newer[older] = newer;
    if (newer === NONE) this.newest = older;
    else this.older[newer] = older;
  }

  private remove(slot: number): void {
    this.unlink(slot);
    this.slotOf.delete(this.keys[slot] as string);
    this.keys[slot] = undefined;
    this.newer[slot] = this.firstFree;
    this.firstFree = slot;
  }

  private allocate(): number {
    if (this.firstFree !== NONE) {
      const slot = this.firstFree;
      this.firstFree = this.newer[slot] as number;
      return slot;
    }
    if (this.used === this.units.length) this.grow(Math.min(this.maxBuckets, this.units.length * 2));
    const slot = this.used;
    this.used += 1;
    return slot;
  }

  private grow(slots: number): void {
    const grown = <T extends Float64Array | Int32Array>(from: T, make: (length: number) => T): T => {
      const to = make(slots);
      to.set(from);
      return to;
    };
    this.units = grown(this.units, (length) => new Float64Array(length));
    this.at = grown(this.at, (length) => new Float64Array(length));
    this.fullAt = grown(this.fullAt, (length) => new Float64Array(length));
    this.older = grown(this.older, (length) => new Int32Array(length));
    this.newer = grown(this.newer, (length) => new Int32Array(length));
  }
}
