import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode } from '../../core/error-codes.ts';
import { isWireError } from '../../core/errors.ts';
import { TestClock, connectPair, responsesTo, settle, teardown, toolResult } from '../support/test-clock.ts';

test('incoming request - a handler running past limits.handlerTimeoutMs is aborted and answered with an internal error', async () => {
  const clock = new TestClock();
  const seen: { aborted?: unknown } = {};
  const pair = await connectPair({
    clock,
    limits: { handlerTimeoutMs: 5_000, requestTimeoutMs: 60_000 },
    serverHandlers: {
      'tools/call': (_params, context) =>
        new Promise((resolve) => {
          context.signal.addEventListener('abort', () => (seen.aborted = context.signal.reason), { once: true });
          // Never resolves on its own before the timeout; resolving after the abort must send nothing.
          setTimeout(() => resolve(toolResult('too late')), 50).unref();
        }),
    },
  });
  const outcome = pair.client.request('tools/call', { name: 'slow', arguments: {} }).catch((error: unknown) => error);
  await settle();
  clock.advance(4_999);
  await settle();
  assert.equal(seen.aborted, undefined, 'the handler still runs before its time is up');
  clock.advance(1);
  await settle();
  const error = await outcome;
  assert.ok(isWireError(error), 'the requester gets a wire error');
  assert.equal(error.code, ErrorCode.InternalError);
  assert.match(error.message, /ran longer than 5000 ms/);
  const reason = seen.aborted as unknown;
  assert.ok(reason instanceof Error && /ran longer than 5000 ms/.test(reason.message), 'the handler signal carries the reason');
  await new Promise((resolve) => setTimeout(resolve, 80));
  const call = pair.clientSent.find((message) => message['method'] === 'tools/call');
  assert.ok(call !== undefined);
  assert.equal(responsesTo(pair.serverSent, call['id']).length, 1, 'the late resolution sends no second response');
  await teardown(clock, [pair.client, pair.server], pair.oracles);
});

test('incoming request - handlerTimeoutMs of Infinity starts no timer', async () => {
  const clock = new TestClock();
  let release: (() => void) | undefined;
  const pair = await connectPair({
    clock,
    limits: { handlerTimeoutMs: Infinity, requestTimeoutMs: Infinity },
    serverHandlers: { 'tools/call': () => new Promise((resolve) => (release = () => resolve(toolResult('done')))) },
  });
  const result = pair.client.request('tools/call', { name: 'x', arguments: {} });
  await settle();
  assert.equal(clock.pending, 0, 'no timer on either side');
  release?.();
  assert.deepEqual(await result, toolResult('done'));
  await teardown(clock, [pair.client, pair.server], pair.oracles);
});
