/**
 * `rateLimit` (limits/rate-limit.ts) against a fake `next`: pass-through under the limit, the -32029
 * short-circuit with an exact retry-after and the limit's name, independent per-tool / per-principal /
 * per-session keys, costs per method, directions, order of limits, and an asynchronous store.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { firstValueFrom, lastValueFrom, of, toArray } from 'rxjs';
import type { RequestEvent } from '../../actors/handler-types.ts';
import { ErrorCode } from '../../core/error-codes.ts';
import { WireError } from '../../core/errors.ts';
import { type BucketStore, MemoryBucketStore } from '../../limits/bucket-store.ts';
import type { InterceptedRequest, Interceptor } from '../../limits/interceptor-contract.ts';
import { type RateLimitOptions, rateLimit, retryAfterMsOf } from '../../limits/rate-limit.ts';
import { TestClock } from '../support/test-clock.ts';

interface Call {
  readonly method?: string;
  readonly target?: string;
  readonly principal?: string;
  readonly sessionId?: string;
  readonly direction?: 'incoming' | 'outgoing';
}

let nextId = 0;
function request(call: Call = {}): InterceptedRequest {
  nextId += 1;
  const session = {
    role: 'server' as const,
    revision: '2025-11-25' as const,
    peerInfo: undefined,
    peerCapabilities: undefined,
    era: 'legacy' as const,
    principal: call.principal,
    id: call.sessionId,
  };
  const method = call.method ?? 'tools/call';
  const made: InterceptedRequest = {
    method,
    params: call.target === undefined ? undefined : { name: call.target },
    meta: undefined,
    id: nextId,
    direction: call.direction ?? 'incoming',
    target: call.target,
    session,
    signal: new AbortController().signal,
    with: (changes) => ({ ...made, ...changes }),
  };
  return made;
}

/** A fake handler chain that answers at once and counts what reached it. */
function fakeNext(): { next: (request: InterceptedRequest) => ReturnType<Parameters<Interceptor>[1]>; readonly reached: InterceptedRequest[] } {
  const reached: InterceptedRequest[] = [];
  return {
    reached,
    next: (request) => {
      reached.push(request);
      const events: RequestEvent[] = [{ type: 'progress', progress: 1 }, { type: 'result', result: { content: [] } }];
      return of(...events);
    },
  };
}

async function outcome(interceptor: Interceptor, call: Call, chain = fakeNext()): Promise<'admitted' | WireError> {
  try {
    const events = await lastValueFrom(interceptor(request(call), chain.next).pipe(toArray()));
    assert.equal(events.at(-1)?.type, 'result');
    return 'admitted';
  } catch (error) {
    assert.ok(error instanceof WireError, `expected a WireError, got ${String(error)}`);
    return error;
  }
}

function limiter(options: Omit<RateLimitOptions, 'store'>, clock = new TestClock()): { interceptor: Interceptor; clock: TestClock } {
  return { interceptor: rateLimit({ ...options, store: new MemoryBucketStore({ clock }) }), clock };
}

