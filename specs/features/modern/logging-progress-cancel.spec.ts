/**
 * Modern era (2026-07-28): what travels beside a request's answer. Log messages only when the request asked
 * for them with `_meta.logLevel` (FEATURES #9), at or above that level; progress only for the request that
 * carried the token; `notifications/cancelled` aborts the handler's signal and the request is never answered
 * (#32). Server-wide `server.log()` never reaches a modern connection (there is no session to log to).
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { from } from 'rxjs';
import { deferred } from '../../support/harness.ts';
import { type Message, type ModernHarness, delay, isNotification, modernServer, resultOf, toolText, warmUp } from './modern-peer.ts';

before(warmUp);

const LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;

function withLogger(harness: ModernHarness): ModernHarness {
  harness.server.tool({ name: 'chatty' }, (_args, ctx) => {
    for (const level of LEVELS) ctx.log(level, { level }, 'spec');
    return 'logged';
  });
  return harness;
}

const logs = (messages: readonly Message[]): string[] =>
  messages.map((message) => String((message['params'] as { level?: unknown } | undefined)?.level));

describe('per-request logging', () => {
  test('without a logLevel the request gets no log messages at all', async () => {
    await using harness = withLogger(modernServer());
    const peer = harness.connect();
    assert.equal(toolText(await peer.request('tools/call', { name: 'chatty', arguments: {} })), 'logged');
    assert.equal(peer.all(isNotification('notifications/message')).length, 0);
    harness.assertClean();
  });

  test('with a logLevel, messages at or above it come before the answer, below it never', async () => {
    await using harness = withLogger(modernServer());
    const peer = harness.connect();
    const { id, response } = peer.start('tools/call', { name: 'chatty', arguments: {} }, { logLevel: 'warning' });
    await response;
    const answerAt = peer.received.findIndex((message) => (message as Message)['id'] === id);
    const before = peer.received.slice(0, answerAt) as Message[];
    assert.deepEqual(logs(before.filter(isNotification('notifications/message'))), ['warning', 'error', 'critical', 'alert', 'emergency']);
    const first = before.find(isNotification('notifications/message'));
    assert.deepEqual(first?.['params'], { level: 'warning', data: { level: 'warning' }, logger: 'spec' });
    assert.equal(peer.all(isNotification('notifications/message')).length, 5, 'nothing after the answer');
    harness.assertClean();
  });

  test('the level is per request: a later request without one gets nothing, "debug" gets everything', async () => {
    await using harness = withLogger(modernServer());
    const peer = harness.connect();
    await peer.request('tools/call', { name: 'chatty', arguments: {} }, { logLevel: 'debug' });
    assert.deepEqual(logs(peer.all(isNotification('notifications/message'))), [...LEVELS]);
    await peer.request('tools/call', { name: 'chatty', arguments: {} });
    assert.equal(peer.all(isNotification('notifications/message')).length, LEVELS.length);
    harness.assertClean();
  });

  test('server.log() reaches no modern connection, whatever level its requests asked for', async () => {
    await using harness = modernServer();
    const gate = deferred();
    harness.server.tool({ name: 'wait' }, async () => (await gate.promise, 'done'));
    const peer = harness.connect();
    const running = peer.start('tools/call', { name: 'wait', arguments: {} }, { logLevel: 'debug' });
    await delay(5);
    harness.server.log('emergency', { broadcast: true });
    gate.resolve();
    await running.response;
    assert.equal(peer.all(isNotification('notifications/message')).length, 0);
    harness.assertClean();
  });
});

describe('progress', () => {
  test('progress goes to the request that carried the token, before its answer', async () => {
    await using harness = modernServer();
    harness.server.tool({ name: 'steps' }, () => from([{ progress: 1, total: 2 }, { progress: 2, total: 2, message: 'done' }, 'finished']));
    const peer = harness.connect();
    const { id, response } = peer.start('tools/call', { name: 'steps', arguments: {} }, { extra: { progressToken: 'tok-1' } });
    assert.equal(toolText(await response), 'finished');
    const answerAt = peer.received.findIndex((message) => (message as Message)['id'] === id);
    const progress = (peer.received.slice(0, answerAt) as Message[]).filter(isNotification('notifications/progress'));
    assert.deepEqual(progress.map((message) => message['params']), [
      { progressToken: 'tok-1', progress: 1, total: 2 },
      { progressToken: 'tok-1', progress: 2, total: 2, message: 'done' },
    ]);
    harness.assertClean();
  });

  test('ctx.progress reports with an integer token; without a token there is no progress', async () => {
    await using harness = modernServer();
    harness.server.tool({ name: 'manual' }, (_args, ctx) => {
      ctx.progress(0.5);
      ctx.progress({ progress: 1, total: 1 });
      return 'ok';
    });
    const peer = harness.connect();
    await peer.request('tools/call', { name: 'manual', arguments: {} }, { extra: { progressToken: 7 } });
    assert.deepEqual(peer.all(isNotification('notifications/progress')).map((message) => message['params']), [
      { progressToken: 7, progress: 0.5 },
      { progressToken: 7, progress: 1, total: 1 },
    ]);
    await peer.request('tools/call', { name: 'manual', arguments: {} });
    assert.equal(peer.all(isNotification('notifications/progress')).length, 2);
    harness.assertClean();
  });

  test('two requests in flight each get only their own progress', async () => {
    await using harness = modernServer();
    const gates = { a: deferred(), b: deferred() };
    harness.server.tool({ name: 'slow', inputSchema: { type: 'object', properties: { key: { type: 'string' } } } }, async (args: { key?: unknown }, ctx) => {
      const key = args.key === 'a' ? 'a' : 'b';
      ctx.progress(1);
      await gates[key].promise;
      ctx.progress(2);
      return key;
    });
    const peer = harness.connect();
    const a = peer.start('tools/call', { name: 'slow', arguments: { key: 'a' } }, { extra: { progressToken: 'A' } });
    const b = peer.start('tools/call', { name: 'slow', arguments: { key: 'b' } }, { extra: { progressToken: 'B' } });
    gates.b.resolve();
    assert.equal(toolText(await b.response), 'b');
    gates.a.resolve();
    assert.equal(toolText(await a.response), 'a');
    const tokens = peer.all(isNotification('notifications/progress')).map((message) => (message['params'] as { progressToken: string }).progressToken);
    assert.deepEqual(tokens.filter((token) => token === 'A').length, 2);
    assert.deepEqual(tokens.filter((token) => token === 'B').length, 2);
    harness.assertClean();
  });

  test('a malformed progress token is -32602', async () => {
    await using harness = modernServer();
    harness.server.tool({ name: 'noop' }, () => 'ok');
    const peer = harness.connect();
    const response = await peer.request('tools/call', { name: 'noop', arguments: {} }, { extra: { progressToken: { nested: true } } });
    assert.equal(response.error?.code, -32602);
    harness.assertClean();
  });
});

describe('cancellation', () => {
  test('notifications/cancelled aborts the handler signal, and the request is never answered', async () => {
    await using harness = modernServer();
    const started = deferred();
    const aborted = deferred<unknown>();
    harness.server.tool({ name: 'forever' }, (_args, ctx) => {
      ctx.signal.addEventListener('abort', () => aborted.resolve(ctx.signal.reason));
      started.resolve();
      ctx.log('info', 'started');
      return new Promise<string>((resolve) => ctx.signal.addEventListener('abort', () => setTimeout(() => resolve('too late'), 1)));
    });
    const peer = harness.connect();
    const { id } = peer.start('tools/call', { name: 'forever', arguments: {} }, { logLevel: 'debug' });
    await started.promise;
    peer.notify('notifications/cancelled', { requestId: id, reason: 'user gave up' });
    const reason = await aborted.promise;
    assert.match(String(reason instanceof Error ? reason.message : reason), /user gave up/);
    await peer.expectNone((message) => message['id'] === id, 30);
    harness.assertClean();
  });

  test('cancelling one request leaves the others running and answered', async () => {
    await using harness = modernServer();
    const gate = deferred();
    harness.server.tool({ name: 'wait' }, async (_args, ctx) => {
      await Promise.race([gate.promise, new Promise((resolve) => ctx.signal.addEventListener('abort', resolve))]);
      return ctx.signal.aborted ? 'aborted' : 'finished';
    });
    const peer = harness.connect();
    const cancelled = peer.start('tools/call', { name: 'wait', arguments: {} });
    const kept = peer.start('tools/call', { name: 'wait', arguments: {} });
    await delay(5);
    peer.notify('notifications/cancelled', { requestId: cancelled.id });
    await delay(5);
    gate.resolve();
    assert.equal(toolText(await kept.response), 'finished');
    await peer.expectNone((message) => message['id'] === cancelled.id, 20);
    harness.assertClean();
  });

  test('a cancellation naming an unknown or finished request is ignored', async () => {
    await using harness = modernServer();
    harness.server.tool({ name: 'noop' }, () => 'ok');
    const peer = harness.connect();
    const { id, response } = peer.start('tools/call', { name: 'noop', arguments: {} });
    resultOf(await response);
    peer.notify('notifications/cancelled', { requestId: id });
    peer.notify('notifications/cancelled', { requestId: 'nobody' });
    peer.notify('notifications/cancelled', {});
    assert.equal(toolText(await peer.request('tools/call', { name: 'noop', arguments: {} })), 'ok');
    await peer.expectNone(() => true, 10);
    harness.assertClean();
  });
});
