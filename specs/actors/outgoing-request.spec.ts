import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RequestContext, RequestEvent, RequestHandler } from '../../actors/handler-types.ts';
import { LocalError, WireError, isLocalError } from '../../core/errors.ts';
import type { JsonObject } from '../../core/jsonrpc.ts';
import type { Limits } from '../../core/limits.ts';
import { connectSession } from '../../client/connect-session.ts';
import { createSessionAcceptor } from '../../server/session-acceptor.ts';
import type { McpSession } from '../../session/session-core.ts';
import type { SchemaOracle } from '../support/schema-oracle.ts';
import { createMemoryPair } from '../../transports/memory/index.ts';
import {
  type RawPeer, type SessionPair, TestClock, clientInfo, connectPair, handlerTable, messagesWith, observed, paramsOf,
  rawClient, rawPeer, responsesTo, rootsResult, serverInfo, settle, teardown, toolResult,
} from '../support/test-clock.ts';
import { deferred } from '../support/harness.ts';

/** One direction of traffic: who asks, who answers, with which method and result shape. */
interface Direction {
  readonly name: 'client->server' | 'server->client';
  readonly method: 'tools/call' | 'roots/list';
  readonly params: JsonObject | undefined;
  result(tag: string): JsonObject;
  tagOf(result: JsonObject): string;
  pair(clock: TestClock, handler: RequestHandler, limits?: Partial<Limits>): Promise<SessionPair>;
  requester(pair: SessionPair): McpSession;
  requesterSent(pair: SessionPair): JsonObject[];
  responderSent(pair: SessionPair): JsonObject[];
}

const directions: readonly Direction[] = [
  {
    name: 'client->server',
    method: 'tools/call',
    params: { name: 'work', arguments: {} },
    result: toolResult,
    tagOf: (result) => ((result['content'] as JsonObject[])[0] as JsonObject)['text'] as string,
    pair: (clock, handler, limits) => connectPair({ clock, serverHandlers: { 'tools/call': handler }, ...(limits === undefined ? {} : { limits }) }),
    requester: (pair) => pair.client,
    requesterSent: (pair) => pair.clientSent,
    responderSent: (pair) => pair.serverSent,
  },
  {
    name: 'server->client',
    method: 'roots/list',
    params: undefined,
    result: rootsResult,
    tagOf: (result) => ((result['roots'] as JsonObject[])[0] as JsonObject)['name'] as string,
    pair: (clock, handler, limits) => connectPair({ clock, clientHandlers: { 'roots/list': handler }, ...(limits === undefined ? {} : { limits }) }),
    requester: (pair) => pair.server,
    requesterSent: (pair) => pair.serverSent,
    responderSent: (pair) => pair.clientSent,
  },
];

/** A promise's outcome, observable synchronously. */
function track<T>(promise: Promise<T>): { state: 'pending' | 'resolved' | 'rejected'; value: T | undefined; error: unknown } {
  const tracked: { state: 'pending' | 'resolved' | 'rejected'; value: T | undefined; error: unknown } = { state: 'pending', value: undefined, error: undefined };
  promise.then(
    (value) => Object.assign(tracked, { state: 'resolved', value }),
    (error: unknown) => Object.assign(tracked, { state: 'rejected', error }),
  );
  return tracked;
}

const requestOf = (sent: readonly JsonObject[], method: string): JsonObject => {
  const found = messagesWith(sent, method);
  assert.equal(found.length, 1, `exactly one ${method} request was sent`);
  return found[0] as JsonObject;
};

const end = (clock: TestClock, pair: SessionPair): Promise<void> => teardown(clock, [pair.client, pair.server], pair.oracles);

