import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ErrorCode } from '../../../core/error-codes.ts';
import { LocalError } from '../../../core/errors.ts';
import { type JoinOptions, join } from '../../../cli/join/join.ts';
import { detail } from '../../../cli/join/undelivered.ts';
import { fakeTransport, settle } from '../bridge/fake-transport.ts';
import { nothingLost } from './nothing-lost.ts';

const call = (id: number, method = 'tools/call', params: Record<string, unknown> = {}) => ({ jsonrpc: '2.0' as const, id, method, params });
const note = (method: string, params: Record<string, unknown> = {}) => ({ jsonrpc: '2.0' as const, method, params });
const ok = (id: number) => ({ jsonrpc: '2.0' as const, id, result: {} });
const words: JoinOptions['words'] = (why, to) => `${why.kind}: ${detail(why, to)}`;
const failure = (id: number, message: string) => ({ jsonrpc: '2.0' as const, id, error: { code: ErrorCode.InternalError, message } });

describe('join', () => {
  test('join - a full queue refuses: a request gets an error, a notification is dropped and reported, an answer uses the reserve', async () => {
    const front = fakeTransport('front');
    const back = fakeTransport('back');
    back.mode = 'hold';
    const reports: string[] = [];
    join(front, back, { maxQueued: 2, words, names: ['client', 'server'], report: (line) => reports.push(line) });
    front.receive(call(1)); // in flight at the back
    await settle();
    front.receive(call(2));
    front.receive(call(3)); // the queue is full
    front.receive(call(4));
    front.receive(note('notifications/progress'));
    front.receive(ok(70)); // the front's answer to a request of the back's: the reserve takes it
    await settle();
    assert.deepEqual(front.sent, [failure(4, 'full: server is not keeping up (2 messages wait for it)')]);
    assert.ok(reports.some((line) => line.includes('client -> server: dropped a message')), reports.join('\n'));
    while (back.held.length > 0) {
      back.held[0]?.release();
      await settle();
    }
    assert.deepEqual(back.sent, [call(1), call(2), call(3), ok(70)]);
  });

  test('join - backpressure: one send at a time, and the front is not read while the back keeps a send waiting', async () => {
    const front = fakeTransport('front', { pausable: true });
    const back = fakeTransport('back', { pausable: true });
    back.mode = 'hold';
    join(front, back, { words });
    for (let id = 1; id <= 4; id++) front.receive(call(id));
    await settle();
    assert.equal(back.sent.length, 1);
    assert.deepEqual(front.reading, ['pause'], 'the front is paused while the back holds a send');
    assert.deepEqual(back.reading, [], 'the back is still read: its answers free it');
    while (back.held.length > 0) {
      back.held[0]?.release();
      await settle();
    }
    assert.equal(back.maxHeld, 1);
    assert.deepEqual(back.sent, [1, 2, 3, 4].map((id) => call(id)));
    assert.deepEqual(front.reading, ['pause', 'resume']);
  });

  test('join - exchange mapping: answers, batches of answers and related notifications go out on their request\'s exchange', async () => {
    const front = fakeTransport('front');
    const back = fakeTransport('back');
    join(front, back, { words });
    front.receiveFrame({ type: 'message', payload: call(1), exchange: 'post-1' });
    front.receiveFrame({ type: 'message', payload: [call(2), call(3)], exchange: 'post-2' });
    await settle();
    // A notification on request 1's reply subject (the NATS client names it by the request id).
    back.receiveFrame({ type: 'message', payload: note('notifications/progress', { progress: 1 }), exchange: 1 });
    back.receive([ok(2), ok(3)]);
    back.receive(ok(1));
    back.receive(note('notifications/tools/list_changed'));
    await settle();
    assert.deepEqual(front.frames.map((frame) => frame.exchange), ['post-1', 'post-2', 'post-1', undefined]);
    assert.deepEqual(front.sent, [note('notifications/progress', { progress: 1 }), [ok(2), ok(3)], ok(1), note('notifications/tools/list_changed')]);
  });

  test('join - a request the back reports undeliverable, or whose send fails, is answered once, on its exchange; a late answer is dropped', async () => {
    const front = fakeTransport('front');
    const back = fakeTransport('back');
    const reports: string[] = [];
    join(front, back, { words, report: (line) => reports.push(line) });
    front.receiveFrame({ type: 'message', payload: call(1), exchange: 'e1' });
    await settle();
    back.receiveFrame({ type: 'undeliverable', payload: call(1), error: new LocalError('PeerUnresponsive', 'silent for 30 s') });
    back.receive(ok(1)); // too late: answered already
    back.mode = 'refuse';
    front.receiveFrame({ type: 'message', payload: call(2), exchange: 'e2' });
    await settle();
    assert.deepEqual(front.sent, [failure(1, 'reported: silent for 30 s'), failure(2, 'refused: back refuses')]);
    assert.deepEqual(front.frames.map((frame) => frame.exchange), ['e1', 'e2']);
    assert.ok(reports.some((line) => line.includes('late answer to request 1')), reports.join('\n'));
  });

  test('join - a send that fails after the back answered is not a second answer', async () => {
    const front = fakeTransport('front');
    const back = fakeTransport('back');
    back.mode = 'hold';
    join(front, back, { words });
    front.receive(call(1));
    await settle();
    back.receive(ok(1)); // the back answered while its send still held
    back.held[0]?.fail(new LocalError('TransportFailed', 'write failed late'));
    await settle();
    assert.deepEqual(front.sent, [ok(1)]);
  });

  test('join - a request of the back\'s that the front cannot deliver is answered to the back', async () => {
    const front = fakeTransport('front');
    const back = fakeTransport('back');
    join(front, back, { words });
    front.receiveFrame({ type: 'undeliverable', payload: call(50, 'sampling/createMessage'), error: new LocalError('TransportFailed', 'the client answers in plain JSON') });
    await settle();
    assert.deepEqual(back.sent, [failure(50, 'reported: the client answers in plain JSON')]);
  });

  test('join - closing a front exchange as a cancellation cancels its requests at the back, and only those', async () => {
    const front = fakeTransport('front');
    const back = fakeTransport('back');
    const joined = join(front, back, { words });
    front.receiveFrame({ type: 'message', payload: call(1), exchange: 'gone' });
    front.receiveFrame({ type: 'message', payload: call(2), exchange: 'stays' });
    await settle();
    front.receiveFrame({ type: 'exchange-closed', exchange: 'stays' }); // not a cancellation: the answer is still wanted
    front.receiveFrame({ type: 'exchange-closed', exchange: 'gone', cancels: true });
    await settle();
    assert.deepEqual(back.sent.slice(2), [note('notifications/cancelled', { requestId: 1, reason: 'The client is gone' })]);
    assert.equal(joined.inFlight, 1, 'nobody waits for the cancelled request');

    const quietFront = fakeTransport('front');
    const quietBack = fakeTransport('back');
    join(quietFront, quietBack, { words, cancelOnExchangeClose: false });
    quietFront.receiveFrame({ type: 'message', payload: call(1), exchange: 'gone' });
    quietFront.receiveFrame({ type: 'exchange-closed', exchange: 'gone', cancels: true });
    await settle();
    assert.deepEqual(quietBack.sent, [call(1)]);
  });

  test('join - too many requests in flight: the frame is refused whole', async () => {
    const front = fakeTransport('front');
    const back = fakeTransport('back');
    join(front, back, { words, maxInFlight: 2 });
    front.receive(call(1));
    front.receive([call(2), call(3)]);
    front.receive(call(4));
    await settle();
    assert.deepEqual(back.sent, [call(1), call(4)]);
    assert.deepEqual(front.sent, [failure(2, 'in-flight: 2 requests are in flight already'), failure(3, 'in-flight: 2 requests are in flight already')]);
  });

  test('join - prepare runs before each front message, in order while it waits; a failure answers the frame\'s requests', async () => {
    const front = fakeTransport('front');
    const back = fakeTransport('back');
    const prepared: unknown[] = [];
    join(front, back, {
      words,
      hooks: {
        prepare: async (frame) => {
          const id = (frame.payload as { id?: number }).id;
          await new Promise((resolve) => setTimeout(resolve, id === 1 ? 30 : 1));
          if (id === 2) throw new Error('no key for the caller');
          prepared.push(id ?? 'note');
        },
      },
    });
    front.receive(call(1));
    front.receive(call(2));
    front.receive(note('notifications/initialized'));
    await new Promise((resolve) => setTimeout(resolve, 80));
    await settle();
    assert.deepEqual(prepared, [1, 'note']);
    assert.deepEqual(back.sent, [call(1), note('notifications/initialized')]);
    assert.deepEqual(front.sent, [failure(2, 'prepare: no key for the caller')]);
  });

  test('join - the handshake: the revision reaches the front before the answer (after onInitialized), a refusal after it', async () => {
    const front = fakeTransport('front');
    const back = fakeTransport('back');
    const order: string[] = [];
    const originalSend = front.send.bind(front);
    front.send = (frame) => {
      order.push(`sent, negotiated ${JSON.stringify(front.negotiations)}`);
      return originalSend(frame);
    };
    join(front, back, {
      words,
      hooks: {
        onInitialized: async (request, result) => {
          await settle(1);
          order.push(`recorded ${String(request['protocolVersion'])} -> ${String(result['protocolVersion'])}`);
        },
      },
    });
    front.receive(call(1, 'initialize', { protocolVersion: '2025-06-18' }));
    await settle();
    back.receive({ jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-06-18' } });
    await settle();
    assert.deepEqual(order, ['recorded 2025-06-18 -> 2025-06-18', 'sent, negotiated ["2025-06-18"]']);

    const refused = fakeTransport('front');
    const refusedBack = fakeTransport('back');
    refused.mode = 'hold';
    join(refused, refusedBack, { words });
    refused.receive(call(1, 'initialize', { protocolVersion: 'nonsense' }));
    await settle();
    refusedBack.receive({ jsonrpc: '2.0', id: 1, error: { code: ErrorCode.InvalidParams, message: 'Unsupported protocol version' } });
    await settle();
    assert.deepEqual(refused.negotiations, [], 'not before the refusal went');
    refused.held[0]?.release();
    await settle();
    assert.deepEqual(refused.negotiations, [undefined]);
  });

  test('join - close with a drain deadline: new requests refused, answers in time pass, the rest answered naming the deadline, then both close', async () => {
    const front = fakeTransport('front');
    const back = fakeTransport('back');
    let closed = 0;
    const joined = join(front, back, { words, hooks: { onClosed: () => void closed++ } });
    front.receive(call(1));
    front.receive(call(2));
    await settle();
    const closing = joined.close({ drainMs: 150 });
    front.receive(call(3));
    back.receive(ok(1));
    await closing;
    assert.deepEqual(front.sent, [
      failure(3, 'closing: the connection is closing'),
      ok(1),
      failure(2, 'unanswered: the close deadline of 150 ms passed'),
    ]);
    assert.equal(front.closed && back.closed, true);
    assert.equal(closed, 1);
    assert.deepEqual(await joined.done, { first: 'front', reason: undefined });
  });

  test('join - when the back ends, what it never answered is answered, its last words go first, then the front closes', async () => {
    const front = fakeTransport('front');
    const back = fakeTransport('back');
    const joined = join(front, back, { words, names: ['client', 'server'] });
    front.receive(call(1));
    front.receive(call(2));
    await settle();
    back.receive(ok(1));
    back.end(new LocalError('ConnectionClosed', 'exit 3'));
    const end = await joined.done;
    assert.equal(end.first, 'back');
    assert.deepEqual(front.sent, [ok(1), failure(2, 'unanswered: server ended: exit 3')]);
    assert.equal(front.closed, true);
  });
});

describe('join - nothing lost', () => {
  for (let seed = 1; seed <= 16; seed++) {
    test(`join - nothing lost (seed ${seed}): every front request gets exactly one answer, whatever the back does`, async () => {
      const tally = await nothingLost(seed, 200);
      assert.ok(tally.requests > 150, 'enough requests to mean something');
      assert.deepEqual(tally.lost, [], `seed ${seed}: requests without an answer\n${tally.reports.join('\n')}`);
      assert.deepEqual(tally.doubled, [], `seed ${seed}: requests answered twice`);
    });
  }
});
