/**
 * Interceptors over memory, legacy era: order, short-circuits, error and progress mapping, rewriting, timeouts,
 * retries, cancellation through a chain (every subscription torn down), scopes, removal, and a server-to-client
 * request intercepted on both sides.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type Observable, catchError, filter, lastValueFrom, map, of, retry, tap, throwError, timeout, toArray } from 'rxjs';
import type { RequestEvent } from '../../../actors/handler-types.ts';
import type { Interceptor } from '../../../actors/interceptors.ts';
import { WireError } from '../../../core/errors.ts';
import type { JsonObject } from '../../../core/jsonrpc.ts';
import { eventually } from '../../support/harness.ts';
import { CountingInterceptor, askingClient, connect, servedTools } from './support.ts';

const textOf = (result: JsonObject): string => ((result['content'] as Array<{ text: string }>)[0] as { text: string }).text;

/** Appends `tag` to the text of a tool result. */
const tagging = (tag: string, log?: string[]): Interceptor => (request, next) => {
  log?.push(`enter ${tag}`);
  return next(request).pipe(
    map((event): RequestEvent => {
      if (event.type !== 'result') return event;
      log?.push(`result ${tag}`);
      const content = event.result['content'] as Array<{ type: string; text: string }> | undefined;
      if (content === undefined) return event;
      return { type: 'result', result: { ...event.result, content: content.map((block) => ({ ...block, text: `${block.text}+${tag}` })) } };
    }),
  );
};

