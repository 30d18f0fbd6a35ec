/**
 * The outbound writer over a medium that holds back each exchange alone (`Transport.flowPerExchange`, a Streamable
 * HTTP session): a Promise from `send` queues that exchange's later frames, in order, while every other exchange's
 * frames (and those of no exchange) go on; the queue's bound and the slow-consumer state count every exchange;
 * under the `pause` policy only a producer of a held-back exchange waits. A medium without the flag keeps one lane.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { OutboundWriter, type OutboundWriterEvents } from '../../actors/outbound-writer.ts';
import { type BackpressureOptions, type FlowStatus, resolveBackpressure } from '../../core/backpressure.ts';
import type { LocalError } from '../../core/errors.ts';
import type { OutboundFrame, Transport } from '../../core/transport.ts';
import { deferred } from '../support/harness.ts';
import { TestClock } from '../support/test-clock.ts';

/** A transport whose exchanges named in `held` take a frame only when the test releases them. */
class HoldingTransport {
  readonly kind = 'spec';
  readonly incoming$ = undefined as never;
  readonly sent: string[] = [];
  private readonly gates = new Map<string, ReturnType<typeof deferred<void>>>();

  constructor(readonly flowPerExchange: boolean, private readonly held: Set<string | undefined>) {}

  send(frame: OutboundFrame): void | Promise<void> {
    this.sent.push(labelOf(frame));
    const exchange = frame.exchange === undefined ? undefined : String(frame.exchange);
    if (!this.held.has(exchange)) return undefined;
    const gate = deferred<void>();
    this.gates.set(exchange ?? 'none', gate);
    return gate.promise;
  }

  /** Lets the exchange's last frame through, and takes its next ones at once. */
  release(exchange: string | undefined): void {
    this.held.delete(exchange);
    this.gates.get(exchange ?? 'none')?.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

const labelOf = (frame: OutboundFrame): string => `${frame.exchange ?? '-'}:${String((frame.payload as { params?: { n?: number } }).params?.n)}`;
const note = (exchange: string | undefined, n: number): OutboundFrame =>
  exchange === undefined ? { payload: { jsonrpc: '2.0', method: 'notifications/message', params: { n } } } : { payload: { jsonrpc: '2.0', method: 'notifications/message', params: { n } }, exchange };

function writerOver(transport: HoldingTransport, backpressure: BackpressureOptions, maxQueued = 100) {
  const overflows: LocalError[] = [];
  const flows: FlowStatus[] = [];
  const events: OutboundWriterEvents = {
    onOverflow: (error) => void overflows.push(error),
    onFailure: () => undefined,
    isWritable: () => true,
    onFlow: (status) => void flows.push(status),
    onWaiting: () => undefined,
  };
  const writer = new OutboundWriter(transport as unknown as Transport, maxQueued, 10, resolveBackpressure(backpressure), new TestClock(), events);
  return { writer, overflows, flows };
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('outbound writer, one lane per exchange', () => {
  test('a held-back exchange queues its own frames in order; other exchanges and frames of none go on', async () => {
    const transport = new HoldingTransport(true, new Set(['a']));
    const { writer } = writerOver(transport, { policy: 'close' });
    writer.write(note('a', 1));
    writer.write(note('a', 2));
    writer.write(note('b', 1));
    writer.write(note(undefined, 1));
    writer.write(note('a', 3));
    assert.deepEqual(transport.sent, ['a:1', 'b:1', '-:1']);
    assert.equal(writer.queued, 2);
    transport.release('a');
    await turn();
    assert.deepEqual(transport.sent, ['a:1', 'b:1', '-:1', 'a:2', 'a:3']);
    assert.equal(writer.queued, 0);
  });

  test('without flowPerExchange, a wait holds back every frame (one lane)', async () => {
    const transport = new HoldingTransport(false, new Set(['a']));
    const { writer } = writerOver(transport, { policy: 'close' });
    writer.write(note('a', 1));
    writer.write(note('b', 1));
    writer.write(note(undefined, 1));
    assert.deepEqual(transport.sent, ['a:1']);
    transport.release('a');
    await turn();
    assert.deepEqual(transport.sent, ['a:1', 'b:1', '-:1']);
  });

  test('the bound and the slow state count every exchange\'s queue', () => {
    const transport = new HoldingTransport(true, new Set(['a', 'b']));
    const { writer, overflows, flows } = writerOver(transport, { policy: 'close', slowAfterFrames: 4 }, 6);
    writer.write(note('a', 0));
    writer.write(note('b', 0));
    for (let n = 1; n <= 3; n++) {
      writer.write(note('a', n));
      writer.write(note('b', n));
    }
    assert.equal(writer.queued, 6);
    assert.deepEqual(flows.map((flow) => flow.type), ['slow']);
    writer.write(note('c', 1));
    assert.deepEqual(transport.sent.at(-1), 'c:1', 'an exchange that is not held back is not queued');
    writer.write(note('a', 4));
    assert.equal(overflows.length, 1, 'one more for a held-back exchange overflows');
    assert.match(overflows[0]?.message ?? '', /maxOutboundQueue: 6 frames/);
  });

  test('pause: only a producer of a held-back exchange waits', async () => {
    const transport = new HoldingTransport(true, new Set(['a']));
    const { writer } = writerOver(transport, { policy: 'pause', slowAfterFrames: 2 });
    for (let n = 0; n < 4; n++) writer.write(note('a', n));
    let held = true;
    const heldBack = writer.whenWritable('a').then(() => void (held = false));
    let other = false;
    await writer.whenWritable('b').then(() => void (other = true));
    await writer.whenWritable(undefined);
    assert.equal(other, true, 'a producer on another exchange goes on');
    await turn();
    assert.equal(held, true, 'the held-back exchange\'s producer waits');
    transport.release('a');
    await heldBack;
    assert.equal(held, false);
  });
});
