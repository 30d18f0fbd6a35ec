/**
 * How the stdio frame writer groups a turn's frames into writes: few syscalls, but never a whole window held back
 * until the turn ends (the peer starts on the first batch while this side makes the next).
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { CORKED_FRAMES_MAX, FrameWriter } from '../../../transports/stdio/frame-writer.ts';

/** A stream that records how many frames each write it receives holds (a corked batch arrives as one writev). */
function recordingStream(): { stream: Writable; batches: number[] } {
  const batches: number[] = [];
  const lines = (chunk: Buffer): number => chunk.toString('utf8').split('\n').length - 1;
  const stream = new Writable({
    highWaterMark: 1 << 20,
    write(chunk: Buffer, _encoding, callback) {
      batches.push(lines(chunk));
      callback();
    },
    writev(chunks, callback) {
      batches.push(chunks.reduce((sum, { chunk }) => sum + lines(chunk as Buffer), 0));
      callback();
    },
  });
  return { stream, batches };
}

const writerOn = (stream: Writable): FrameWriter => new FrameWriter(stream, 'test output', true, { status: () => undefined, broken: () => undefined });
const ping = (id: number) => ({ jsonrpc: '2.0' as const, id, method: 'ping' });

test('stdio frame writer: a turn of many frames leaves in batches of the cap, the rest at the end of the turn', async () => {
  const { stream, batches } = recordingStream();
  const writer = writerOn(stream);
  const frames = CORKED_FRAMES_MAX * 2 + 5;
  for (let id = 0; id < frames; id++) void writer.write(ping(id));
  // Two full batches are out before the turn ends; the last five wait for it.
  assert.deepEqual(batches, [CORKED_FRAMES_MAX, CORKED_FRAMES_MAX]);
  await new Promise<void>((resolve) => process.nextTick(resolve));
  assert.deepEqual(batches, [CORKED_FRAMES_MAX, CORKED_FRAMES_MAX, 5]);
  assert.equal(stream.writableCorked, 0, 'nothing stays corked after the turn');
});

test('stdio frame writer: frames of separate turns leave separately, and a few frames of one turn in one write', async () => {
  const { stream, batches } = recordingStream();
  const writer = writerOn(stream);
  void writer.write(ping(1));
  void writer.write(ping(2));
  void writer.write(ping(3));
  assert.deepEqual(batches, [], 'held until the turn ends');
  await new Promise<void>((resolve) => process.nextTick(resolve));
  void writer.write(ping(4));
  await new Promise<void>((resolve) => process.nextTick(resolve));
  assert.deepEqual(batches, [3, 1]);
});

test('stdio frame writer: exactly the cap in one turn leaves as one batch, nothing left corked', async () => {
  const { stream, batches } = recordingStream();
  const writer = writerOn(stream);
  for (let id = 0; id < CORKED_FRAMES_MAX; id++) void writer.write(ping(id));
  assert.deepEqual(batches, [CORKED_FRAMES_MAX]);
  await new Promise<void>((resolve) => process.nextTick(resolve));
  assert.deepEqual(batches, [CORKED_FRAMES_MAX]);
  assert.equal(stream.writableCorked, 0);
});
