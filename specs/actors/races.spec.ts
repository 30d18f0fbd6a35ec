import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Subject } from 'rxjs';
import type { RequestContext, RequestEvent, RequestHandler } from '../../actors/handler-types.ts';
import { isLocalError, isWireError } from '../../core/errors.ts';
import type { JsonObject } from '../../core/jsonrpc.ts';
import { connectSession } from '../../client/connect-session.ts';
import { createSessionAcceptor } from '../../server/session-acceptor.ts';
import type { McpSession } from '../../session/session-core.ts';
import { createMemoryPair } from '../../transports/memory/index.ts';
import {
  type SessionPair, TestClock, clientInfo, connectPair, handlerTable, mapsOf, messagesWith, observed, paramsOf, prng, rawClient, rawPeer,
  responsesTo, serverInfo, settle, teardown, toolResult,
} from '../support/test-clock.ts';

const call = (name: string, args: JsonObject = {}): JsonObject => ({ name, arguments: args });
const end = (clock: TestClock, pair: SessionPair): Promise<void> => teardown(clock, [pair.client, pair.server], pair.oracles);

/** Collects what a request$ subscriber sees. */
function observe(session: McpSession, method: string, params: JsonObject | undefined) {
  const seen = { events: [] as RequestEvent[], completed: false, error: undefined as unknown };
  const subscription = session.request$(method, params).subscribe({
    next: (event) => seen.events.push(event),
    complete: () => (seen.completed = true),
    error: (error: unknown) => (seen.error = error),
  });
  return { seen, subscription };
}

/** Settles a promise into a record, for asserting outcomes later. */
function outcomeOf(promise: Promise<unknown>): { error: unknown; value: unknown; settled: boolean } {
  const outcome = { error: undefined as unknown, value: undefined as unknown, settled: false };
  promise.then((value) => Object.assign(outcome, { value, settled: true }), (error: unknown) => Object.assign(outcome, { error, settled: true }));
  return outcome;
}

test('races - cancel vs response in the same tick: a response already queued when the subscriber leaves', async () => {
  const clock = new TestClock();
  const outputs: Array<Subject<JsonObject>> = [];
  const pair = await connectPair({ clock, serverHandlers: { 'tools/call': () => {
    const output = new Subject<JsonObject>();
    outputs.push(output);
    return output;
  } } });
  const diagnostics: string[] = [];
  pair.client.diagnostics$.subscribe((diagnostic) => diagnostics.push(diagnostic.type));

  // Observable: the response is written (queued for delivery), then the subscriber unsubscribes in the same tick.
  const first = observe(pair.client, 'tools/call', call('first'));
  // Promise: the same, with an abort.
  const controller = new AbortController();
  const second = outcomeOf(pair.client.request('tools/call', call('second'), { signal: controller.signal }));
  await settle();
  assert.equal(outputs.length, 2);
  for (const [index, output] of outputs.entries()) {
    output.next(toolResult(`answer ${index}`));
    output.complete();
  }
  first.subscription.unsubscribe();
  controller.abort();
  await settle();
  assert.deepEqual(first.seen.events, [], 'the subscriber saw no result');
  assert.equal(first.seen.error, undefined, 'and no error');
  assert.ok(isLocalError(second.error, 'RequestAborted'), `one outcome: RequestAborted, got ${String(second.error)}`);
  assert.equal(second.value, undefined);
  assert.deepEqual(diagnostics, ['dropped-response', 'dropped-response'], 'both late responses were dropped quietly');
  assert.equal(messagesWith(pair.clientSent, 'notifications/cancelled').length, 2);
  assert.equal(messagesWith(pair.serverSent, 'notifications/progress').length + pair.serverSent.filter((m) => 'error' in m).length, 0, 'the server sent nothing but the two results');

  // The other order: the response is delivered first; unsubscribing afterwards is a no-op.
  const third = observe(pair.client, 'tools/call', call('third'));
  await settle();
  outputs[2]?.next(toolResult('answer 2'));
  outputs[2]?.complete();
  await settle();
  third.subscription.unsubscribe();
  await settle();
  assert.deepEqual(third.seen.events, [{ type: 'result', result: toolResult('answer 2') }]);
  assert.equal(third.seen.completed, true);
  assert.equal(messagesWith(pair.clientSent, 'notifications/cancelled').length, 2, 'no cancel for a settled request');
  await end(clock, pair);
});

