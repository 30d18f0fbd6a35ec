import assert from 'node:assert/strict';
import { test } from 'node:test';
import { firstValueFrom, toArray } from 'rxjs';
import { jsonCodec } from '../../core/codecs/json.ts';
import { isLocalError } from '../../core/errors.ts';
import { envelopeOf } from '../../core/frame-envelope.ts';
import type { InboundFrame, TransportStatus } from '../../core/transport.ts';
import { createMemoryPair } from '../../transports/memory/index.ts';

const ping = (id: number) => ({ jsonrpc: '2.0' as const, id, method: 'ping' });

test('memory transport - frames arrive in order, asynchronously, not inside the sender call', async () => {
  const [a, b] = createMemoryPair();
  const received: unknown[] = [];
  b.incoming$.subscribe((frame) => received.push(frame.type === 'message' ? frame.payload : frame.type));
  void a.send({ payload: ping(1) });
  void a.send({ payload: ping(2) });
  assert.deepEqual(received, [], 'nothing is delivered synchronously');
  await Promise.resolve();
  assert.deepEqual(received, [ping(1), ping(2)]);
  await a.close();
});

test('memory transport - frames sent before the reader subscribes are kept and delivered', async () => {
  const [a, b] = createMemoryPair();
  void a.send({ payload: ping(1) });
  await a.close();
  const frames = await firstValueFrom(b.incoming$.pipe(toArray()));
  // Each frame carries its envelope, read where the medium took it in.
  assert.deepEqual(frames, [{ type: 'message', payload: ping(1), envelope: envelopeOf(ping(1)) }], 'queued frames arrive, then incoming$ completes');
});

test('memory transport - a reader that does not read makes send return a promise past the high-water mark', async () => {
  const [a, b] = createMemoryPair({ highWaterMark: 3 });
  const statuses: TransportStatus[] = [];
  a.status$.subscribe((status) => statuses.push(status));
  assert.equal(a.send({ payload: ping(1) }), undefined);
  assert.equal(a.send({ payload: ping(2) }), undefined);
  const waiting = a.send({ payload: ping(3) });
  assert.ok(waiting instanceof Promise, 'the third frame reaches the mark: the writer must wait');
  let drained = false;
  void waiting.then(() => (drained = true));
  await new Promise((resolve) => setTimeout(resolve, 5));
  assert.equal(drained, false, 'nobody reads, so the writer keeps waiting');
  const seen: InboundFrame[] = [];
  b.incoming$.subscribe((frame) => seen.push(frame));
  await waiting;
  assert.equal(seen.length, 3);
  assert.deepEqual(statuses.map((status) => status.type), ['open', 'backpressure', 'drained']);
  await a.close();
});

test('memory transport - send after close rejects with ConnectionClosed on both ends', async () => {
  const [a, b] = createMemoryPair();
  await b.close();
  await assert.rejects(Promise.resolve(a.send({ payload: ping(1) })), (error: unknown) => isLocalError(error, 'ConnectionClosed'));
  await assert.rejects(Promise.resolve(b.send({ payload: ping(1) })), (error: unknown) => isLocalError(error, 'ConnectionClosed'));
});

test('memory transport - with a codec, oversize and malformed bytes arrive as malformed frames', async () => {
  const [a, b] = createMemoryPair({ codec: jsonCodec, maxMessageBytes: 64 });
  const frames: InboundFrame[] = [];
  b.incoming$.subscribe((frame) => frames.push(frame));
  void a.send({ payload: ping(1) });
  void a.send({ payload: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'x'.repeat(100) } } });
  a.sendBytes(Buffer.from('{"jsonrpc":'));
  await Promise.resolve();
  assert.equal(frames.length, 3);
  assert.deepEqual(frames[0], { type: 'message', payload: ping(1), envelope: envelopeOf(ping(1)) });
  assert.ok(frames[1]?.type === 'malformed' && frames[1].error.code === 'FrameTooLarge');
  assert.ok(frames[2]?.type === 'malformed' && frames[2].error.code === 'DecodeFailed');
  await a.close();
});

test('memory transport - a second reader is refused', async () => {
  const [, b] = createMemoryPair();
  b.incoming$.subscribe();
  await assert.rejects(firstValueFrom(b.incoming$), (error: unknown) => isLocalError(error, 'TransportFailed'));
  await b.close();
});

test('memory transport - a reader that unsubscribes frees its place; frames sent meanwhile wait for the next reader', async () => {
  const [a, b] = createMemoryPair();
  const first: unknown[] = [];
  const subscription = b.incoming$.subscribe((frame) => {
    if (frame.type !== 'message') return;
    first.push(frame.payload);
    // Leaving in the middle of a delivery: the rest of the batch stays for whoever reads next.
    subscription.unsubscribe();
  });
  void a.send({ payload: ping(1) });
  void a.send({ payload: ping(2) });
  await Promise.resolve();
  assert.deepEqual(first, [ping(1)]);
  void a.send({ payload: ping(3) });
  await Promise.resolve();
  assert.deepEqual(first, [ping(1)], 'nothing reaches a reader that left');
  const second: unknown[] = [];
  b.incoming$.subscribe((frame) => second.push(frame.type === 'message' ? frame.payload : frame.type));
  await Promise.resolve();
  assert.deepEqual(second, [ping(2), ping(3)]);
  await a.close();
});