for (const dir of directions) {
  test(`outgoing request - ${dir.name}: request$ emits progress in order, then exactly one result, then completes`, async () => {
    const clock = new TestClock();
    const gate = deferred<JsonObject>();
    const pair = await dir.pair(clock, (_params, context) => {
      context.progress(1);
      context.progress({ progress: 2, total: 4, message: 'half way' });
      return gate.promise;
    });
    const events: RequestEvent[] = [];
    let completed = 0;
    let errored: unknown;
    dir.requester(pair).request$(dir.method, dir.params).subscribe({ next: (event) => events.push(event), complete: () => completed++, error: (error: unknown) => (errored = error) });
    await settle();
    assert.deepEqual(events, [{ type: 'progress', progress: 1 }, { type: 'progress', progress: 2, total: 4, message: 'half way' }]);
    assert.equal(completed, 0);
    gate.resolve(dir.result('done'));
    await settle();
    assert.deepEqual(events.slice(2), [{ type: 'result', result: dir.result('done') }]);
    assert.equal(completed, 1);
    assert.equal(errored, undefined);
    await end(clock, pair);
  });

  test(`outgoing request - ${dir.name}: request() resolves with the result and passes progress to onProgress`, async () => {
    const clock = new TestClock();
    const pair = await dir.pair(clock, async (_params, context) => {
      context.progress(10);
      context.progress(20);
      return dir.result('promised');
    });
    const progress: number[] = [];
    const result = await dir.requester(pair).request(dir.method, dir.params, { onProgress: (event) => progress.push(event.progress) });
    assert.equal(dir.tagOf(result), 'promised');
    assert.deepEqual(progress, [10, 20]);
    await end(clock, pair);
  });

  test(`outgoing request - ${dir.name}: unsubscribing before the result sends one cancel and aborts the handler`, async () => {
    const clock = new TestClock();
    const gate = deferred<JsonObject>();
    let context: RequestContext | undefined;
    const pair = await dir.pair(clock, (_params, ctx) => {
      context = ctx;
      ctx.progress(1);
      return gate.promise;
    });
    const events: RequestEvent[] = [];
    const subscription = dir.requester(pair).request$(dir.method, dir.params).subscribe({ next: (event) => events.push(event), error: () => assert.fail('no error after unsubscribe') });
    await settle();
    assert.equal(events.length, 1);
    assert.equal(context?.signal.aborted, false);
    subscription.unsubscribe();
    await settle();
    const request = requestOf(dir.requesterSent(pair), dir.method);
    const cancels = messagesWith(dir.requesterSent(pair), 'notifications/cancelled');
    assert.equal(cancels.length, 1, 'exactly one notifications/cancelled');
    assert.equal(paramsOf(cancels[0])['requestId'], request['id']);
    assert.equal(context?.signal.aborted, true, "the handler's signal aborted");
    gate.resolve(dir.result('too late'));
    await settle();
    assert.deepEqual(responsesTo(dir.responderSent(pair), request['id']), [], 'the cancelled handler sent no response');
    assert.equal(events.length, 1, 'nothing emitted after unsubscribing');
    await end(clock, pair);
  });

  test(`outgoing request - ${dir.name}: the default timeout rejects with RequestTimeout and sends a cancel with reason timeout`, async () => {
    const clock = new TestClock();
    let context: RequestContext | undefined;
    const pair = await dir.pair(clock, (_params, ctx) => {
      context = ctx;
      return new Promise<JsonObject>(() => {});
    }, { requestTimeoutMs: 1000 });
    const outcome = track(dir.requester(pair).request(dir.method, dir.params));
    await settle();
    clock.advance(999);
    await settle();
    assert.equal(outcome.state, 'pending', 'not before the timeout');
    assert.equal(messagesWith(dir.requesterSent(pair), 'notifications/cancelled').length, 0);
    clock.advance(1);
    await settle();
    assert.equal(outcome.state, 'rejected');
    assert.ok(isLocalError(outcome.error, 'RequestTimeout'), `RequestTimeout, got ${String(outcome.error)}`);
    const cancels = messagesWith(dir.requesterSent(pair), 'notifications/cancelled');
    assert.equal(cancels.length, 1);
    assert.deepEqual(paramsOf(cancels[0]), { requestId: requestOf(dir.requesterSent(pair), dir.method)['id'], reason: 'timeout' });
    assert.equal(context?.signal.aborted, true, 'the peer stopped its handler');
    await end(clock, pair);
  });

  test(`outgoing request - ${dir.name}: resetTimeoutOnProgress keeps the request alive, maxTotalTimeoutMs still ends it`, async () => {
    const clock = new TestClock();
    const pair = await dir.pair(clock, (_params, context) => new Promise<JsonObject>(() => {
      let n = 0;
      const ticker = clock.setInterval(() => context.progress(++n), 800);
      context.signal.addEventListener('abort', () => ticker.cancel(), { once: true });
    }));
    const progress: number[] = [];
    const outcome = track(dir.requester(pair).request(dir.method, dir.params, {
      timeoutMs: 1000, resetTimeoutOnProgress: true, maxTotalTimeoutMs: 3500, onProgress: (event) => progress.push(event.progress),
    }));
    while (clock.now() < 3400) await clock.advanceAsync(100);
    assert.equal(outcome.state, 'pending', 'alive at 3400 ms, long past the 1000 ms timeout');
    assert.deepEqual(progress, [1, 2, 3, 4]);
    await clock.advanceAsync(100);
    assert.equal(outcome.state, 'rejected', 'ended by the total ceiling at 3500 ms');
    assert.ok(isLocalError(outcome.error, 'RequestTimeout'));
    assert.equal(paramsOf(messagesWith(dir.requesterSent(pair), 'notifications/cancelled')[0])['reason'], 'timeout');
    await end(clock, pair);
  });

  test(`outgoing request - ${dir.name}: aborting the signal rejects with RequestAborted, never RequestTimeout`, async () => {
    const clock = new TestClock();
    const pair = await dir.pair(clock, () => new Promise<JsonObject>(() => {}), { requestTimeoutMs: 1000 });
    const requester = dir.requester(pair);
    const promised = new AbortController();
    const outcome = track(requester.request(dir.method, dir.params, { signal: promised.signal }));
    const observed$ = new AbortController();
    let observedError: unknown;
    requester.request$(dir.method, dir.params, { signal: observed$.signal }).subscribe({ error: (error: unknown) => (observedError = error) });
    await settle();
    clock.advance(999);
    // Aborted with a reason that looks like a timeout, one tick before the timeout: still an abort.
    promised.abort(new DOMException('gave up', 'TimeoutError'));
    observed$.abort();
    await settle();
    assert.ok(isLocalError(outcome.error, 'RequestAborted'), `RequestAborted, got ${String(outcome.error)}`);
    assert.ok(isLocalError(observedError, 'RequestAborted'), `RequestAborted, got ${String(observedError)}`);
    const cancels = messagesWith(dir.requesterSent(pair), 'notifications/cancelled');
    assert.equal(cancels.length, 2);
    for (const cancel of cancels) assert.notEqual(paramsOf(cancel)['reason'], 'timeout');
    clock.advance(10);
    assert.equal(messagesWith(dir.requesterSent(pair), 'notifications/cancelled').length, 2, 'no timeout fires afterwards');
    await end(clock, pair);
  });

  test(`outgoing request - ${dir.name}: an already-aborted signal rejects without sending anything`, async () => {
    const clock = new TestClock();
    const pair = await dir.pair(clock, () => assert.fail('the handler must not run'));
    const before = dir.requesterSent(pair).length;
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(dir.requester(pair).request(dir.method, dir.params, { signal: controller.signal }), (error: unknown) => isLocalError(error, 'RequestAborted'));
    let observedError: unknown;
    dir.requester(pair).request$(dir.method, dir.params, { signal: controller.signal }).subscribe({ error: (error: unknown) => (observedError = error) });
    assert.ok(isLocalError(observedError, 'RequestAborted'));
    await settle();
    assert.equal(dir.requesterSent(pair).length, before, 'nothing was sent');
    await end(clock, pair);
  });

  test(`outgoing request - ${dir.name}: a peer error response rejects with a WireError carrying code, message and data`, async () => {
    const clock = new TestClock();
    const pair = await dir.pair(clock, () => {
      throw new WireError(-32001, 'not today', { data: { why: 'closed for lunch', retryAfter: 30 } });
    });
    const outcome = track(dir.requester(pair).request(dir.method, dir.params));
    await settle();
    assert.equal(outcome.state, 'rejected');
    assert.ok(outcome.error instanceof WireError, `a WireError, got ${String(outcome.error)}`);
    assert.equal(outcome.error.code, -32001);
    assert.equal(outcome.error.message, 'not today');
    assert.deepEqual(outcome.error.data, { why: 'closed for lunch', retryAfter: 30 });
    await end(clock, pair);
  });
}