describe('rateLimit: admit or refuse', () => {
  test('under the limit the request passes through untouched, progress and result', async () => {
    const { interceptor } = limiter({ limits: [{ name: 'per-principal', by: 'principal', capacity: 2, refillPerSecond: 1 }] });
    const chain = fakeNext();
    const sent = request({ principal: 'alice' });
    const events = await lastValueFrom(interceptor(sent, chain.next).pipe(toArray()));
    assert.deepEqual(events, [{ type: 'progress', progress: 1 }, { type: 'result', result: { content: [] } }]);
    assert.equal(chain.reached[0], sent, 'the same request object, not a copy');
  });

  test('over the limit: -32029 naming the limit, an exact retry-after, and the handler never runs', async () => {
    const { interceptor, clock } = limiter({ limits: [{ name: 'per-principal', by: 'principal', capacity: 2, refillPerSecond: 3 }] });
    const chain = fakeNext();
    assert.equal(await outcome(interceptor, { principal: 'alice' }, chain), 'admitted');
    assert.equal(await outcome(interceptor, { principal: 'alice' }, chain), 'admitted');
    const refused = await outcome(interceptor, { principal: 'alice' }, chain);
    assert.ok(refused instanceof WireError);
    assert.equal(refused.code, ErrorCode.RateLimited);
    assert.equal(refused.code, -32029);
    assert.deepEqual(refused.data, { limit: 'per-principal', retryAfterMs: 334 });
    assert.match(refused.message, /^Rate limit exceeded: per-principal \(2 at once, 3 per second\); retry after 334 ms$/);
    assert.equal(retryAfterMsOf(refused), 334);
    assert.equal(chain.reached.length, 2, 'the refused request never reached the handler');
    clock.advance(333);
    assert.notEqual(await outcome(interceptor, { principal: 'alice' }, chain), 'admitted');
    clock.advance(1);
    assert.equal(await outcome(interceptor, { principal: 'alice' }, chain), 'admitted');
  });

  test('onRefused hears each refusal with the limit, the bucket key and the request', async () => {
    const refusals: { limit: string; key: string; retryAfterMs: number; id: unknown }[] = [];
    const { interceptor } = limiter({
      limits: [{ name: 'per-principal-tool', by: ['principal', 'tool'], capacity: 1, refillPerSecond: 2 }],
      onRefused: ({ limit, key, retryAfterMs, request }) => refusals.push({ limit, key, retryAfterMs, id: request.id }),
    });
    assert.equal(await outcome(interceptor, { principal: 'alice', target: 'search' }), 'admitted');
    assert.equal(refusals.length, 0);
    assert.notEqual(await outcome(interceptor, { principal: 'alice', target: 'search' }), 'admitted');
    assert.equal(refusals.length, 1);
    assert.deepEqual({ ...refusals[0], id: undefined }, { limit: 'per-principal-tool', key: 'per-principal-tool\u001falice\u001fsearch', retryAfterMs: 500, id: undefined });
  });

  test('the refusal happens at subscription: nothing is taken by an interceptor call never subscribed', async () => {
    const { interceptor } = limiter({ limits: [{ name: 'one', by: 'principal', capacity: 1, refillPerSecond: 1 }] });
    interceptor(request({ principal: 'alice' }), fakeNext().next);
    assert.equal(await outcome(interceptor, { principal: 'alice' }), 'admitted');
  });
});