describe('interceptors (memory, legacy era)', () => {
  test('compose in registration order on both sides: the first one registered is the outermost', async () => {
    const { server } = servedTools();
    const log: string[] = [];
    server.use(tagging('s1', log));
    server.use(tagging('s2', log));
    const client = askingClient('legacy');
    client.use(tagging('c1', log));
    client.use(tagging('c2', log));
    const session = await connect(server, client);
    const result = await session.callTool('other');
    // Results travel outwards: the innermost interceptor maps first.
    assert.equal(textOf(result as unknown as JsonObject), 'other+s2+s1+c2+c1');
    assert.deepEqual(log, ['enter c1', 'enter c2', 'enter s1', 'enter s2', 'result s2', 'result s1', 'result c2', 'result c1']);
    await session.close();
    await server.close();
  });

  test('an interceptor answers by itself: a result, or a wire error; the handler never runs', async () => {
    const { server, calls } = servedTools();
    server.use(() => of({ type: 'result', result: { content: [{ type: 'text', text: 'cached' }] } }), { tool: 'echo' });
    server.use(() => throwError(() => new WireError(-32001, 'Quota exceeded', { data: { retryAfterMs: 1000 } })), { tool: 'other' });
    const session = await connect(server, askingClient('legacy'));
    assert.equal(textOf((await session.callTool('echo', { a: 1 })) as unknown as JsonObject), 'cached');
    await assert.rejects(session.callTool('other'), (error: unknown) => {
      assert.ok(error instanceof WireError);
      assert.equal(error.code, -32001);
      assert.equal(error.message, 'Quota exceeded');
      assert.deepEqual(error.data, { retryAfterMs: 1000 });
      return true;
    });
    assert.equal(calls.get('echo'), undefined);
    assert.equal(calls.get('other'), undefined);
    // A client interceptor can answer without sending anything either.
    const client = askingClient('legacy');
    client.use(() => of({ type: 'result', result: { content: [{ type: 'text', text: 'local' }] } }), { tool: 'other' });
    const local = await connect(server, client);
    assert.equal(textOf((await local.callTool('other')) as unknown as JsonObject), 'local');
    assert.equal(calls.get('other'), undefined);
    await session.close();
    await local.close();
    await server.close();
  });

  test('errors are mapped: a handler error into another wire error, a peer error into a result', async () => {
    const { server } = servedTools();
    server.use((request, next) =>
      next(request).pipe(catchError((error: unknown) => throwError(() => new WireError(-32002, `mapped: ${error instanceof Error ? error.message : String(error)}`)))),
      { method: 'resources/read' },
    );
    const client = askingClient('legacy');
    client.use((request, next) => next(request).pipe(catchError(() => of<RequestEvent>({ type: 'result', result: { contents: [] } }))), { resource: 'memo://missing-too' });
    const session = await connect(server, client);
    await assert.rejects(session.readResource('memo://missing'), (error: unknown) => {
      assert.ok(error instanceof WireError);
      assert.equal(error.code, -32002);
      assert.match(error.message, /^mapped: /);
      return true;
    });
    assert.deepEqual(await session.readResource('memo://missing-too'), { contents: [] });
    await session.close();
    await server.close();
  });

  test('progress is mapped and dropped, whether the handler streams it or reports it on its context', async () => {
    const { server } = servedTools();
    server.use((request, next) =>
      next(request).pipe(
        filter((event) => event.type !== 'progress' || event.progress !== 2),
        map((event): RequestEvent => (event.type === 'progress' ? { ...event, message: `step ${event.progress}` } : event)),
      ),
    );
    const session = await connect(server, askingClient('legacy'));
    const streamed = await lastValueFrom(session.callTool$('steps').pipe(toArray()));
    assert.deepEqual(streamed.filter((event) => event.type === 'progress').map((event) => event.type === 'progress' && [event.progress, event.message]), [
      [1, 'step 1'],
      [3, 'step 3'],
    ]);
    assert.equal(textOf((streamed.at(-1) as { result: JsonObject }).result), 'stepped');
    const reported = await lastValueFrom(session.callTool$('reported').pipe(toArray()));
    assert.deepEqual(reported.filter((event) => event.type === 'progress').map((event) => event.type === 'progress' && event.message), ['step 1']);
    await session.close();
    await server.close();
  });

  test('requests are rewritten on the way: params on the server, _meta on the client', async () => {
    const { server } = servedTools();
    server.use((request, next) => next(request.with({ params: { ...request.params, arguments: { rewritten: true } } })), { tool: 'echo' });
    const client = askingClient('legacy');
    client.use((request, next) => next(request.with({ meta: { ...request.meta, traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' } })));
    // A spread copy works as well as `with`.
    client.use((request, next) => next({ ...request, params: { ...request.params, arguments: { spread: 1 } } }), { tool: 'echo' });
    const session = await connect(server, client);
    const result = await session.callTool('echo', { original: true });
    assert.deepEqual(result.structuredContent, { args: { rewritten: true }, meta: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' } });
    await session.close();
    await server.close();
  });

  test('cancellation runs through a chain: every subscription is torn down and the handler is aborted', async () => {
    const served = servedTools();
    const serverChain = [new CountingInterceptor(), new CountingInterceptor(), new CountingInterceptor()];
    for (const counting of serverChain) served.server.use(counting.interceptor);
    const clientChain = [new CountingInterceptor(), new CountingInterceptor()];
    const client = askingClient('legacy');
    for (const counting of clientChain) client.use(counting.interceptor);
    const session = await connect(served.server, client);
    const subscription = session.callTool$('hang').subscribe({ error: () => undefined });
    await served.hangStarted;
    assert.deepEqual(serverChain.map((counting) => [counting.subscribed, counting.tornDown]), [[1, 0], [1, 0], [1, 0]]);
    subscription.unsubscribe();
    const reason = await served.hangAborted;
    assert.ok(reason instanceof Error);
    await eventually(() => serverChain.every((counting) => counting.tornDown === 1), 1000, 'the server chain torn down');
    assert.deepEqual(serverChain.map((counting) => [counting.subscribed, counting.tornDown]), [[1, 1], [1, 1], [1, 1]]);
    assert.deepEqual(clientChain.map((counting) => [counting.subscribed, counting.tornDown]), [[1, 1], [1, 1]]);
    // A request that completes tears its chain down too.
    await session.callTool('other');
    assert.deepEqual(serverChain.map((counting) => [counting.subscribed, counting.tornDown]), [[2, 2], [2, 2], [2, 2]]);
    assert.deepEqual(clientChain.map((counting) => [counting.subscribed, counting.tornDown]), [[2, 2], [2, 2]]);
    assert.equal(session.session.inFlight, 0);
    await session.close();
    await served.server.close();
  });

  test('pass-through interceptors (the handler output runs unadapted): progress, results and cancellation as without them', async () => {
    const served = servedTools();
    const seen: string[] = [];
    served.server.use((request, next) => {
      seen.push(request.target ?? request.method);
      return next(request);
    });
    served.server.use((request, next) => next(request));
    const session = await connect(served.server, askingClient('legacy'));
    const streamed = await lastValueFrom(session.callTool$('steps').pipe(toArray()));
    assert.deepEqual(streamed.map((event) => event.type), ['progress', 'progress', 'progress', 'result']);
    assert.equal(textOf((await session.callTool('reported')) as unknown as JsonObject), 'reported');
    const subscription = session.callTool$('hang').subscribe({ error: () => undefined });
    await served.hangStarted;
    subscription.unsubscribe();
    assert.ok((await served.hangAborted) instanceof Error);
    assert.deepEqual(seen, ['steps', 'reported', 'hang']);
    await session.close();
    await served.server.close();
  });

  test('a server interceptor that gives up (its own timeout) aborts the handler; the client sees its error', async () => {
    const served = servedTools();
    const counting = new CountingInterceptor();
    served.server.use(counting.interceptor);
    served.server.use((request, next) => next(request).pipe(timeout({ first: 20, with: () => throwError(() => new WireError(-32003, 'too slow')) })), { tool: 'hang' });
    const session = await connect(served.server, askingClient('legacy'));
    await assert.rejects(session.callTool('hang'), (error: unknown) => error instanceof WireError && error.code === -32003);
    assert.ok((await served.hangAborted) instanceof Error);
    assert.deepEqual([counting.subscribed, counting.tornDown], [1, 1]);
    await session.close();
    await served.server.close();
  });

  test('client interceptors add a timeout (the request is cancelled at the server) and a retry', async () => {
    const served = servedTools();
    const client = askingClient('legacy');
    client.use((request, next) => next(request).pipe(timeout(30)), { tool: 'hang' });
    client.use((request, next) => next(request).pipe(retry(2)), { tool: 'flaky' });
    const session = await connect(served.server, client);
    await assert.rejects(session.callTool('hang'), (error: unknown) => error instanceof Error && error.name === 'TimeoutError');
    assert.ok((await served.hangAborted) instanceof Error, 'the timeout cancelled the request at the server');
    // The flaky tool's first failure is an isError result, not an error: make it one to retry on.
    client.use((request, next) => next(request).pipe(tap((event) => {
      if (event.type === 'result' && event.result['isError'] === true) throw new Error('tool failed');
    })), { tool: 'flaky' });
    assert.equal(textOf((await session.callTool('flaky')) as unknown as JsonObject), 'steady');
    assert.equal(served.calls.get('flaky'), 2);
    await session.close();
    await served.server.close();
  });

  test('scopes: by method, tool, resource, prompt and direction', async () => {
    const { server } = servedTools();
    const seen: string[] = [];
    const note = (label: string): Interceptor => (request, next) => {
      seen.push(`${label}:${request.method}:${request.target ?? '-'}`);
      return next(request);
    };
    server.use(note('tool'), { tool: 'echo' });
    server.use(note('tools'), { tool: ['other', 'steps'] });
    server.use(note('method'), { method: 'tools/list' });
    server.use(note('resource'), { resource: 'memo://b' });
    server.use(note('prompt'), { prompt: 'greet' });
    server.use(note('outgoing'), { direction: 'outgoing' });
    const session = await connect(server, askingClient('legacy'));
    await session.callTool('echo');
    await session.callTool('other');
    await session.callTool('reported');
    await session.listTools();
    await session.readResource('memo://a');
    await session.readResource('memo://b');
    await session.getPrompt('greet');
    await session.getPrompt('part');
    assert.deepEqual(seen, ['tool:tools/call:echo', 'tools:tools/call:other', 'method:tools/list:-', 'resource:resources/read:memo://b', 'prompt:prompts/get:greet']);
    await session.close();
    await server.close();
  });

  test('a removed interceptor no longer runs; the others keep their order', async () => {
    const { server } = servedTools();
    const first = server.use(tagging('a'));
    server.use(tagging('b'));
    const session = await connect(server, askingClient('legacy'));
    assert.equal(textOf((await session.callTool('other')) as unknown as JsonObject), 'other+b+a');
    first.remove();
    assert.equal(textOf((await session.callTool('other')) as unknown as JsonObject), 'other+b');
    await session.close();
    await server.close();
  });

  test('a server-to-client request is intercepted on both sides (elicitation)', async () => {
    const { server } = servedTools();
    const seen: string[] = [];
    server.use((request, next) => {
      seen.push(`server ${request.direction} ${request.method} ${request.session.role} ${request.session.era}`);
      if (request.direction === 'incoming') return next(request);
      return next(request.with({ params: { ...request.params, message: 'What is your name?' } }));
    });
    const client = askingClient('legacy', {
      elicitation: { form: (params) => ({ action: 'accept', content: { name: params.message === 'What is your name?' ? 'Ada' : 'nobody' } }) },
    });
    client.use((request, next): Observable<RequestEvent> => {
      seen.push(`client ${request.direction} ${request.method} id=${request.id === undefined ? '-' : 'set'}`);
      if (request.direction === 'outgoing') return next(request);
      return next(request).pipe(map((event): RequestEvent => (event.type === 'result' ? { type: 'result', result: { ...event.result, content: { name: `${String((event.result['content'] as JsonObject)['name'])} Lovelace` } } } : event)));
    });
    const session = await connect(server, client);
    assert.equal(textOf((await session.callTool('ask')) as unknown as JsonObject), 'hello Ada Lovelace');
    assert.deepEqual(seen, [
      'client outgoing tools/call id=-',
      'server incoming tools/call server legacy',
      'server outgoing elicitation/create server legacy',
      'client incoming elicitation/create id=set',
    ]);
    await session.close();
    await server.close();
  });
});