/** A project session talking to a scripted raw peer, in the given direction. */
async function withRawPeer(dir: Direction, clock: TestClock): Promise<{ requester: McpSession; peer: RawPeer; oracle: SchemaOracle; sent: JsonObject[] }> {
  const [clientEnd, serverEnd] = createMemoryPair();
  if (dir.name === 'client->server') {
    const peer = rawPeer(serverEnd);
    const side = observed(clientEnd);
    const requester = await connectSession(side.transport, { clientInfo, capabilities: {}, clock });
    return { requester, peer, oracle: side.oracle, sent: side.sent };
  }
  const side = observed(serverEnd);
  const requester = createSessionAcceptor({ serverInfo, capabilities: {}, handlers: handlerTable() }).accept(side.transport, { clock });
  const peer = await rawClient(clientEnd);
  return { requester, peer, oracle: side.oracle, sent: side.sent };
}

const peerRequest = (peer: RawPeer, method: string): JsonObject => {
  const found = messagesWith(peer.received, method);
  assert.equal(found.length, 1, `the peer received one ${method}`);
  return found[0] as JsonObject;
};

for (const dir of directions) {
  test(`outgoing request - ${dir.name}: a late response after cancel is dropped as a diagnostic, nothing else happens`, async () => {
    const clock = new TestClock();
    const { requester, peer, oracle } = await withRawPeer(dir, clock);
    const diagnostics: string[] = [];
    requester.diagnostics$.subscribe((diagnostic) => diagnostics.push(diagnostic.type));
    const events: RequestEvent[] = [];
    const subscription = requester.request$(dir.method, dir.params).subscribe({ next: (event) => events.push(event), error: () => assert.fail('no error') });
    await settle();
    const request = peerRequest(peer, dir.method);
    subscription.unsubscribe();
    await settle();
    const cancels = messagesWith(peer.received, 'notifications/cancelled');
    assert.equal(cancels.length, 1);
    assert.equal(paramsOf(cancels[0])['requestId'], request['id']);
    peer.send({ jsonrpc: '2.0', id: request['id'], result: dir.result('late') });
    await settle();
    assert.deepEqual(diagnostics, ['dropped-response']);
    assert.deepEqual(events, [], 'the Observable emitted nothing');
    assert.equal(requester.state, 'operating');
    await teardown(clock, [requester], [oracle]);
  });

  test(`outgoing request - ${dir.name}: progress that does not increase is dropped`, async () => {
    const clock = new TestClock();
    const { requester, peer, oracle } = await withRawPeer(dir, clock);
    const dropped: string[] = [];
    requester.diagnostics$.subscribe((diagnostic) => dropped.push(diagnostic.type));
    const events: RequestEvent[] = [];
    requester.request$(dir.method, dir.params).subscribe((event) => events.push(event));
    await settle();
    const request = peerRequest(peer, dir.method);
    const progressToken = (paramsOf(request)['_meta'] as JsonObject)['progressToken'];
    for (const progress of [1, 3, 2, 3, 5]) peer.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken, progress } });
    peer.send({ jsonrpc: '2.0', id: request['id'], result: dir.result('counted') });
    await settle();
    assert.deepEqual(events.map((event) => (event.type === 'progress' ? event.progress : 'result')), [1, 3, 5, 'result']);
    assert.deepEqual(dropped, ['dropped-progress', 'dropped-progress']);
    await teardown(clock, [requester], [oracle]);
  });
}

