import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Effect } from 'effect';
import { Observable, Subject, of } from 'rxjs';
import type { RequestContext, RequestEvent, RequestHandler } from '../../actors/handler-types.ts';
import { ErrorCode } from '../../core/error-codes.ts';
import { LocalError, WireError, isLocalError } from '../../core/errors.ts';
import type { JsonObject } from '../../core/jsonrpc.ts';
import {
  type SessionPair, TestClock, connectPair, mapsOf, messagesWith, paramsOf, responsesTo, rootsResult, settle, teardown,
  toolResult, waitFor,
} from '../support/test-clock.ts';
import { deferred } from '../support/harness.ts';
import { type Progress, progress } from '../../actors/progress.ts';

const call = { name: 'work', arguments: {} };

async function serve(handler: RequestHandler, clientHandlers: Readonly<Record<string, RequestHandler>> = {}): Promise<{ clock: TestClock; pair: SessionPair }> {
  const clock = new TestClock();
  const pair = await connectPair({ clock, serverHandlers: { 'tools/call': handler }, clientHandlers });
  return { clock, pair };
}

const end = ({ clock, pair }: { clock: TestClock; pair: SessionPair }): Promise<void> => teardown(clock, [pair.client, pair.server], pair.oracles);

/** The id of the one tools/call request the client sent. */
const toolCallId = (pair: SessionPair): unknown => {
  const calls = messagesWith(pair.clientSent, 'tools/call');
  assert.equal(calls.length, 1);
  return (calls[0] as JsonObject)['id'];
};

const progressSent = (sent: readonly JsonObject[]): JsonObject[] => messagesWith(sent, 'notifications/progress').map(paramsOf);

/** Calls the tool and expects an error response; returns the WireError the client saw. */
async function callFails(pair: SessionPair): Promise<WireError> {
  try {
    await pair.client.request('tools/call', call);
  } catch (error) {
    assert.ok(error instanceof WireError, `a WireError, got ${String(error)}`);
    return error;
  }
  return assert.fail('the call should have failed');
}

test('incoming request - a handler returning a plain object is answered with it', async () => {
  const served = await serve(() => toolResult('plain'));
  assert.deepEqual(await served.pair.client.request('tools/call', call), toolResult('plain'));
  await end(served);
});

test('incoming request - a handler returning a Promise is answered when it resolves', async () => {
  const gate = deferred<JsonObject>();
  const served = await serve(() => gate.promise);
  let result: JsonObject | undefined;
  void served.pair.client.request('tools/call', call).then((value) => (result = value));
  await settle();
  assert.equal(result, undefined);
  assert.equal(mapsOf(served.pair.server).incoming.size, 1, 'a pending handler is tracked');
  gate.resolve(toolResult('promised'));
  await settle();
  assert.deepEqual(result, toolResult('promised'));
  await end(served);
});

test('incoming request - an Observable handler: values before the last are increasing progress, the last is the result', async () => {
  const served = await serve(() => of(1, 1, { progress: 2, total: 4, message: 'half' }, 0.5, 3, toolResult('observed')));
  const events: RequestEvent[] = [];
  await new Promise<void>((resolve, reject) => served.pair.client.request$('tools/call', call).subscribe({ next: (event) => events.push(event), complete: resolve, error: reject }));
  const token = (paramsOf(messagesWith(served.pair.clientSent, 'tools/call')[0])['_meta'] as JsonObject)['progressToken'];
  assert.deepEqual(progressSent(served.pair.serverSent), [
    { progressToken: token, progress: 1 },
    { progressToken: token, progress: 2, total: 4, message: 'half' },
    { progressToken: token, progress: 3 },
  ]);
  assert.deepEqual(events, [
    { type: 'progress', progress: 1 },
    { type: 'progress', progress: 2, total: 4, message: 'half' },
    { type: 'progress', progress: 3 },
    { type: 'result', result: toolResult('observed') },
  ]);
  await end(served);
});

test('incoming request - an asynchronous Observable handler reports progress at once and answers with its last value', async () => {
  const output = new Subject<number | Progress | JsonObject>();
  const served = await serve(() => output);
  const events: RequestEvent[] = [];
  served.pair.client.request$('tools/call', call).subscribe((event) => events.push(event));
  await settle();
  output.next(1);
  await settle();
  assert.deepEqual(events, [{ type: 'progress', progress: 1 }], 'a number can only be progress: it is not held back');
  output.next(progress({ progress: 2, total: 3 }));
  await settle();
  assert.deepEqual(events, [{ type: 'progress', progress: 1 }, { type: 'progress', progress: 2, total: 3 }], 'nor is a progress() report');
  output.next({ progress: 3, message: 'unbranded' });
  await settle();
  assert.equal(events.length, 2, 'a value that only looks like progress may be the result: held until the next value or the end');
  output.next(toolResult('streamed'));
  await settle();
  assert.deepEqual(events[2], { type: 'progress', progress: 3, message: 'unbranded' }, 'a value followed by another one was progress');
  output.complete();
  await settle();
  assert.deepEqual(events.map((event) => event.type), ['progress', 'progress', 'progress', 'result']);
  assert.deepEqual(responsesTo(served.pair.serverSent, toolCallId(served.pair)).length, 1, 'exactly one response');
  await end(served);
});

