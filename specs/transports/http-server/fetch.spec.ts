/**
 * The web-standard adapter: `handleFetch(Request) => Promise<Response>` runs the same protocol as the node
 * adapter (event streams are Response bodies). Driven without a socket, as hono, Deno or a worker would.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createServer } from '../../../server/create-server.ts';
import { createStreamableHttpServer } from '../../../transports/http/index.ts';
import { SseParser, type SseEvent } from '../../support/sse-test-parser.ts';
import { validateMessage } from '../../support/schema-oracle.ts';
import { demoServer } from './fixtures.ts';

const URL_BASE = 'http://127.0.0.1:3000/mcp';

interface Reader {
  next(match?: (message: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  readonly events: SseEvent[];
  cancel(): Promise<void>;
}

function sseOf(response: Response, revision = '2025-11-25'): Reader {
  assert.equal(response.headers.get('content-type'), 'text/event-stream');
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const parser = new SseParser();
  const events: SseEvent[] = [];
  let cursor = 0;
  return {
    events,
    async next(match = () => true) {
      for (;;) {
        while (cursor < events.length) {
          const event = events[cursor++] as SseEvent;
          if (event.data.length === 0) continue;
          const message = JSON.parse(event.data) as Record<string, unknown>;
          assert.deepEqual(validateMessage(revision, message, { role: 'server' }), [], event.data);
          if (match(message)) return message;
        }
        const { done, value } = await reader.read();
        if (done) throw new assert.AssertionError({ message: 'the stream ended' });
        events.push(...parser.push(decoder.decode(value, { stream: true })));
      }
    },
    cancel: () => reader.cancel(),
  };
}

function post(body: unknown, headers: Record<string, string> = {}): Request {
  return new Request(URL_BASE, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
}

const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: { elicitation: {} }, clientInfo: { name: 'fetch', version: '0' } } };

describe('http server: handleFetch', () => {
  test('a round trip: initialize, a streamed tool call, a server request answered by POST, DELETE', async () => {
    const { server } = demoServer();
    const http = createStreamableHttpServer({ server });
    const init = await http.handleFetch(post(initialize));
    assert.equal(init.status, 200);
    const sessionId = init.headers.get('mcp-session-id') ?? '';
    assert.ok(sessionId.length > 0);
    const initialized = await sseOf(init).next();
    assert.equal((initialized['result'] as { protocolVersion: string }).protocolVersion, '2025-11-25');
    const headers = { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' };
    assert.equal((await http.handleFetch(post({ jsonrpc: '2.0', method: 'notifications/initialized' }, headers))).status, 202);

    const call = sseOf(await http.handleFetch(post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'ask', arguments: {} } }, headers)));
    const elicit = await call.next((message) => message['method'] === 'elicitation/create');
    const ack = await http.handleFetch(post({ jsonrpc: '2.0', id: elicit['id'], result: { action: 'accept', content: { name: 'Fetch' } } }, headers));
    assert.equal(ack.status, 202);
    const result = await call.next((message) => message['id'] === 2);
    assert.deepEqual((result['result'] as { content: unknown }).content, [{ type: 'text', text: 'answered accept {"name":"Fetch"}' }]);

    const deleted = await http.handleFetch(new Request(URL_BASE, { method: 'DELETE', headers }));
    assert.equal(deleted.status, 200);
    assert.equal(http.sessionCount, 0);
    await http.close();
    await server.close();
  });

  test('JSON mode answers with a JSON body; refusals keep their statuses', async () => {
    const http = createStreamableHttpServer({ server: createServer({ name: 'json', version: '1' }), responseMode: 'json', maxBodyBytes: 512 });
    const init = await http.handleFetch(post(initialize));
    assert.equal(init.headers.get('content-type'), 'application/json');
    const body = (await init.json()) as Record<string, unknown>;
    assert.deepEqual(validateMessage('2025-11-25', body, { method: 'initialize' }), []);
    assert.equal((await http.handleFetch(new Request('http://evil.example.com/mcp', { method: 'POST', body: '{}' }))).status, 403);
    assert.equal((await http.handleFetch(post({ padding: 'x'.repeat(1024) }))).status, 413);
    const streamed = new Request(URL_BASE, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: new ReadableStream<Uint8Array>({
        pull(controller) {
          controller.enqueue(new Uint8Array(256).fill(32));
        },
      }),
      duplex: 'half',
    } as RequestInit);
    assert.equal((await http.handleFetch(streamed)).status, 413, 'an endless body is cut at the limit');
    const malformed = await http.handleFetch(new Request(URL_BASE, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: '{' }));
    assert.equal(malformed.status, 400);
    assert.equal(((await malformed.json()) as { error: { code: number } }).error.code, -32700);
    await http.close();
  });

  test('a cancelled GET stream body frees the standalone stream for the next GET', async () => {
    const { server } = demoServer();
    const http = createStreamableHttpServer({ server });
    const init = await http.handleFetch(post(initialize));
    await sseOf(init).next();
    const headers = { 'mcp-session-id': init.headers.get('mcp-session-id') ?? '', 'mcp-protocol-version': '2025-11-25', accept: 'text/event-stream' };
    assert.equal((await http.handleFetch(post({ jsonrpc: '2.0', method: 'notifications/initialized' }, headers))).status, 202);
    const first = await http.handleFetch(new Request(URL_BASE, { headers }));
    assert.equal(first.status, 200);
    assert.equal((await http.handleFetch(new Request(URL_BASE, { headers }))).status, 409);
    await sseOf(first).cancel();
    const again = await http.handleFetch(new Request(URL_BASE, { headers }));
    assert.equal(again.status, 200);
    server.tool({ name: 'late', description: 'Added after the GET' }, () => 'x');
    const changed = await sseOf(again).next((message) => message['method'] === 'notifications/tools/list_changed');
    assert.equal(changed['method'], 'notifications/tools/list_changed');
    await http.close();
    await server.close();
  });
});
