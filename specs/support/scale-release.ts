/**
 * Helpers of the release specs (specs/scale): a garbage collector callable from a spec, a heap reading taken
 * once the heap has come to rest, counts of the process's active resources, a clock that counts the timers
 * it holds, and the minimal raw MCP client of bench/idle-session-heap.ts.
 *
 * These specs check that what ends (a session, a request) releases what it held. They never assert speed.
 *
 * Why a counting clock as well as `process.getActiveResourcesInfo()`: the system clock unrefs every timer it
 * starts (core/clock.ts), and Node lists only referenced timers as `Timeout` resources. A leaked request
 * timeout would therefore be invisible there; a clock injected into the sessions sees every timer they start.
 */
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Clock, TimerHandle } from '../../core/clock.ts';
import type { JsonObject } from '../../core/jsonrpc.ts';
import type { MemoryTransport } from '../../transports/memory/index.ts';

// --- garbage collection and heap readings -----------------------------------------------------------------

/**
 * The V8 `gc` function, without starting node with `--expose-gc`: setting the flag at run time makes the
 * next new context get a `gc` global. (`tsx --test` runs each spec file in its own child process, so the
 * flag stays within that file.)
 */
export function exposeGc(): () => void {
  const own = (globalThis as { gc?: () => void }).gc;
  if (typeof own === 'function') return own;
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as unknown;
  if (typeof gc !== 'function') throw new Error('could not expose the garbage collector');
  return gc as () => void;
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * `heapUsed` once the heap is at rest: pending callbacks run (immediates between collections, so finalizers
 * and promise reactions queued by a collection run before the next one), then full collections until two
 * readings in a row differ by less than 64 KiB (at most 8 rounds). Returns the last reading.
 */
export async function restingHeap(gc: () => void): Promise<number> {
  let previous = Number.POSITIVE_INFINITY;
  for (let round = 0; round < 8; round++) {
    for (let i = 0; i < 3; i++) await turn();
    gc();
    gc();
    const now = process.memoryUsage().heapUsed;
    if (Math.abs(now - previous) < 64 * 1024) return now;
    previous = now;
  }
  return previous;
}

export const KiB = 1024;
export const MiB = 1024 * 1024;

export const kib = (bytes: number): string => `${(bytes / KiB).toFixed(2)} KiB`;

// --- active resources ---------------------------------------------------------------------------------------

/** `process.getActiveResourcesInfo()` as counts by type (Timeout, TCPSocketWrap, TCPServerWrap, ...). */
export function activeResources(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const type of process.getActiveResourcesInfo()) counts.set(type, (counts.get(type) ?? 0) + 1);
  return counts;
}

/** Fails when any resource type counts more now than in `baseline`. */
export function assertResourcesBack(baseline: ReadonlyMap<string, number>, what: string): void {
  const now = activeResources();
  const grown = [...now].filter(([type, count]) => count > (baseline.get(type) ?? 0));
  assert.deepEqual(grown, [], `${what}: active resources above their baseline (baseline ${JSON.stringify([...baseline])}, now ${JSON.stringify([...now])})`);
}

/**
 * Waits (a bounded real time) until no resource type counts more than in `baseline`: closed sockets leave the
 * list a few event-loop turns after `close()` resolves. Then asserts.
 */
export async function resourcesBack(baseline: ReadonlyMap<string, number>, what: string, maxMs = 5000): Promise<void> {
  const deadline = Date.now() + maxMs;
  for (;;) {
    const now = activeResources();
    if ([...now].every(([type, count]) => count <= (baseline.get(type) ?? 0)) || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assertResourcesBack(baseline, what);
}

// --- a clock that counts -----------------------------------------------------------------------------------

/**
 * Node's timers as a {@link Clock}, but referenced (the system clock unrefs its timers): a pending timer keeps
 * the event loop alive, so a spec awaiting a request timeout does not end early, and a leaked timer shows up
 * in `process.getActiveResourcesInfo()` as a `Timeout`.
 */
export const refClock: Clock = {
  now: () => Date.now(),
  setTimeout(callback, ms) {
    const timer = setTimeout(callback, ms);
    return { cancel: () => clearTimeout(timer) };
  },
  setInterval(callback, ms) {
    const timer = setInterval(callback, ms);
    return { cancel: () => clearInterval(timer) };
  },
};

/**
 * A clock counting the timers it holds: a timeout from its start until it fires or is cancelled, an interval
 * until it is cancelled. `live` is what a leak would grow. Runs on {@link refClock} unless told otherwise.
 */
export class CountingClock implements Clock {
  private readonly held = new Set<object>();
  /** Timers ever started. */
  started = 0;

  constructor(private readonly inner: Clock = refClock) {}

  /** Timers started and not yet fired (timeouts) or cancelled. */
  get live(): number {
    return this.held.size;
  }

  now(): number {
    return this.inner.now();
  }

  setTimeout(callback: () => void, ms: number): TimerHandle {
    const token = {};
    this.held.add(token);
    this.started++;
    const handle = this.inner.setTimeout(() => {
      this.held.delete(token);
      callback();
    }, ms);
    return {
      cancel: () => {
        this.held.delete(token);
        handle.cancel();
      },
    };
  }

  setInterval(callback: () => void, ms: number): TimerHandle {
    const token = {};
    this.held.add(token);
    this.started++;
    const handle = this.inner.setInterval(callback, ms);
    return {
      cancel: () => {
        this.held.delete(token);
        handle.cancel();
      },
    };
  }
}

// --- the raw client of bench/idle-session-heap.ts -----------------------------------------------------------

/**
 * The minimal raw client of the idle-session benchmark: `initialize` (2025-11-25), await its answer,
 * `notifications/initialized`. Keeps listening afterwards (that closure is part of the benchmark's accounting).
 */
export async function rawHandshake(end: MemoryTransport): Promise<void> {
  let resolveResponse: ((message: JsonObject) => void) | undefined;
  const response = new Promise<JsonObject>((resolve) => (resolveResponse = resolve));
  end.incoming$.subscribe((frame) => {
    if (frame.type !== 'message') return;
    const resolve = resolveResponse;
    resolveResponse = undefined;
    resolve?.(frame.payload as JsonObject);
  });
  await end.send({
    payload: {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw-client', version: '0.0.0' } },
    },
  });
  const answer = await response;
  if (answer['result'] === undefined) throw new Error(`initialize failed: ${JSON.stringify(answer)}`);
  await end.send({ payload: { jsonrpc: '2.0', method: 'notifications/initialized' } });
}

// --- objects that must be collected -------------------------------------------------------------------------

/**
 * Weak references to a sample of objects that must become garbage once released (closed sessions, their
 * transports). Nothing is kept alive by being watched; `alive()` counts those still reachable after a full
 * collection. A sample, not every object, so that the references themselves weigh nothing in heap readings.
 */
export class Watched {
  private readonly refs: Array<{ readonly what: string; readonly ref: WeakRef<object> }> = [];

  watch(what: string, target: object): void {
    this.refs.push({ what, ref: new WeakRef(target) });
  }

  get size(): number {
    return this.refs.length;
  }

  /** Collects (a few rounds, with turns in between: a WeakRef target lives until the end of its job) and lists the survivors. */
  async survivors(gc: () => void): Promise<string[]> {
    for (let round = 0; round < 4; round++) {
      for (let i = 0; i < 3; i++) await turn();
      gc();
    }
    return this.refs.filter((entry) => entry.ref.deref() !== undefined).map((entry) => entry.what);
  }
}
