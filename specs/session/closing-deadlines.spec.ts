/**
 * The drain and flush deadlines of a closing session are the lifecycle machine's `after` transitions, scheduled
 * on the session's clock by the executor (machines/executor.ts): both roles, on a test clock. While a close waits
 * no repeating timer is pending (nothing polls); a deadline fires at its time and not before; an early end (the
 * last running request answered, the writer's queue emptied) leaves at once and cancels the deadline's timer.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { JsonObject } from '../../core/jsonrpc.ts';
import type { InboundFrame, OutboundFrame, Transport } from '../../core/transport.ts';
import { Subject } from 'rxjs';
import { clientLifecycleMachine, serverLifecycleMachine } from '../../machines/session-lifecycle.ts';
import { SessionCore } from '../../session/session-core.ts';
import type { McpSession } from '../../session/session-types.ts';
import { TestClock, connectPair, responsesTo, settle, toolResult } from '../support/test-clock.ts';

const DRAIN_MS = 500;
const FLUSH_MS = 300;

/** A handler that runs until the test finishes it (or its signal aborts). */
function heldHandler(): { handler: () => Promise<JsonObject>; finish: (result: JsonObject) => void; started: () => boolean } {
  let finish: ((result: JsonObject) => void) | undefined;
  return {
    handler: () => new Promise<JsonObject>((resolve) => (finish = resolve)),
    finish: (result) => finish?.(result),
    started: () => finish !== undefined,
  };
}

interface Draining {
  readonly clock: TestClock;
  /** The session that closes, with one of its peer's requests running. */
  readonly closing: McpSession;
  /** What the closing session sent. */
  readonly sent: JsonObject[];
  readonly held: ReturnType<typeof heldHandler>;
  readonly requestId: unknown;
}

/** A connected pair where the side of `role` runs one request of its peer that does not end by itself. */
async function draining(role: 'server' | 'client'): Promise<Draining> {
  const clock = new TestClock();
  const held = heldHandler();
  const pair = await connectPair(role === 'server' ? { clock, serverHandlers: { 'tools/call': held.handler } } : { clock, clientHandlers: { 'roots/list': held.handler } });
  const asking = role === 'server' ? pair.client : pair.server;
  void (role === 'server' ? asking.request('tools/call', { name: 't', arguments: {} }) : asking.request('roots/list')).catch(() => undefined);
  await settle();
  assert.ok(held.started(), 'the request runs');
  const sent = role === 'server' ? pair.serverSent : pair.clientSent;
  const received = role === 'server' ? pair.clientSent : pair.serverSent;
  const requestId = received.find((message) => message['method'] === (role === 'server' ? 'tools/call' : 'roots/list'))?.['id'];
  return { clock, closing: role === 'server' ? pair.server : pair.client, sent, held, requestId };
}

/** A transport whose sends wait until the test opens it: the writer queues behind the first frame. */
function gatedTransport(): { transport: Transport; open: () => void; delivered: OutboundFrame[] } {
  const inbound = new Subject<InboundFrame>();
  const delivered: OutboundFrame[] = [];
  let gate: { promise: Promise<void>; resolve: () => void } | undefined;
  const transport: Transport = {
    kind: 'gated',
    incoming$: inbound.asObservable(),
    send: (frame) => {
      delivered.push(frame);
      if (gate === undefined) {
        let resolve!: () => void;
        const promise = new Promise<void>((done) => (resolve = done));
        gate = { promise, resolve };
      }
      return gate.promise;
    },
    close: async () => inbound.complete(),
  };
  return {
    transport,
    delivered,
    open: () => {
      const opened = gate;
      gate = undefined;
      // From now on frames go at once.
      (transport as { send: Transport['send'] }).send = (frame) => void delivered.push(frame);
      opened?.resolve();
    },
  };
}

