/**
 * Release under churn: 20,000 legacy sessions (a `createServer` server, `createClient` clients, the in-memory
 * transport) are opened, used and closed in batches. Each session calls a tool with progress, has one request
 * aborted by the client through an AbortSignal, one time out on the client, subscribes to a resource of its
 * own (and, for every other session, still holds the subscription when it closes), sets a log level and gets
 * one log message through it. Afterwards nothing any of them held is left: no session, no subscriber, no
 * timer, no abort listener, no heap.
 *
 * Also here: abort listeners are removed from caller signals when requests end, and do not pile up on the
 * handler side either.
 *
 * These specs check release, not speed: nothing is timed (the 1 ms client timeout is only how a timeout is
 * provoked).
 */
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { describe, test } from 'node:test';
import { firstValueFrom, from, take } from 'rxjs';
import { type ClientSession, type LocalErrorCode, type McpServer, createClient, createServer, isLocalError } from '../../index.ts';
import { createMemoryPair } from '../../transports/memory/index.ts';
import { CountingClock, MiB, Watched, activeResources, exposeGc, kib, resourcesBack, restingHeap } from '../support/scale-release.ts';

const gc = exposeGc();

const SESSIONS = 20_000;
const BATCH = 100;
const WARMUP = 400;

/**
 * What the heap may be above its baseline after the churn: 4 MiB, 0.2 KiB per session. A leak of 1 KiB per
 * session leaves 20 MiB, five times the bound; run to run the readings moved by ~1.2 MiB here, whatever the
 * number of sessions (2,000 and 20,000 gave the same), so the bound is noise-proof and leak-tight.
 */
const HEAP_BOUND = 4 * MiB;

interface Fixture {
  readonly server: McpServer;
  readonly serverClock: CountingClock;
  readonly clientClock: CountingClock;
  /** Called by `hang` handlers once they run, by tag. */
  readonly started: Map<string, () => void>;
  /** Handlers of `hang` still running. */
  running: number;
  /** Listeners found on each `listen` handler's own signal when it finished (all must be 0 or 1: its own). */
  readonly handlerSignalListeners: number[];
}

function fixture(): Fixture {
  const serverClock = new CountingClock();
  const clientClock = new CountingClock();
  const server = createServer({ name: 'scale-churn', version: '1.0.0', session: { clock: serverClock } });
  const made: Fixture = { server, serverClock, clientClock, started: new Map(), running: 0, handlerSignalListeners: [] };
  server.tool({ name: 'count', description: 'Reports two progress steps, then answers' }, () =>
    from([{ progress: 1, total: 2 }, { progress: 2, total: 2 }, 'counted']),
  );
  server.tool(
    { name: 'hang', description: 'Runs until its request is cancelled', inputSchema: { type: 'object', properties: { tag: { type: 'string' } } } },
    (args: Record<string, unknown>, ctx) =>
      new Promise<string>((_resolve, reject) => {
        made.running++;
        ctx.signal.addEventListener('abort', () => {
          made.running--;
          reject(new Error('cancelled'));
        }, { once: true });
        made.started.get(String(args['tag']))?.();
      }),
  );
  server.tool({ name: 'log', description: 'Logs below and above the warning level' }, (_args, ctx) => {
    ctx.log('info', 'below the level: not sent');
    ctx.log('error', 'above the level: sent');
    made.handlerSignalListeners.push(getEventListeners(ctx.signal, 'abort').length);
    return 'logged';
  });
  server.resourceTemplate({ uriTemplate: 'memo://item/{n}', name: 'item' }, (uri) => `item ${uri}`);
  return made;
}

async function rejection(promise: Promise<unknown>, code: LocalErrorCode): Promise<void> {
  try {
    await promise;
  } catch (error) {
    if (isLocalError(error) && error.code === code) return;
    throw error;
  }
  assert.fail(`expected ${code}`);
}

let serial = 0;

