/**
 * Interceptors over real transports: a server with interceptors in a child process over stdio, over Streamable
 * HTTP in both eras (with an authenticated principal) and over NATS in both eras; the client
 * intercepts its calls and the elicitation it answers.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { map } from 'rxjs';
import type { RequestEvent } from '../../../actors/handler-types.ts';
import type { InterceptedRequest } from '../../../actors/interceptors.ts';
import { type McpClient, createClient } from '../../../client/create-client.ts';
import type { JsonObject } from '../../../core/jsonrpc.ts';
import { createStreamableHttpClientTransport, createStreamableHttpServer } from '../../../transports/http/index.ts';
import { connect as connectNats } from '@nats-io/transport-node';
import { createNatsClientTransport, serveNats } from '../../../transports/nats/index.ts';
import { spawnStdioServer } from '../../../transports/stdio/index.ts';
import { startNatsServer } from '../../support/nats-server.ts';
import { PROCESS_MS, REPO_ROOT, killLeftovers, track } from '../../support/stdio-harness.ts';
import { interceptedServer } from './fixtures/intercepted-server.ts';

const FIXTURE = fileURLToPath(new URL('./fixtures/intercepted-server.ts', import.meta.url));
const textOf = (result: unknown): string => (((result as JsonObject)['content'] as Array<{ text: string }>)[0] as { text: string }).text;

/** A client whose interceptors note what they see, tag tool results and answer the elicitation with the question it got. */
function interceptingClient(era: 'legacy' | 'modern', seen: InterceptedRequest[]): McpClient {
  const client = createClient({
    name: 'intercepting',
    version: '1.0.0',
    era,
    elicitation: { form: (params) => ({ action: 'accept', content: { name: `Ada (asked "${params.message}")` } }) },
  });
  client.use((request, next) => {
    seen.push(request);
    return next(request).pipe(
      map((event): RequestEvent => {
        // A modern round that asks for input has no content: its result is input_required.
        if (event.type !== 'result' || request.method !== 'tools/call' || !Array.isArray(event.result['content'])) return event;
        const content = (event.result['content'] as JsonObject[]).map((block) => ({ ...block, text: `${String(block['text'])}+client` }));
        return { type: 'result', result: { ...event.result, content } };
      }),
    );
  });
  return client;
}

after(killLeftovers);

describe('interceptors over transports', () => {
  test('stdio (a child process), legacy era: both sides intercept a call and the elicitation the server sends', async () => {
    const transport = track(await spawnStdioServer({ command: process.execPath, args: ['--import', 'tsx', FIXTURE], cwd: REPO_ROOT, stderr: 'pipe' }));
    const seen: InterceptedRequest[] = [];
    const session = await interceptingClient('legacy', seen).connect(transport, { initializeTimeoutMs: PROCESS_MS });
    assert.equal(textOf(await session.callTool('echo', { text: 'hi' })), 'hi+server(legacy)+client');
    assert.equal(textOf(await session.callTool('ask')), 'hello Ada (asked "Name, please?")+server(legacy)+client');
    assert.deepEqual(seen.map((request) => `${request.direction} ${request.method}`), ['outgoing tools/call', 'outgoing tools/call', 'incoming elicitation/create']);
    await session.close();
  });

  for (const era of ['legacy', 'modern'] as const) {
    test(`Streamable HTTP, ${era} era: both sides intercept; the server's interceptors see the authenticated principal`, async () => {
      const server = interceptedServer();
      const http = createStreamableHttpServer({ server, authenticate: (request) => (request.header('authorization') === 'Bearer ada' ? 'ada' : undefined) });
      const { url } = await http.listen();
      try {
        const seen: InterceptedRequest[] = [];
        const transport = createStreamableHttpClientTransport(url, { headers: { authorization: 'Bearer ada' } });
        const session = await interceptingClient(era, seen).connect(transport);
        assert.equal(session.session.era, era);
        // A modern request carries its own principal; a legacy session the one of its initialize POST.
        const tag = `${era},ada`;
        assert.equal(textOf(await session.callTool('echo', { text: 'hi' })), `hi+server(${tag})+client`);
        assert.equal(textOf(await session.callTool('ask')), `hello Ada (asked "${era === 'legacy' ? 'Name, please?' : 'Your name?'}")+server(${tag})+client`);
        const calls = seen.filter((request) => request.method === 'tools/call');
        // The modern era asks for input with input_required and a retry: one more call.
        assert.equal(calls.length, era === 'modern' ? 3 : 2);
        assert.ok(seen.some((request) => request.direction === 'incoming' && request.method === 'elicitation/create'));
        await session.close();
      } finally {
        await http.close();
        await server.close();
      }
    });
  }

  test('NATS (a real nats-server), both eras: both sides intercept a call and the elicitation', async () => {
    await using nats = await startNatsServer();
    const server = interceptedServer();
    const serverConnection = await connectNats({ servers: nats.url });
    const clientConnection = await connectNats({ servers: nats.url });
    const serving = await serveNats(server, { connection: serverConnection, name: 'intercepted' });
    try {
      for (const era of ['legacy', 'modern'] as const) {
        const seen: InterceptedRequest[] = [];
        const session = await interceptingClient(era, seen).connect(createNatsClientTransport({ connection: clientConnection, name: 'intercepted' }));
        assert.equal(session.session.era, era);
        assert.equal(textOf(await session.callTool('echo', { text: 'hi' })), `hi+server(${era})+client`);
        assert.equal(textOf(await session.callTool('ask')), `hello Ada (asked "${era === 'legacy' ? 'Name, please?' : 'Your name?'}")+server(${era})+client`);
        assert.ok(seen.some((request) => request.direction === 'incoming' && request.method === 'elicitation/create'));
        await session.close();
      }
    } finally {
      await serving.close('end', { drainMs: 0 });
      await server.close();
      await clientConnection.close();
      await serverConnection.close();
    }
  });
});