test('outgoing request - initialize: aborting connectSession never sends notifications/cancelled', async () => {
  const clock = new TestClock();
  const [clientEnd, serverEnd] = createMemoryPair();
  const peer = rawPeer(serverEnd, { answerInitialize: false });
  const side = observed(clientEnd);
  const controller = new AbortController();
  const connecting = track(connectSession(side.transport, { clientInfo, capabilities: {}, clock, signal: controller.signal }));
  await settle();
  assert.deepEqual(peer.received.map((message) => message['method']), ['initialize']);
  controller.abort();
  await settle();
  assert.ok(isLocalError(connecting.error, 'RequestAborted'), `RequestAborted, got ${String(connecting.error)}`);
  assert.deepEqual(peer.received.map((message) => message['method']), ['initialize'], 'no notifications/cancelled for initialize');
  assert.equal(clock.pending, 0);
  side.oracle.assertClean();
});

test('outgoing request - initialize: a handshake timeout rejects with RequestTimeout and sends no cancel', async () => {
  const clock = new TestClock();
  const [clientEnd, serverEnd] = createMemoryPair();
  const peer = rawPeer(serverEnd, { answerInitialize: false });
  const side = observed(clientEnd);
  const connecting = track(connectSession(side.transport, { clientInfo, capabilities: {}, clock, initializeTimeoutMs: 500 }));
  await settle();
  clock.advance(499);
  await settle();
  assert.equal(connecting.state, 'pending');
  clock.advance(1);
  await settle();
  assert.ok(connecting.error instanceof LocalError && connecting.error.code === 'RequestTimeout', `RequestTimeout, got ${String(connecting.error)}`);
  assert.deepEqual(peer.received.map((message) => message['method']), ['initialize']);
  assert.equal(clock.pending, 0);
  side.oracle.assertClean();
});
