/**
 * The token-bucket arithmetic, pure and exact. A bucket holds up to `capacity` tokens and gains
 * `refillPerSecond` tokens a second; a request takes `cost` tokens or is refused with the wait after which it
 * would be admitted.
 *
 * Why integers: a bucket lives for hours and is updated millions of times, so fractions of tokens added in
 * floating point would drift (and two processes sharing a bucket would disagree on the last digit). Here the
 * level is counted in micro-tokens (one token = {@link TOKEN_UNITS} units) and time in whole milliseconds, and a
 * rate may have up to three decimals, so every refill adds an integer (rate x 1000 units per millisecond) and
 * every value stays an exact integer below 2^53. The retry-after is a ceiling division of integers: waiting
 * exactly that long admits the request, one millisecond less does not.
 */

/** Units of one token: levels are integers of micro-tokens. */
export const TOKEN_UNITS = 1_000_000;

/** The largest capacity: capacity x {@link TOKEN_UNITS} stays an exact integer. */
const MAX_CAPACITY = 1_000_000_000;
/** The largest refill rate, tokens per second. */
const MAX_RATE = 1_000_000_000;

/** How big a bucket is and how fast it refills. */
export interface TokenBucketRate {
  /** The most tokens the bucket holds: the burst a quiet caller may spend at once. A positive integer. */
  readonly capacity: number;
  /** Tokens added per second, up to three decimals (0.5 is one token every two seconds). Positive. */
  readonly refillPerSecond: number;
}

/** A bucket's level at an instant. A bucket nobody has touched is full (it is absent). */
export interface BucketState {
  /** The level in units (micro-tokens), an integer from 0 to capacity x {@link TOKEN_UNITS}. */
  readonly units: number;
  /** The millisecond (the clock's `now()`, floored) the level was computed for. */
  readonly at: number;
}

/** The answer to one take. */
export interface TakeDecision {
  readonly allowed: boolean;
  /** Whole tokens left after this take (or, refused, in the bucket now). */
  readonly remaining: number;
  /** Refused: milliseconds after which the same take would be admitted (0 when admitted). */
  readonly retryAfterMs: number;
}

/** `ceil(a / b)` for non-negative integers below 2^53, exactly (floating division may land a hair off). */
export function ceilDiv(a: number, b: number): number {
  let q = Math.floor(a / b);
  while (q * b < a) q += 1;
  while (q > 0 && (q - 1) * b >= a) q -= 1;
  return q;
}

/** A validated rate with its integer figures; shared by every bucket of one limit. */
export class TokenBucket implements TokenBucketRate {
  readonly capacity: number;
  readonly refillPerSecond: number;
  /** capacity x TOKEN_UNITS. */
  readonly capacityUnits: number;
  /** Units added per millisecond (an integer: refillPerSecond x 1000). */
  readonly unitsPerMs: number;
  /** Milliseconds an empty bucket takes to fill: after this long untouched, any bucket of this rate is full. */
  readonly fillMs: number;

  constructor(rate: TokenBucketRate) {
    const { capacity, refillPerSecond } = rate;
    if (!Number.isInteger(capacity) || capacity < 1 || capacity > MAX_CAPACITY) {
      throw new RangeError(`A token bucket's capacity is an integer from 1 to ${MAX_CAPACITY} (got ${capacity})`);
    }
    const unitsPerMs = Math.round(refillPerSecond * 1000);
    if (!Number.isFinite(refillPerSecond) || refillPerSecond <= 0 || refillPerSecond > MAX_RATE || Math.abs(unitsPerMs - refillPerSecond * 1000) > 1e-6) {
      throw new RangeError(`A token bucket's refillPerSecond is positive, at most ${MAX_RATE}, with up to three decimals (got ${refillPerSecond})`);
    }
    this.capacity = capacity;
    this.refillPerSecond = refillPerSecond;
    this.capacityUnits = capacity * TOKEN_UNITS;
    this.unitsPerMs = unitsPerMs;
    this.fillMs = ceilDiv(this.capacityUnits, unitsPerMs);
  }

  /** A cost in units: a non-negative number of tokens (up to six decimals), at most the capacity. */
  costUnits(cost: number): number {
    const units = Math.round(cost * TOKEN_UNITS);
    if (!Number.isFinite(cost) || units < 0 || units > this.capacityUnits) {
      throw new RangeError(`A cost is from 0 to the bucket's capacity ${this.capacity} (got ${cost}): a larger one could never be admitted`);
    }
    return units;
  }

  /** The level at `now`: the state's level plus what refilled since, capped at the capacity. */
  levelAt(state: BucketState | undefined, now: number): number {
    if (state === undefined) return this.capacityUnits;
    const missing = this.capacityUnits - state.units;
    if (missing <= 0) return this.capacityUnits;
    // A clock behind the state's (another process's clock, or a clock set back) refills nothing, never drains.
    const elapsed = Math.max(0, Math.floor(now) - state.at);
    // Capping the elapsed time before multiplying keeps the product below 2^53 after any idle period.
    const useful = Math.min(elapsed, ceilDiv(missing, this.unitsPerMs));
    return Math.min(this.capacityUnits, state.units + useful * this.unitsPerMs);
  }

  /**
   * Takes `costUnits` at `now`. Admitted: the new state has the level minus the cost. Refused: the state is
   * unchanged in meaning (the returned one is the refilled level, which a store may keep or drop).
   */
  take(state: BucketState | undefined, costUnits: number, now: number): { readonly state: BucketState; readonly decision: TakeDecision } {
    const at = state === undefined ? Math.floor(now) : Math.max(state.at, Math.floor(now));
    const level = this.levelAt(state, now);
    if (level >= costUnits) {
      const units = level - costUnits;
      return { state: { units, at }, decision: { allowed: true, remaining: Math.floor(units / TOKEN_UNITS), retryAfterMs: 0 } };
    }
    return {
      state: { units: level, at },
      decision: { allowed: false, remaining: Math.floor(level / TOKEN_UNITS), retryAfterMs: ceilDiv(costUnits - level, this.unitsPerMs) },
    };
  }

  /** The millisecond from which a bucket in `state` is full again (so forgetting it changes nothing). */
  fullAt(state: BucketState): number {
    return state.at + ceilDiv(Math.max(0, this.capacityUnits - state.units), this.unitsPerMs);
  }
}