describe('rateLimit: keys', () => {
  test('per tool and per principal buckets are independent', async () => {
    const { interceptor } = limiter({
      limits: [
        { name: 'per-principal', by: 'principal', capacity: 2, refillPerSecond: 1 },
        { name: 'per-tool', by: 'tool', capacity: 1, refillPerSecond: 1 },
      ],
    });
    assert.equal(await outcome(interceptor, { principal: 'alice', target: 'search' }), 'admitted');
    // search's tool bucket is empty: bob (a fresh principal) is refused by the tool limit.
    const refused = await outcome(interceptor, { principal: 'bob', target: 'search' });
    assert.ok(refused instanceof WireError);
    assert.equal((refused.data as { limit: string }).limit, 'per-tool');
    // Another tool has its own bucket; alice still has a token of her own.
    assert.equal(await outcome(interceptor, { principal: 'alice', target: 'fetch' }), 'admitted');
    const aliceDone = await outcome(interceptor, { principal: 'alice', target: 'other' });
    assert.ok(aliceDone instanceof WireError);
    assert.equal((aliceDone.data as { limit: string }).limit, 'per-principal');
    // Methods other than tools/call are outside the per-tool limit.
    assert.equal(await outcome(interceptor, { principal: 'carol', method: 'tools/list' }), 'admitted');
  });

  test('a principal refused by its own limit spends nothing from a shared one listed after it', async () => {
    const { interceptor } = limiter({
      limits: [
        { name: 'per-principal', by: 'principal', capacity: 1, refillPerSecond: 0.001 },
        { name: 'per-tool', by: 'tool', capacity: 2, refillPerSecond: 0.001 },
      ],
    });
    assert.equal(await outcome(interceptor, { principal: 'mallory', target: 'search' }), 'admitted');
    for (let i = 0; i < 5; i += 1) assert.notEqual(await outcome(interceptor, { principal: 'mallory', target: 'search' }), 'admitted');
    assert.equal(await outcome(interceptor, { principal: 'alice', target: 'search' }), 'admitted', 'the tool bucket still had its second token');
  });

  test('a combined key: a bucket per principal and tool', async () => {
    const { interceptor } = limiter({ limits: [{ name: 'per-principal-tool', by: ['principal', 'tool'], capacity: 1, refillPerSecond: 1 }] });
    assert.equal(await outcome(interceptor, { principal: 'alice', target: 'a' }), 'admitted');
    assert.equal(await outcome(interceptor, { principal: 'alice', target: 'b' }), 'admitted');
    assert.equal(await outcome(interceptor, { principal: 'bob', target: 'a' }), 'admitted');
    assert.notEqual(await outcome(interceptor, { principal: 'alice', target: 'a' }), 'admitted');
  });

  test('no principal: the anonymous key, shared by every caller without one, or one of your own', async () => {
    const shared = limiter({ limits: [{ name: 'p', by: 'principal', capacity: 1, refillPerSecond: 1 }] }).interceptor;
    assert.equal(await outcome(shared, {}), 'admitted');
    assert.notEqual(await outcome(shared, {}), 'admitted');
    const bySession = limiter({
      anonymousPrincipal: (request) => request.session.id,
      limits: [{ name: 'p', by: 'principal', capacity: 1, refillPerSecond: 1 }],
    }).interceptor;
    assert.equal(await outcome(bySession, { sessionId: 's1' }), 'admitted');
    assert.equal(await outcome(bySession, { sessionId: 's2' }), 'admitted');
    assert.equal(await outcome(bySession, {}), 'admitted', 'no key at all: the limit does not apply');
    assert.equal(await outcome(bySession, {}), 'admitted');
  });

  test('per session; a request without a session (2026-07-28) is outside that limit', async () => {
    const { interceptor } = limiter({ limits: [{ name: 'per-session', by: 'session', capacity: 1, refillPerSecond: 1 }] });
    assert.equal(await outcome(interceptor, { sessionId: 'a' }), 'admitted');
    assert.notEqual(await outcome(interceptor, { sessionId: 'a' }), 'admitted');
    assert.equal(await outcome(interceptor, { sessionId: 'b' }), 'admitted');
    assert.equal(await outcome(interceptor, {}), 'admitted');
    assert.equal(await outcome(interceptor, {}), 'admitted');
  });
});