test('incoming request - an Observable handler sends no progress when the request carried no progressToken', async () => {
  const served = await serve(() => of(1, 2, toolResult('quiet')));
  assert.deepEqual(await served.pair.client.request('tools/call', call), toolResult('quiet'));
  assert.equal(paramsOf(messagesWith(served.pair.clientSent, 'tools/call')[0])['_meta'], undefined, 'no token was attached');
  assert.deepEqual(progressSent(served.pair.serverSent), []);
  await end(served);
});

test('incoming request - an Effect handler is answered with its value (succeed, and after a sleep)', async () => {
  const served = await serve((params) =>
    (params?.['name'] === 'now'
      ? Effect.succeed(toolResult('succeeded'))
      : Effect.gen(function* () {
          yield* Effect.sleep('1 millis');
          return toolResult('slept');
        })));
  assert.deepEqual(await served.pair.client.request('tools/call', { name: 'now', arguments: {} }), toolResult('succeeded'));
  assert.deepEqual(await served.pair.client.request('tools/call', { name: 'later', arguments: {} }), toolResult('slept'));
  await end(served);
});

test('incoming request - a thrown Error is answered with -32603 and its message', async () => {
  const served = await serve(() => {
    throw new Error('the disk is on fire');
  });
  const diagnostics: string[] = [];
  served.pair.server.diagnostics$.subscribe((diagnostic) => diagnostics.push(diagnostic.type));
  const error = await callFails(served.pair);
  assert.equal(error.code, ErrorCode.InternalError);
  assert.equal(error.code, -32603);
  assert.equal(error.message, 'the disk is on fire');
  assert.equal(error.data, undefined, 'no internals cross the wire');
  assert.deepEqual(diagnostics, ['handler-error']);
  await end(served);
});

test('incoming request - a thrown WireError is answered with its own code, message and data', async () => {
  const served = await serve(() => {
    throw new WireError(-32602, 'bad arguments', { data: { field: 'name' } });
  });
  const error = await callFails(served.pair);
  assert.deepEqual([error.code, error.message, error.data], [-32602, 'bad arguments', { field: 'name' }]);
  await end(served);
});

test('incoming request - a rejected Promise and a failed Effect are answered with error responses', async () => {
  const served = await serve((params) => {
    switch (params?.['name']) {
      case 'reject':
        return Promise.reject(new WireError(-32001, 'rejected'));
      case 'fail-wire':
        return Effect.fail(new WireError(-32002, 'effect failed', { data: 7 }));
      default:
        return Effect.fail(new Error('effect broke'));
    }
  });
  const outcome = async (name: string): Promise<unknown[]> => {
    const error = await served.pair.client.request('tools/call', { name, arguments: {} }).then(() => assert.fail('should fail'), (e: unknown) => e);
    assert.ok(error instanceof WireError);
    return [error.code, error.message, error.data];
  };
  assert.deepEqual(await outcome('reject'), [-32001, 'rejected', undefined]);
  assert.deepEqual(await outcome('fail-wire'), [-32002, 'effect failed', 7]);
  assert.deepEqual(await outcome('fail-plain'), [-32603, 'effect broke', undefined]);
  await end(served);
});

test('incoming request - a cancel interrupts an Effect handler: its finalizers run and no response is sent', async () => {
  let interrupted = 0;
  let ensured = 0;
  const served = await serve(() =>
    Effect.never.pipe(
      Effect.onInterrupt(() => Effect.sync(() => void interrupted++)),
      Effect.ensuring(Effect.sync(() => void ensured++)),
    ));
  const subscription = served.pair.client.request$('tools/call', call).subscribe({ error: () => assert.fail('no error') });
  await waitFor(() => mapsOf(served.pair.server).incoming.size === 1, 'the handler to run');
  subscription.unsubscribe();
  await waitFor(() => interrupted === 1 && ensured === 1, 'the finalizers');
  await settle();
  assert.deepEqual(responsesTo(served.pair.serverSent, toolCallId(served.pair)), [], 'no response to a cancelled request');
  assert.equal(mapsOf(served.pair.server).incoming.size, 0);
  await end(served);
});

