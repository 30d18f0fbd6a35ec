/**
 * Release of idle sessions: a `createServer` server accepts 2,000 legacy sessions over the in-memory transport,
 * each driven through the handshake by the raw client of bench/idle-session-heap.ts. While they idle, each
 * costs at most 4 KiB of heap (the benchmark's target and accounting, at a smaller n); once they are closed
 * and dropped, the heap is back at its baseline and the server holds none of them.
 *
 * This checks release, not speed: nothing here is timed.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createServer } from '../../index.ts';
import { createMemoryPair, type MemoryTransport } from '../../transports/memory/index.ts';
import { KiB, Watched, exposeGc, kib, rawHandshake, restingHeap } from '../support/scale-release.ts';

const gc = exposeGc();

const N = 2_000;
const WARMUP = 200;

/**
 * Heap readings after full collections still move by a few hundred KiB from run to run (JIT code, inline
 * caches, V8's own bookkeeping): ~0.2-0.3 MiB was seen on this machine, whatever n. The idle bound therefore
 * allows 512 KiB of noise spread over the N sessions (0.25 KiB each at n = 2,000) on top of 4 KiB.
 */
const NOISE = 512 * KiB;

/**
 * What may be left once every session is closed and dropped: 0.5 KiB per session, 1,000 KiB at n = 2,000.
 * A leak of 1 KiB per closed session leaves 2,000 KiB, twice this bound; noise (~0.3 MiB) is a third of it.
 * (For scale: a live idle session costs ~2.5 KiB here, so even a partly retained session breaks the bound.)
 */
const LEFT_PER_SESSION = 0.5 * KiB;

describe('scale: idle sessions', () => {
  test('2,000 idle sessions cost at most 4 KiB each, and closing them returns the heap to its baseline', async (t) => {
    const server = createServer({ name: 'scale-idle', version: '1.0.0' });
    const watched = new Watched();

    // Warm-up sessions (kept open) put one-time costs (lazy module state, JIT) into the baseline.
    const warm: MemoryTransport[] = [];
    for (let i = 0; i < WARMUP; i++) {
      const [clientEnd, serverEnd] = createMemoryPair();
      server.accept(serverEnd);
      await rawHandshake(clientEnd);
      warm.push(clientEnd);
    }
    // Preallocated, so that storing the ends adds nothing to the delta (as in the benchmark).
    const kept = new Array<MemoryTransport | undefined>(N).fill(undefined);
    const baseline = await restingHeap(gc);

    for (let i = 0; i < N; i++) {
      const [clientEnd, serverEnd] = createMemoryPair();
      const session = server.accept(serverEnd);
      await rawHandshake(clientEnd);
      kept[i] = clientEnd;
      if (i % 20 === 0) watched.watch(`server session ${i}`, session);
    }
    const idle = await restingHeap(gc);
    assert.equal(server.sessions.size, WARMUP + N, 'the server holds every open session');
    for (const session of server.sessions) assert.equal(session.state, 'operating', 'every session completed its handshake');

    const perSession = (idle - baseline) / N;
    t.diagnostic(`idle: ${kib(perSession)} per session`);
    assert.ok(
      perSession <= 4 * KiB + NOISE / N,
      `an idle session costs ${kib(perSession)} of heap (bound 4 KiB + ${kib(NOISE / N)} noise); baseline ${kib(baseline)}, idle ${kib(idle)}`,
    );

    // Close from the client side (as a client going away does), then drop every reference the test holds.
    for (const end of kept) await end?.close();
    kept.fill(undefined);
    const released = await restingHeap(gc);
    t.diagnostic(`after close: ${kib(released - baseline)} above baseline`);
    assert.equal(server.sessions.size, WARMUP, 'the server forgot every closed session');
    assert.deepEqual(await watched.survivors(gc), [], 'closed server sessions are garbage');
    assert.ok(
      released - baseline <= N * LEFT_PER_SESSION,
      `after closing ${N} sessions the heap is ${kib(released - baseline)} above its baseline (bound ${kib(N * LEFT_PER_SESSION)}); idle it was ${kib(idle - baseline)} above`,
    );

    for (const end of warm) await end.close();
    await restingHeap(gc);
    assert.equal(server.sessions.size, 0, 'the server holds no session once all are closed');
  });
});