/** Everything one session does before it closes. */
async function use(f: Fixture, session: ClientSession, index: number): Promise<void> {
  let steps = 0;
  const counted = await session.callTool('count', {}, { onProgress: () => steps++ });
  assert.equal(steps, 2, 'two progress reports arrive');
  assert.equal(counted.isError, undefined);

  // Aborted by the client while the handler runs: the handler's signal aborts on notifications/cancelled.
  const tag = `hang-${serial++}`;
  const began = new Promise<void>((resolve) => f.started.set(tag, resolve));
  const controller = new AbortController();
  const aborted = rejection(session.callTool('hang', { tag }, { signal: controller.signal }), 'RequestAborted');
  await began;
  f.started.delete(tag);
  controller.abort();
  await aborted;
  assert.equal(getEventListeners(controller.signal, 'abort').length, 0, 'no listener is left on an aborted caller signal');

  // Timed out on the client: it stops waiting and cancels the request on the server.
  await rejection(session.callTool('hang', { tag: 'timeout' }, { timeoutMs: 1 }), 'RequestTimeout');

  // A subscription of its own: the update reaches it; every other session still holds it when it closes.
  const uri = `memo://item/${index}`;
  const updates = session.subscribe$(uri);
  const update = firstValueFrom(updates.pipe(take(1)));
  await session.readResource(uri); // one round trip after resources/subscribe: the server has it
  f.server.notifyResourceUpdated(uri);
  assert.equal((await update).uri, uri);
  if (index % 2 === 0) {
    updates.subscribe();
    await session.readResource(uri);
  }

  await session.setLogLevel('warning');
  const log = firstValueFrom(session.logs$);
  await session.callTool('log');
  assert.equal((await log).level, 'error', 'only the message at or above the level arrives');
}

async function churn(f: Fixture, client: ReturnType<typeof createClient>, total: number, watched?: Watched): Promise<void> {
  for (let done = 0; done < total; done += BATCH) {
    await Promise.all(
      Array.from({ length: Math.min(BATCH, total - done) }, async (_, offset) => {
        const index = done + offset;
        const [clientEnd, serverEnd] = createMemoryPair();
        const serverSession = f.server.accept(serverEnd);
        const session = await client.connect(clientEnd);
        if (watched !== undefined && index % 100 === 0) {
          watched.watch(`server session ${index}`, serverSession);
          watched.watch(`client session ${index}`, session);
        }
        await use(f, session, index);
        await session.close();
      }),
    );
  }
}