test('incoming request - a cancel unsubscribes an Observable handler (teardown runs) and nothing more is sent', async () => {
  let tornDown = 0;
  let emit: ((value: number | JsonObject) => void) | undefined;
  const served = await serve(() => new Observable<number | JsonObject>((subscriber) => {
    emit = (value) => subscriber.next(value);
    return () => void tornDown++;
  }));
  const subscription = served.pair.client.request$('tools/call', call).subscribe();
  await settle();
  emit?.(1);
  emit?.(2);
  await settle();
  assert.equal(progressSent(served.pair.serverSent).length, 2);
  subscription.unsubscribe();
  await settle();
  assert.equal(tornDown, 1, 'the handler Observable was unsubscribed');
  const sentBefore = served.pair.serverSent.length;
  emit?.(3);
  emit?.(toolResult('ignored'));
  await settle();
  assert.equal(served.pair.serverSent.length, sentBefore, 'nothing more was sent');
  await end(served);
});

test("incoming request - a cancel aborts a Promise handler's signal and its later resolution sends nothing", async () => {
  const gate = deferred<JsonObject>();
  let context: RequestContext | undefined;
  const served = await serve((_params, ctx) => {
    context = ctx;
    return gate.promise;
  });
  const subscription = served.pair.client.request$('tools/call', call).subscribe();
  await settle();
  subscription.unsubscribe();
  await settle();
  assert.equal(context?.signal.aborted, true);
  assert.ok(isLocalError(context?.signal.reason, 'RequestAborted'), 'the reason says the peer cancelled');
  const sentBefore = served.pair.serverSent.length;
  gate.resolve(toolResult('late'));
  await settle();
  assert.equal(served.pair.serverSent.length, sentBefore);
  assert.deepEqual(responsesTo(served.pair.serverSent, toolCallId(served.pair)), []);
  await end(served);
});

test("incoming request - a handler's context.request asks the client (roots/list) and uses the answer", async () => {
  const served = await serve(async (_params, context) => {
    const roots = await context.request('roots/list');
    return toolResult(`roots: ${JSON.stringify(roots['roots'])}`);
  }, { 'roots/list': () => rootsResult('home') });
  const result = await served.pair.client.request('tools/call', call);
  assert.deepEqual(result, toolResult(`roots: ${JSON.stringify(rootsResult('home')['roots'])}`));
  assert.equal(messagesWith(served.pair.serverSent, 'roots/list').length, 1);
  await end(served);
});

test("incoming request - a handler's context.request is cancelled when the outer request is cancelled", async () => {
  let rootsContext: RequestContext | undefined;
  let nestedError: unknown;
  const served = await serve(async (_params, context) => {
    try {
      return toolResult(JSON.stringify(await context.request('roots/list')));
    } catch (error) {
      nestedError = error;
      throw error;
    }
  }, {
    'roots/list': (_params, context) => {
      rootsContext = context;
      return new Promise<JsonObject>(() => {});
    },
  });
  const subscription = served.pair.client.request$('tools/call', call).subscribe();
  await settle();
  assert.equal(rootsContext?.signal.aborted, false, 'the nested request reached the client');
  subscription.unsubscribe();
  await settle();
  const rootsRequest = messagesWith(served.pair.serverSent, 'roots/list')[0];
  const cancels = messagesWith(served.pair.serverSent, 'notifications/cancelled');
  assert.deepEqual(cancels.map((cancel) => paramsOf(cancel)['requestId']), [rootsRequest?.['id']], 'the server cancelled roots/list');
  assert.equal(rootsContext?.signal.aborted, true, "the client's roots/list handler was aborted");
  assert.ok(nestedError instanceof LocalError && nestedError.code === 'RequestAborted', `RequestAborted, got ${String(nestedError)}`);
  assert.deepEqual(responsesTo(served.pair.serverSent, toolCallId(served.pair)), [], 'the cancelled tools/call got no response');
  assert.deepEqual(responsesTo(served.pair.clientSent, rootsRequest?.['id']), [], 'the cancelled roots/list got no response');
  await end(served);
});

test('incoming request - context.progress on a request without a progressToken sends nothing', async () => {
  const served = await serve((_params, context) => {
    context.progress(1);
    context.progress({ progress: 2, total: 2 });
    return toolResult('silent');
  });
  assert.deepEqual(await served.pair.client.request('tools/call', call), toolResult('silent'));
  assert.deepEqual(progressSent(served.pair.serverSent), []);
  await end(served);
});