for (const closing of ['client', 'server'] as const) {
  test(`races - closing the ${closing} with requests in flight both ways: its own fail with ConnectionClosed, the peer's get one shutdown error each, every handler aborts`, async () => {
    const clock = new TestClock();
    const contexts: RequestContext[] = [];
    const nested: Array<ReturnType<typeof outcomeOf>> = [];
    const never = (_params: JsonObject | undefined, context: RequestContext): Promise<JsonObject> => {
      contexts.push(context);
      return new Promise<JsonObject>(() => {});
    };
    const serverTool: RequestHandler = (params, context) => {
      if (params?.['name'] === 'nested') nested.push(outcomeOf(context.request('roots/list')));
      return never(params, context);
    };
    const pair = await connectPair({ clock, serverHandlers: { 'tools/call': serverTool }, clientHandlers: { 'roots/list': never } });
    const clientCalls = [outcomeOf(pair.client.request('tools/call', call('a'))), outcomeOf(pair.client.request('tools/call', call('nested')))];
    const clientStream = observe(pair.client, 'tools/call', call('b'));
    const serverCalls = [outcomeOf(pair.server.request('roots/list')), outcomeOf(pair.server.request('roots/list'))];
    await settle();
    assert.equal(contexts.length, 6, 'three tool calls and three roots/list requests are running');
    assert.equal(mapsOf(pair.client).outgoing.size, 3);
    assert.equal(mapsOf(pair.server).outgoing.size, 3);

    await (closing === 'client' ? pair.client : pair.server).close();
    await settle();

    // The closing side answers what it was still handling (no drain time: at once) and fails what it waited for.
    const answered = closing === 'server' ? [...clientCalls.map((o) => o.error), clientStream.seen.error] : [...serverCalls, ...nested].map((o) => o.error);
    const failed = closing === 'server' ? [...serverCalls, ...nested].map((o) => o.error) : [...clientCalls.map((o) => o.error), clientStream.seen.error];
    for (const error of answered) {
      assert.ok(isWireError(error) && error.code === -32603, `a shutdown error answer, got ${String(error)}`);
      assert.match(error.message, new RegExp(`^The ${closing} shut down before .+ \\(request .+\\) finished: the shutdown deadline of 0 ms passed$`));
    }
    for (const error of failed) assert.ok(isLocalError(error, 'ConnectionClosed'), `ConnectionClosed, got ${String(error)}`);
    assert.equal(nested.length, 1);
    assert.deepEqual(contexts.map((context) => context.signal.aborted), contexts.map(() => true), 'every handler signal aborted');
    assert.equal(pair.client.state, 'closed');
    assert.equal(pair.server.state, 'closed');
    assert.deepEqual(pair.clientSentAfterClose, [], 'the client wrote nothing after its transport closed');
    assert.deepEqual(pair.serverSentAfterClose, [], 'the server wrote nothing after its transport closed');
    for (const session of [pair.client, pair.server]) assert.deepEqual([mapsOf(session).outgoing.size, mapsOf(session).incoming.size], [0, 0]);
    await end(clock, pair);
  });
}

/** Server handler for the timeout-vs-progress races: progress at 500 and 1500 ms, the result at 2000 ms. */
function scheduledHandler(clock: TestClock): { handler: RequestHandler; aborted: () => boolean } {
  let signal: AbortSignal | undefined;
  const handler: RequestHandler = (_params, context) => new Promise<JsonObject>((resolve) => {
    signal = context.signal;
    const timers = [
      clock.setTimeout(() => context.progress(1), 500),
      clock.setTimeout(() => context.progress(2), 1500),
      clock.setTimeout(() => resolve(toolResult('in time')), 2000),
    ];
    context.signal.addEventListener('abort', () => timers.forEach((timer) => timer.cancel()), { once: true });
  });
  return { handler, aborted: () => signal?.aborted === true };
}

test('races - timeout vs progress at the same virtual time: progress delivered first re-arms the timeout', async () => {
  const clock = new TestClock();
  const server = scheduledHandler(clock);
  const pair = await connectPair({ clock, serverHandlers: { 'tools/call': server.handler } });
  const progress: number[] = [];
  const outcome = outcomeOf(pair.client.request('tools/call', call('x'), { timeoutMs: 1000, resetTimeoutOnProgress: true, onProgress: (event) => progress.push(event.progress) }));
  // At 1500 ms both the re-armed timeout (set at 500) and the server's progress are due; the progress timer was
  // set first, and its delivery runs before the next timer, so it re-arms the timeout.
  await clock.advanceAsync(2000);
  assert.deepEqual(outcome.value, toolResult('in time'));
  assert.deepEqual(progress, [1, 2]);
  assert.equal(messagesWith(pair.clientSent, 'notifications/cancelled').length, 0);
  await end(clock, pair);
});

test('races - timeout vs progress at the same virtual time: the timeout fires while progress is in flight', async () => {
  const clock = new TestClock();
  const server = scheduledHandler(clock);
  const pair = await connectPair({ clock, serverHandlers: { 'tools/call': server.handler } });
  const diagnostics: string[] = [];
  pair.client.diagnostics$.subscribe((diagnostic) => diagnostics.push(diagnostic.type));
  const progress: number[] = [];
  const outcome = outcomeOf(pair.client.request('tools/call', call('x'), { timeoutMs: 1000, resetTimeoutOnProgress: true, onProgress: (event) => progress.push(event.progress) }));
  await clock.advanceAsync(500);
  assert.deepEqual(progress, [1]);
  clock.advance(1000); // 1500 ms: the server sends progress 2, then the client's timeout fires before it is delivered
  await settle();
  assert.ok(isLocalError(outcome.error, 'RequestTimeout'), `RequestTimeout, got ${String(outcome.error)}`);
  assert.deepEqual(progress, [1], 'the late progress was not delivered');
  assert.deepEqual(diagnostics, ['dropped-progress']);
  assert.equal(paramsOf(messagesWith(pair.clientSent, 'notifications/cancelled')[0])['reason'], 'timeout');
  assert.equal(server.aborted(), true, 'the server stopped the handler');
  await end(clock, pair);
});