describe('scale: churn', () => {
  test('20,000 sessions opened, used and closed leave no session, subscriber, timer, listener or heap behind', async (t) => {
    const f = fixture();
    const client = createClient({ era: 'legacy', name: 'scale-churn-client', version: '1.0.0', session: { clock: f.clientClock } });
    await churn(f, client, WARMUP);
    const baselineResources = activeResources();
    const baseline = await restingHeap(gc);

    const watched = new Watched();
    await churn(f, client, SESSIONS, watched);
    await resourcesBack(baselineResources, 'after the churn');
    const after = await restingHeap(gc);

    t.diagnostic(`heap after ${SESSIONS} sessions: ${kib(after - baseline)} above baseline (bound ${kib(HEAP_BOUND)})`);
    assert.equal(f.server.sessions.size, 0, 'the server holds no session');
    assert.equal(client.sessions.size, 0, 'the client holds no session');
    assert.equal(f.running, 0, 'every cancelled or timed-out handler saw its signal abort');
    assert.equal(f.started.size, 0);
    assert.equal(f.serverClock.live, 0, `server timers left running (of ${f.serverClock.started} started)`);
    assert.equal(f.clientClock.live, 0, `client timers left running (of ${f.clientClock.started} started)`);
    assert.deepEqual(new Set(f.handlerSignalListeners), new Set([0]), 'handlers found no stray abort listener on their own signal');
    assert.deepEqual(await watched.survivors(gc), [], 'closed sessions are garbage (nothing, a subscriber map included, holds them)');
    assert.ok(after - baseline <= HEAP_BOUND, `the heap is ${kib(after - baseline)} above its baseline after ${SESSIONS} sessions (bound ${kib(HEAP_BOUND)})`);

    // The subscriber map is empty as far as anyone can tell: an update for any of the URIs reaches no one, and
    // a new subscriber to one of them is the only one told.
    const [clientEnd, serverEnd] = createMemoryPair();
    f.server.accept(serverEnd);
    const session = await client.connect(clientEnd);
    const updates: string[] = [];
    const subscription = session.subscribe$('memo://item/0').subscribe((update) => updates.push(update.uri));
    await session.readResource('memo://item/0');
    for (let index = 0; index < SESSIONS; index += 997) f.server.notifyResourceUpdated(`memo://item/${index}`);
    await session.ping();
    assert.deepEqual(updates, ['memo://item/0'], 'only the live subscriber hears of its URI');
    subscription.unsubscribe();
    await session.close();
    assert.equal(f.server.sessions.size, 0);
  });

  test('a caller signal keeps no abort listener once its requests end, however they end', async () => {
    const f = fixture();
    const client = createClient({ era: 'legacy', name: 'scale-signal-client', version: '1.0.0', session: { clock: f.clientClock } });
    const [clientEnd, serverEnd] = createMemoryPair();
    f.server.accept(serverEnd);
    const session = await client.connect(clientEnd);
    const controller = new AbortController();
    const { signal } = controller;
    for (let i = 0; i < 200; i++) {
      await session.callTool('count', {}, { signal, onProgress: () => undefined });
      assert.equal(getEventListeners(signal, 'abort').length, 0, `after a completed call (${i})`);
      await rejection(session.callTool('hang', { tag: 'timeout' }, { signal, timeoutMs: 1 }), 'RequestTimeout');
      assert.equal(getEventListeners(signal, 'abort').length, 0, `after a timed-out call (${i})`);
      // An unknown tool: answered with an error (how does not matter here).
      await session.callTool('missing', {}, { signal }).catch(() => undefined);
      assert.equal(getEventListeners(signal, 'abort').length, 0, `after a failed call (${i})`);
    }
    // Several in flight at once hold one listener each, and give them back.
    const pending = Array.from({ length: 10 }, (_, i) => session.callTool('hang', { tag: `many-${i}` }, { signal }));
    await session.ping();
    assert.equal(getEventListeners(signal, 'abort').length, 10, 'one listener per request in flight');
    controller.abort();
    for (const each of pending) await rejection(each, 'RequestAborted');
    assert.equal(getEventListeners(signal, 'abort').length, 0);
    await session.ping();
    assert.equal(f.running, 0, 'the server cancelled every aborted handler');

    // Handler side: 500 requests on one session, none finds a listener it did not add on its own signal.
    for (let i = 0; i < 500; i++) await session.callTool('log');
    assert.equal(f.handlerSignalListeners.length, 500);
    assert.deepEqual(new Set(f.handlerSignalListeners), new Set([0]), 'listeners do not accumulate on handler signals');
    await session.close();
    assert.equal(f.serverClock.live, 0, 'server timers');
    assert.equal(f.clientClock.live, 0, 'client timers');
    assert.equal(f.server.sessions.size, 0);
  });

  test('closing sessions with requests still running releases them too', async () => {
    const f = fixture();
    const client = createClient({ era: 'legacy', name: 'scale-close-client', version: '1.0.0', session: { clock: f.clientClock } });
    const watched = new Watched();
    const signals: AbortSignal[] = [];
    for (let round = 0; round < 20; round++) {
      await Promise.all(Array.from({ length: 50 }, async (_, offset) => {
        const [clientEnd, serverEnd] = createMemoryPair();
        const serverSession = f.server.accept(serverEnd);
        const session = await client.connect(clientEnd);
        if (offset === 0) watched.watch(`server session ${round}`, serverSession);
        const tag = `close-${round}-${offset}`;
        const began = new Promise<void>((resolve) => f.started.set(tag, resolve));
        const controller = new AbortController();
        signals.push(controller.signal);
        const running = session.callTool('hang', { tag }, { signal: controller.signal });
        await began;
        f.started.delete(tag);
        await session.close();
        await rejection(running, 'ConnectionClosed');
      }));
    }
    assert.equal(f.running, 0, 'closing the session aborted every running handler');
    assert.equal(f.server.sessions.size, 0);
    assert.equal(client.sessions.size, 0);
    assert.equal(f.serverClock.live, 0, 'server timers');
    assert.equal(f.clientClock.live, 0, 'client timers');
    assert.equal(signals.filter((signal) => getEventListeners(signal, 'abort').length > 0).length, 0, 'no caller signal keeps a listener');
    assert.deepEqual(await watched.survivors(gc), []);
  });
});
