/**
 * Interceptors in the modern era (2026-07-28) over memory: each input round is a request of its own on both
 * sides, the `input_required` answer is the result a server interceptor sees for its round, the input requests a
 * client answers locally are intercepted as incoming requests, and cancellation tears a chain down as in the
 * legacy era.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { map, tap } from 'rxjs';
import type { RequestEvent } from '../../../actors/handler-types.ts';
import type { InterceptedRequest } from '../../../actors/interceptors.ts';
import type { JsonObject } from '../../../core/jsonrpc.ts';
import { eventually } from '../../support/harness.ts';
import { CountingInterceptor, askingClient, connect, servedTools } from './support.ts';

const textOf = (result: JsonObject): string => ((result['content'] as Array<{ text: string }>)[0] as { text: string }).text;

describe('interceptors (memory, modern era)', () => {
  test('an input round is a request: the server sees input_required then the result, the client each round and the input request', async () => {
    const { server, calls } = servedTools();
    const serverSeen: Array<{ request: InterceptedRequest; resultType: unknown }> = [];
    server.use((request, next) => {
      const entry: { request: InterceptedRequest; resultType: unknown } = { request, resultType: undefined };
      serverSeen.push(entry);
      return next(request).pipe(tap((event) => (event.type === 'result' ? (entry.resultType = event.result['resultType'] ?? 'complete') : undefined)));
    }, { tool: 'ask' });
    const client = askingClient('modern');
    const clientSeen: InterceptedRequest[] = [];
    client.use((request, next) => {
      clientSeen.push(request);
      if (request.direction === 'outgoing') return next(request);
      // The client's own answer to the input request, mapped on its way back to the server.
      return next(request).pipe(map((event): RequestEvent => (event.type === 'result' ? { type: 'result', result: { ...event.result, content: { name: 'Grace' } } } : event)));
    });
    const session = await connect(server, client);
    assert.equal(session.session.era, 'modern');
    const result = await session.callTool('ask');
    assert.equal(textOf(result as unknown as JsonObject), 'hello Grace');
    assert.equal(calls.get('ask'), 2, 'the handler ran once per round');
    assert.deepEqual(serverSeen.map((entry) => [entry.request.direction, entry.request.method, entry.request.target, entry.resultType]), [
      ['incoming', 'tools/call', 'ask', 'input_required'],
      ['incoming', 'tools/call', 'ask', 'complete'],
    ]);
    for (const { request } of serverSeen) {
      assert.equal(request.session.era, 'modern');
      assert.equal(request.session.revision, '2026-07-28');
      assert.equal(request.session.peerInfo?.name, 'intercepting');
      assert.equal(request.session.principal, undefined);
    }
    assert.deepEqual(clientSeen.map((request) => [request.direction, request.method, request.id, request.session.era]), [
      ['outgoing', 'tools/call', undefined, 'modern'],
      ['incoming', 'elicitation/create', undefined, 'modern'],
      ['outgoing', 'tools/call', undefined, 'modern'],
    ]);
    assert.ok((clientSeen[2] as InterceptedRequest).params?.['requestState'] !== undefined, 'the retry carries the state, visible to interceptors');
    await session.close();
    await server.close();
  });

  test('an outgoing interceptor sees a call as the caller made it, without the envelope; the server gets the same _meta either way', async () => {
    const { server } = servedTools();
    const client = askingClient('modern');
    const seen: unknown[] = [];
    const interceptor = client.use((request, next) => {
      if (request.direction === 'outgoing') seen.push(request.params);
      return next(request);
    });
    const session = await connect(server, client);
    const intercepted = (await session.callTool('echo', { a: 1 })).structuredContent as JsonObject;
    assert.deepEqual(seen, [{ name: 'echo', arguments: { a: 1 } }], 'the params as given: the envelope is added after the chain');
    interceptor.remove();
    // Without interceptors the client makes the params with the envelope in them (nothing is copied when sending).
    const plain = (await session.callTool('echo', { a: 2 })).structuredContent as JsonObject;
    assert.equal(seen.length, 1);
    assert.deepEqual(plain['args'], { a: 2 });
    assert.equal((plain['meta'] as JsonObject)['io.modelcontextprotocol/protocolVersion'], '2026-07-28');
    assert.deepEqual(plain['meta'], intercepted['meta'], 'the same envelope, with or without interceptors');
    await session.close();
    await server.close();
  });

  test('cancellation tears down both chains and aborts the handler', async () => {
    const served = servedTools();
    const serverChain = [new CountingInterceptor(), new CountingInterceptor()];
    // Scoped: the client's server/discover went through unscoped ones too.
    for (const counting of serverChain) served.server.use(counting.interceptor, { tool: 'hang' });
    const clientChain = new CountingInterceptor();
    const client = askingClient('modern');
    client.use(clientChain.interceptor);
    const session = await connect(served.server, client);
    const subscription = session.callTool$('hang').subscribe({ error: () => undefined });
    await served.hangStarted;
    subscription.unsubscribe();
    assert.ok((await served.hangAborted) instanceof Error);
    await eventually(() => serverChain.every((counting) => counting.tornDown === 1), 1000, 'the server chain torn down');
    assert.deepEqual(serverChain.map((counting) => [counting.subscribed, counting.tornDown]), [[1, 1], [1, 1]]);
    assert.deepEqual([clientChain.subscribed, clientChain.tornDown], [1, 1]);
    assert.equal(serverChain[0]?.seen[0]?.session.era, 'modern');
    await session.close();
    await served.server.close();
  });
});