describe('rateLimit: costs, methods, directions', () => {
  test('cost per method: an expensive method drains more; a free one is never refused', async () => {
    const { interceptor } = limiter({
      cost: { 'tools/call': 5, ping: 0 },
      limits: [{ name: 'p', by: 'principal', capacity: 6, refillPerSecond: 1 }],
    });
    assert.equal(await outcome(interceptor, { principal: 'a', target: 't' }), 'admitted');
    const refused = await outcome(interceptor, { principal: 'a', target: 't' });
    assert.ok(refused instanceof WireError);
    assert.equal((refused.data as { retryAfterMs: number }).retryAfterMs, 4000, '4 tokens missing at 1 a second');
    assert.equal(await outcome(interceptor, { principal: 'a', method: 'tools/list' }), 'admitted', 'unlisted methods cost 1');
    for (let i = 0; i < 10; i += 1) assert.equal(await outcome(interceptor, { principal: 'a', method: 'ping' }), 'admitted');
  });

  test('a limit scoped to methods ignores the others; a rule cost overrides the shared one', async () => {
    const { interceptor } = limiter({
      cost: () => 100,
      limits: [{ name: 'reads', by: 'principal', methods: ['resources/read'], capacity: 2, refillPerSecond: 1, cost: { 'resources/read': 2 } }],
    });
    for (let i = 0; i < 5; i += 1) assert.equal(await outcome(interceptor, { principal: 'a', method: 'tools/call', target: 't' }), 'admitted');
    assert.equal(await outcome(interceptor, { principal: 'a', method: 'resources/read', target: 'memo://x' }), 'admitted');
    assert.notEqual(await outcome(interceptor, { principal: 'a', method: 'resources/read', target: 'memo://x' }), 'admitted');
  });

  test('only incoming requests by default; outgoing ones when asked', async () => {
    const incomingOnly = limiter({ limits: [{ name: 'p', by: 'method', capacity: 1, refillPerSecond: 1 }] }).interceptor;
    for (let i = 0; i < 3; i += 1) assert.equal(await outcome(incomingOnly, { method: 'sampling/createMessage', direction: 'outgoing' }), 'admitted');
    const both = limiter({ directions: ['outgoing'], limits: [{ name: 'p', by: 'method', capacity: 1, refillPerSecond: 1 }] }).interceptor;
    assert.equal(await outcome(both, { method: 'sampling/createMessage', direction: 'outgoing' }), 'admitted');
    assert.notEqual(await outcome(both, { method: 'sampling/createMessage', direction: 'outgoing' }), 'admitted');
  });

  test('invalid limits are refused when the interceptor is made', () => {
    assert.throws(() => rateLimit({ limits: [{ name: 'x', by: 'principal', capacity: 0, refillPerSecond: 1 }] }), RangeError);
    assert.throws(() => rateLimit({ limits: [{ name: '', by: 'principal', capacity: 1, refillPerSecond: 1 }] }), /name/);
    const twice = { name: 'x', by: 'principal' as const, capacity: 1, refillPerSecond: 1 };
    assert.throws(() => rateLimit({ limits: [twice, twice] }), /distinct names/);
    assert.throws(() => rateLimit({ cost: { 'tools/call': 3 }, limits: [{ name: 'x', by: 'principal', capacity: 2, refillPerSecond: 1 }] }), /never be admitted/);
  });
});

describe('rateLimit: an asynchronous (shared) store', () => {
  /** The memory store behind a promise, as a networked store answers; counts takes. */
  function asyncStore(clock: TestClock): BucketStore & { takes: number } {
    const inner = new MemoryBucketStore({ clock });
    return {
      takes: 0,
      take(key, bucket, cost) {
        this.takes += 1;
        return new Promise((resolve) => setTimeout(() => resolve(inner.take(key, bucket, cost)), 1));
      },
    };
  }

  test('decides after the store answers, and checks every limit in order', async () => {
    const store = asyncStore(new TestClock());
    const interceptor = rateLimit({
      store,
      limits: [
        { name: 'per-principal', by: 'principal', capacity: 1, refillPerSecond: 1 },
        { name: 'per-tool', by: 'tool', capacity: 5, refillPerSecond: 1 },
      ],
    });
    const chain = fakeNext();
    assert.equal(await outcome(interceptor, { principal: 'a', target: 't' }, chain), 'admitted');
    assert.equal(store.takes, 2);
    const refused = await outcome(interceptor, { principal: 'a', target: 't' }, chain);
    assert.ok(refused instanceof WireError);
    assert.deepEqual(refused.data, { limit: 'per-principal', retryAfterMs: 1000 });
    assert.equal(store.takes, 3, 'the refusal stopped before the tool limit');
    assert.equal(chain.reached.length, 1);
  });

  test('unsubscribing before the store answers never calls next', async () => {
    const store = asyncStore(new TestClock());
    const interceptor = rateLimit({ store, limits: [{ name: 'p', by: 'principal', capacity: 5, refillPerSecond: 1 }] });
    const chain = fakeNext();
    const subscription = interceptor(request({ principal: 'a' }), chain.next).subscribe();
    subscription.unsubscribe();
    await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(store.takes, 1);
    assert.equal(chain.reached.length, 0);
    // Still usable afterwards.
    assert.equal((await firstValueFrom(interceptor(request({ principal: 'a' }), chain.next))).type, 'progress');
  });
});