test('races - the peer closing the transport mid-request fails it with ConnectionClosed (client requester)', async () => {
  const clock = new TestClock();
  const [clientEnd, serverEnd] = createMemoryPair();
  const peer = rawPeer(serverEnd);
  const side = observed(clientEnd);
  const client = await connectSession(side.transport, { clientInfo, capabilities: {}, clock });
  const pending = outcomeOf(client.request('tools/call', call('x')));
  const stream = observe(client, 'tools/call', call('y'));
  await settle();
  assert.equal(messagesWith(peer.received, 'tools/call').length, 2);
  await peer.close();
  await settle();
  assert.ok(isLocalError(pending.error, 'ConnectionClosed'), `ConnectionClosed, got ${String(pending.error)}`);
  assert.ok(isLocalError(stream.seen.error, 'ConnectionClosed'));
  assert.equal(client.state, 'closed');
  assert.equal(await client.closed, undefined, 'closed by the peer, not for a local reason');
  assert.deepEqual(side.sentAfterClose, []);
  await teardown(clock, [client], [side.oracle]);
});

test('races - the peer closing the transport mid-request fails it with ConnectionClosed (server requester)', async () => {
  const clock = new TestClock();
  const [clientEnd, serverEnd] = createMemoryPair();
  const side = observed(serverEnd);
  const server = createSessionAcceptor({ serverInfo, capabilities: {}, handlers: handlerTable() }).accept(side.transport, { clock });
  const peer = await rawClient(clientEnd);
  const pending = outcomeOf(server.request('roots/list'));
  await settle();
  assert.equal(messagesWith(peer.received, 'roots/list').length, 1);
  await peer.close();
  await settle();
  assert.ok(isLocalError(pending.error, 'ConnectionClosed'), `ConnectionClosed, got ${String(pending.error)}`);
  assert.equal(server.state, 'closed');
  assert.deepEqual(side.sentAfterClose, []);
  await teardown(clock, [server], [side.oracle]);
});

test('races - 200 concurrent requests with random cancellation: each survivor gets its own result, the cancelled none', async () => {
  const clock = new TestClock();
  const random = prng(0xc0ffee);
  const COUNT = 200;
  const delays = Array.from({ length: COUNT }, () => 1 + Math.floor(random() * 100));
  const handler: RequestHandler = (params, context) => new Promise<JsonObject>((resolve) => {
    const n = (params?.['arguments'] as JsonObject)['n'] as number;
    context.progress(1);
    const timer = clock.setTimeout(() => resolve(toolResult(String(n * 2))), delays[n] as number);
    context.signal.addEventListener('abort', () => timer.cancel(), { once: true });
  });
  const pair = await connectPair({ clock, serverHandlers: { 'tools/call': handler } });
  const requests = Array.from({ length: COUNT }, (_, n) => {
    // A third are cancelled: some at once, the rest at a random virtual time (at or before the answer: cancelled;
    // after it: too late, the result stands).
    const cancelAt = random() < 1 / 3 ? (random() < 0.3 ? 0 : 1 + Math.floor(random() * 120)) : undefined;
    const request = { n, cancelAt, ...observe(pair.client, 'tools/call', call('double', { n })) };
    if (cancelAt === 0) request.subscription.unsubscribe();
    else if (cancelAt !== undefined) clock.setTimeout(() => request.subscription.unsubscribe(), cancelAt);
    return request;
  });
  await clock.advanceAsync(150);

  const cancelled = requests.filter((request) => request.cancelAt !== undefined && request.cancelAt <= (delays[request.n] as number));
  assert.ok(cancelled.length > 20 && cancelled.length < 100, `a fair share was cancelled (${cancelled.length})`);
  const ids = new Map(messagesWith(pair.clientSent, 'tools/call').map((message) => [((paramsOf(message)['arguments'] as JsonObject)['n'] as number), message['id']]));
  for (const request of requests) {
    const results = request.seen.events.filter((event) => event.type === 'result');
    assert.equal(request.seen.error, undefined, `request ${request.n}: no error`);
    assert.equal(responsesTo(pair.serverSent, ids.get(request.n)).length <= 1, true, `request ${request.n}: at most one response`);
    if (cancelled.includes(request)) {
      assert.deepEqual(results, [], `request ${request.n} was cancelled: no result`);
      assert.deepEqual(responsesTo(pair.serverSent, ids.get(request.n)), [], `request ${request.n}: the server sent no response`);
    } else {
      assert.deepEqual(results, [{ type: 'result', result: toolResult(String(request.n * 2)) }], `request ${request.n}: its own result`);
      assert.equal(request.seen.completed, true);
    }
  }
  assert.equal(messagesWith(pair.clientSent, 'notifications/cancelled').length, cancelled.length, 'one cancel per cancelled request');
  await end(clock, pair);
});
