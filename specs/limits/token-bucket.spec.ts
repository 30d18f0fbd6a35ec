/**
 * The token-bucket arithmetic (limits/token-bucket.ts): refill, burst, the exact retry-after, integer levels
 * that do not drift over millions of updates, and the bound on what a bucket admits over any window.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { type BucketState, TOKEN_UNITS, TokenBucket } from '../../limits/token-bucket.ts';

const ONE = TOKEN_UNITS;

describe('token bucket: burst and refill', () => {
  test('a new bucket is full: capacity takes in a burst, then refusals', () => {
    const bucket = new TokenBucket({ capacity: 5, refillPerSecond: 1 });
    let state: BucketState | undefined;
    for (let i = 0; i < 5; i += 1) {
      const step = bucket.take(state, ONE, 1000);
      assert.equal(step.decision.allowed, true, `take ${i}`);
      assert.equal(step.decision.remaining, 4 - i);
      state = step.state;
    }
    const refused = bucket.take(state, ONE, 1000);
    assert.deepEqual(refused.decision, { allowed: false, remaining: 0, retryAfterMs: 1000 });
  });

  test('refills at the rate and never beyond the capacity', () => {
    const bucket = new TokenBucket({ capacity: 10, refillPerSecond: 4 });
    const empty: BucketState = { units: 0, at: 0 };
    assert.equal(bucket.levelAt(empty, 250), ONE);
    assert.equal(bucket.levelAt(empty, 1000), 4 * ONE);
    assert.equal(bucket.levelAt(empty, 2500), 10 * ONE);
    assert.equal(bucket.levelAt(empty, 1e13), 10 * ONE, 'a bucket idle for centuries is full, not overflowed');
    assert.equal(bucket.fillMs, 2500);
    assert.equal(bucket.fullAt({ units: 6 * ONE, at: 100 }), 1100);
  });

  test('the retry-after is exact: one millisecond early is refused, on time is admitted', () => {
    // 3 tokens a second: a token every 333.33... ms, so the wait is rounded up to 334.
    const bucket = new TokenBucket({ capacity: 1, refillPerSecond: 3 });
    const drained = bucket.take(undefined, ONE, 0);
    const refused = bucket.take(drained.state, ONE, 0);
    assert.equal(refused.decision.retryAfterMs, 334);
    assert.equal(bucket.take(drained.state, ONE, 333).decision.allowed, false);
    assert.equal(bucket.take(drained.state, ONE, 334).decision.allowed, true);
  });

  test('the retry-after accounts for a partial refill and a cost of several tokens', () => {
    const bucket = new TokenBucket({ capacity: 10, refillPerSecond: 0.5 });
    const state: BucketState = { units: Math.round(0.25 * ONE), at: 0 };
    const refused = bucket.take(state, 3 * ONE, 0);
    // 2.75 tokens missing at half a token a second: 5500 ms.
    assert.equal(refused.decision.retryAfterMs, 5500);
    assert.equal(bucket.take(state, 3 * ONE, 5499).decision.allowed, false);
    assert.equal(bucket.take(state, 3 * ONE, 5500).decision.allowed, true);
  });

  test('a clock behind the stored instant neither refills nor drains', () => {
    const bucket = new TokenBucket({ capacity: 5, refillPerSecond: 1 });
    const state: BucketState = { units: 2 * ONE, at: 10_000 };
    assert.equal(bucket.levelAt(state, 9_000), 2 * ONE);
    const step = bucket.take(state, ONE, 9_000);
    assert.deepEqual(step.state, { units: ONE, at: 10_000 });
  });
});

describe('token bucket: writers with skewed clocks (a shared bucket)', () => {
  test('alternating writers S ms apart over-admit at most S x rate tokens in all, not per alternation', () => {
    const bucket = new TokenBucket({ capacity: 5, refillPerSecond: 100 });
    const skew = 50;
    let state: BucketState | undefined;
    let admitted = 0;
    // Real time advances 1 ms per take; writer B's clock is 50 ms ahead of writer A's.
    for (let real = 0; real < 10_000; real += 1) {
      const now = real % 2 === 0 ? real : real + skew;
      const step = bucket.take(state, ONE, now);
      if (step.decision.allowed) admitted += 1;
      state = step.state;
    }
    // 100 a second over 10 s, plus the burst, plus at most one skew's worth (5 tokens).
    assert.ok(admitted <= 5 + 1000 + 5, `admitted ${admitted}`);
    assert.ok(admitted >= 1000, `admitted ${admitted}`);
  });
});

describe('token bucket: no drift', () => {
  test('a million one-millisecond steps that take what refilled leave the level exactly where it was', () => {
    // 1 token a second refills 1000 units a millisecond; each step takes 0.001 token (1000 units).
    const bucket = new TokenBucket({ capacity: 3, refillPerSecond: 1 });
    const cost = bucket.costUnits(0.001);
    let state: BucketState = { units: 1234567, at: 0 };
    for (let now = 1; now <= 1_000_000; now += 1) {
      const step = bucket.take(state, cost, now);
      assert.ok(step.decision.allowed);
      state = step.state;
    }
    assert.deepEqual(state, { units: 1234567, at: 1_000_000 });
  });

  test('a rate of 0.1 per second refills exactly one token after 10 s of one-millisecond updates', () => {
    const bucket = new TokenBucket({ capacity: 2, refillPerSecond: 0.1 });
    let state: BucketState = { units: 0, at: 0 };
    for (let now = 1; now <= 10_000; now += 1) state = bucket.take(state, 0, now).state;
    assert.equal(state.units, ONE);
    assert.ok(Number.isSafeInteger(state.units));
  });

  test('whatever the sequence, a bucket admits at most capacity + rate x elapsed tokens, and levels stay integers', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: 1, max: 20_000 }).map((milli) => milli / 1000),
        fc.array(fc.record({ gap: fc.integer({ min: 0, max: 2000 }), cost: fc.integer({ min: 0, max: 3 }) }), { maxLength: 200 }),
        (capacity, rate, steps) => {
          const bucket = new TokenBucket({ capacity, refillPerSecond: rate });
          let state: BucketState | undefined;
          let now = 0;
          let admitted = 0;
          for (const { gap, cost } of steps) {
            now += gap;
            const units = bucket.costUnits(Math.min(cost, capacity));
            const step = bucket.take(state, units, now);
            if (step.decision.allowed) admitted += units;
            else assert.ok(step.decision.retryAfterMs > 0);
            state = step.state;
            assert.ok(Number.isSafeInteger(state.units) && state.units >= 0 && state.units <= bucket.capacityUnits);
          }
          // The refill over `now` ms is exactly now x unitsPerMs units.
          assert.ok(admitted <= bucket.capacityUnits + now * bucket.unitsPerMs);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('token bucket: validation', () => {
  test('refuses a capacity, rate or cost it could not honour exactly', () => {
    assert.throws(() => new TokenBucket({ capacity: 0, refillPerSecond: 1 }), RangeError);
    assert.throws(() => new TokenBucket({ capacity: 1.5, refillPerSecond: 1 }), RangeError);
    assert.throws(() => new TokenBucket({ capacity: 1, refillPerSecond: 0 }), RangeError);
    assert.throws(() => new TokenBucket({ capacity: 1, refillPerSecond: 0.0001 }), /three decimals/);
    assert.throws(() => new TokenBucket({ capacity: 1, refillPerSecond: Number.NaN }), RangeError);
    const bucket = new TokenBucket({ capacity: 2, refillPerSecond: 1 });
    assert.throws(() => bucket.costUnits(3), /never be admitted/);
    assert.throws(() => bucket.costUnits(-1), RangeError);
    assert.equal(bucket.costUnits(0.5), ONE / 2);
  });
});
