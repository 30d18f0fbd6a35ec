/**
 * The bounded in-process bucket store (limits/bucket-store.ts): the cap on buckets, least-recently-used
 * eviction, lossless idle expiry on the injected clock, and the measured memory of one bucket.
 *
 * @own-process: measures the process's heap per bucket
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { MemoryBucketStore } from '../../limits/bucket-store.ts';
import { type BucketState, TOKEN_UNITS, type TakeDecision, TokenBucket } from '../../limits/token-bucket.ts';
import { TestClock } from '../support/test-clock.ts';

const ONE = TOKEN_UNITS;

describe('memory bucket store', () => {
  test('never holds more than maxBuckets, evicting the least recently used', () => {
    const clock = new TestClock();
    const store = new MemoryBucketStore({ clock, maxBuckets: 100 });
    const bucket = new TokenBucket({ capacity: 2, refillPerSecond: 0.001 });
    for (let i = 0; i < 100; i += 1) store.take(`k${i}`, bucket, ONE);
    // Touch k0 so it is the most recently used, then add 50 more.
    store.take('k0', bucket, ONE);
    for (let i = 100; i < 150; i += 1) {
      store.take(`k${i}`, bucket, ONE);
      assert.ok(store.stats().size <= 100);
    }
    assert.deepEqual(store.stats(), { size: 100, expired: 0, evicted: 50 });
    // k0 survived (its second take drained it: a third is refused); k1 was evicted (a fresh, full bucket).
    assert.equal(store.take('k0', bucket, ONE).allowed, false);
    assert.equal(store.take('k1', bucket, ONE).remaining, 1);
  });

  test('a million distinct principals: the store stays at its cap', () => {
    const store = new MemoryBucketStore({ clock: new TestClock(), maxBuckets: 50_000 });
    const bucket = new TokenBucket({ capacity: 10, refillPerSecond: 1 });
    for (let i = 0; i < 1_000_000; i += 1) store.take(`p${i}`, bucket, ONE);
    assert.deepEqual(store.stats(), { size: 50_000, expired: 0, evicted: 950_000 });
    assert.equal(store.take('p999999', bucket, ONE).remaining, 8, 'the most recent callers are still counted');
  });

  test('a bucket idle until full is dropped without changing any decision', () => {
    const clock = new TestClock(1_000);
    const store = new MemoryBucketStore({ clock });
    const bucket = new TokenBucket({ capacity: 4, refillPerSecond: 2 });
    store.take('alice', bucket, 3 * ONE);
    assert.equal(store.stats().size, 1);
    // 3 tokens missing at 2 a second: full again 1500 ms later.
    clock.advance(1_499);
    store.take('bob', bucket, 0);
    assert.equal(store.stats().size, 1, 'one millisecond before full, alice is still held');
    clock.advance(1);
    store.take('bob', bucket, ONE);
    assert.deepEqual(store.stats(), { size: 1, expired: 1, evicted: 0 }, 'alice expired, bob took a slot');
    assert.equal(store.take('alice', bucket, 4 * ONE).allowed, true, 'a dropped bucket is a full one, as it would have been');
  });

  test('a take that leaves a new bucket full keeps no slot', () => {
    const store = new MemoryBucketStore({ clock: new TestClock() });
    const bucket = new TokenBucket({ capacity: 1, refillPerSecond: 1 });
    store.take('free', bucket, 0);
    assert.equal(store.stats().size, 0);
  });

  test('sweepAll drops every full bucket, whatever its place in the order', () => {
    const clock = new TestClock();
    const store = new MemoryBucketStore({ clock });
    const slow = new TokenBucket({ capacity: 1, refillPerSecond: 0.001 });
    const fast = new TokenBucket({ capacity: 1, refillPerSecond: 1000 });
    store.take('slow', slow, ONE);
    store.take('fast', fast, ONE);
    clock.advance(10);
    store.sweepAll();
    assert.deepEqual(store.stats(), { size: 1, expired: 1, evicted: 0 });
  });

  test('decides and forgets exactly as a plain least-recently-used Map would, whatever the sequence', () => {
    /** The reference: a Map kept in recency order, scanned from its oldest entry. */
    class Reference {
      readonly slots = new Map<string, BucketState & { fullAt: number }>();
      expired = 0;
      evicted = 0;
      constructor(private readonly max: number) {}
      take(key: string, bucket: TokenBucket, cost: number, now: number): TakeDecision {
        for (let left = 2; left > 0; left -= 1) {
          const first = this.slots.entries().next();
          if (first.done === true || first.value[1].fullAt > now) break;
          this.slots.delete(first.value[0]);
          this.expired += 1;
        }
        const held = this.slots.get(key);
        const { state, decision } = bucket.take(held, cost, now);
        if (held !== undefined || state.units < bucket.capacityUnits) {
          if (held === undefined && this.slots.size >= this.max) {
            this.slots.delete(this.slots.keys().next().value as string);
            this.evicted += 1;
          }
          this.slots.delete(key);
          this.slots.set(key, { ...state, fullAt: bucket.fullAt(state) });
        }
        return decision;
      }
    }
    const rates = [new TokenBucket({ capacity: 3, refillPerSecond: 2 }), new TokenBucket({ capacity: 5, refillPerSecond: 0.5 })];
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.array(fc.record({ key: fc.integer({ min: 0, max: 9 }), rate: fc.integer({ min: 0, max: 1 }), cost: fc.integer({ min: 0, max: 3 }), gap: fc.integer({ min: 0, max: 1500 }) }), { maxLength: 150 }),
        (max, steps) => {
          const clock = new TestClock();
          const store = new MemoryBucketStore({ clock, maxBuckets: max });
          const reference = new Reference(max);
          for (const { key, rate, cost, gap } of steps) {
            clock.advance(gap);
            const bucket = rates[rate] as TokenBucket;
            const units = bucket.costUnits(cost);
            // A key keeps one rate, as under one limit.
            const name = `${rate}:${key}`;
            assert.deepEqual(store.take(name, bucket, units), reference.take(name, bucket, units, clock.now()));
            assert.deepEqual(store.stats(), { size: reference.slots.size, expired: reference.expired, evicted: reference.evicted });
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  test('memory: bytes per bucket, measured', (t) => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const count = 200_000;
    const bucket = new TokenBucket({ capacity: 10, refillPerSecond: 1 });
    const keyOf = (i: number): string => `per-principal\u001fuser-${String(i).padStart(8, '0')}`;
    const measure = (fill: (store: MemoryBucketStore) => void): number => {
      gc();
      const before = process.memoryUsage().heapUsed;
      const store = new MemoryBucketStore({ clock: new TestClock(), maxBuckets: count });
      fill(store);
      gc();
      assert.equal(store.stats().size, count);
      return (process.memoryUsage().heapUsed - before) / count;
    };
    // The store's own cost: the keys exist before (a caller's strings), so only the slot and the Map entry count.
    // 200,000 buckets sit in arrays of 262,144 slots (grown by doubling): the slack is counted.
    const keys = Array.from({ length: count }, (_, i) => keyOf(i));
    const own = measure((store) => {
      for (const key of keys) store.take(key, bucket, ONE);
    });
    keys.length = 0;
    // What a deployment pays: the key strings are built per request and held by the store alone.
    const withKeys = measure((store) => {
      for (let i = 0; i < count; i += 1) store.take(keyOf(i), bucket, ONE);
    });
    t.diagnostic(`${own.toFixed(1)} bytes per bucket without its key, ${withKeys.toFixed(1)} with a ${keyOf(0).length}-character key`);
    assert.ok(own < 80, `a bucket costs ${own} bytes`);
    assert.ok(withKeys < 150, `a bucket with its key costs ${withKeys} bytes`);
  });
});