/** A session of `role` on a gated transport with two frames written: one at the transport, one queued. */
function flushing(role: 'server' | 'client'): { clock: TestClock; session: SessionCore; open: () => void; delivered: OutboundFrame[] } {
  const clock = new TestClock();
  const { transport, open, delivered } = gatedTransport();
  const session = new SessionCore(role, transport, role === 'server' ? serverLifecycleMachine : clientLifecycleMachine, {}, undefined, undefined, { clock });
  session.start();
  // Pings may go before any handshake, in either role; each answer-less ping also fails when the session ends.
  void session.ping().catch(() => undefined);
  void session.ping().catch(() => undefined);
  assert.equal(session.queuedFrames, 1, 'one frame waits behind the one the transport holds');
  return { clock, session, open, delivered };
}

for (const role of ['server', 'client'] as const) {
  describe(`${role}: closing deadlines on the injected clock`, () => {
    test(`${role} - the drain deadline fires at its time with no repeating timer pending, and the unfinished request is answered`, async () => {
      const { clock, closing, sent, requestId } = await draining(role);
      const closed = closing.close({ drainMs: DRAIN_MS });
      assert.equal(closing.state, 'shuttingDown');
      assert.equal(clock.intervals, 0, 'nothing polls');
      assert.equal(clock.dueIn(DRAIN_MS), 1, 'the drain deadline is one timer');
      await clock.advanceAsync(DRAIN_MS - 1);
      assert.equal(closing.state, 'shuttingDown', 'the drain goes on until its deadline');
      assert.deepEqual(responsesTo(sent, requestId), []);
      await clock.advanceAsync(1);
      await closed;
      assert.equal(closing.state, 'closed');
      const answer = responsesTo(sent, requestId)[0]?.['error'] as { data?: { deadlineMs?: number } } | undefined;
      assert.equal(answer?.data?.deadlineMs, DRAIN_MS, 'the request outlasting the drain is answered with its deadline');
      assert.equal(clock.intervals, 0);
    });

    test(`${role} - the last running request ending ends the drain at once and cancels its deadline`, async () => {
      const { clock, closing, sent, held, requestId } = await draining(role);
      const closed = closing.close({ drainMs: DRAIN_MS });
      assert.equal(clock.dueIn(DRAIN_MS), 1);
      held.finish(role === 'server' ? toolResult('done') : { roots: [] });
      await settle();
      await closed;
      assert.equal(closing.state, 'closed');
      assert.ok(responsesTo(sent, requestId)[0]?.['result'] !== undefined, 'the request finished in time and was answered');
      assert.equal(clock.dueIn(DRAIN_MS), 0, 'the drain deadline was cancelled');
      assert.equal(clock.intervals, 0);
    });

    test(`${role} - the flush deadline fires at its time with no repeating timer pending`, async () => {
      const { clock, session } = flushing(role);
      let done = false;
      const closed = session.close({ flushMs: FLUSH_MS }).then(() => (done = true));
      await settle();
      assert.equal(session.state, 'shuttingDown', 'the queued frame may still go');
      assert.equal(clock.intervals, 0, 'nothing polls');
      assert.equal(clock.dueIn(FLUSH_MS), 1, 'the flush deadline is one timer');
      await clock.advanceAsync(FLUSH_MS - 1);
      assert.equal(session.state, 'shuttingDown');
      await clock.advanceAsync(1);
      await closed;
      assert.ok(done);
      assert.equal(session.state, 'closed');
      assert.equal(clock.intervals, 0);
    });

    test(`${role} - the writer's queue emptying ends the flush at once and cancels its deadline`, async () => {
      const { clock, session, open, delivered } = flushing(role);
      const closed = session.close({ flushMs: FLUSH_MS });
      await settle();
      assert.equal(clock.dueIn(FLUSH_MS), 1);
      open();
      await settle();
      await closed;
      assert.equal(session.state, 'closed');
      assert.equal(delivered.length, 2, 'the queued frame went out before the transport closed');
      assert.equal(clock.dueIn(FLUSH_MS), 0, 'the flush deadline was cancelled');
      assert.equal(clock.intervals, 0);
    });
  });
}
