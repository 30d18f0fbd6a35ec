/**
 * The HTTP client against the official SDK's servers (devDependency): its Streamable HTTP transport with SSE and
 * with JSON answers (elicitation, session expiry and renewal), and its 2024-11-05 SSE transport (fallback).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import type { MockServer } from '../../support/http-mock-server.ts';
import { connect, textOf } from './helpers.ts';

const servers = new Set<Server>();
after(() => {
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
});

function sdkServer(): McpServer {
  const server = new McpServer({ name: 'sdk', version: '1.0.0' });
  server.registerTool('add', { inputSchema: { a: z.number(), b: z.number() } }, ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }));
  server.registerTool('ask', { inputSchema: {} }, async () => {
    const answer = await server.server.elicitInput({ message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string', default: 'Ada' } } } });
    return { content: [{ type: 'text', text: `hi ${String(answer.content?.['name'])}` }] };
  });
  return server;
}

async function listen(handler: (request: IncomingMessage, response: ServerResponse) => Promise<void>, path: string): Promise<{ url: MockServer; server: Server }> {
  const server = createServer((request, response) => void handler(request, response));
  servers.add(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  // `connect` only reads `url` from the mock it is given.
  return { url: { url } as MockServer, server };
}

const elicitation = { form: () => ({ action: 'accept' as const, content: {} }) };

for (const enableJsonResponse of [false, true]) {
  test(`http client x SDK Streamable HTTP server (${enableJsonResponse ? 'JSON' : 'SSE'} answers): calls, elicitation, renewal`, async () => {
    const sessions = new Map<string, StreamableHTTPServerTransport>();
    const { url } = await listen(async (request, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const body: unknown = chunks.length === 0 ? undefined : JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const id = request.headers['mcp-session-id'];
      let transport = typeof id === 'string' ? sessions.get(id) : undefined;
      if (transport === undefined) {
        if (typeof id === 'string') return void response.writeHead(404).end();
        const created = new StreamableHTTPServerTransport({ sessionIdGenerator: randomUUID, enableJsonResponse, onsessioninitialized: (sessionId) => void sessions.set(sessionId, created) });
        await sdkServer().connect(created);
        transport = created;
      }
      await transport.handleRequest(request, response, body);
    }, '/mcp');
    const connected = await connect(url, { client: { elicitation } });
    const firstId = connected.transport.sessionId;
    assert.ok(firstId !== undefined && sessions.has(firstId));
    assert.equal(textOf(await connected.session.callTool('add', { a: 2, b: 3 })), '5');
    assert.equal(textOf(await connected.session.callTool('ask')), 'hi Ada');
    sessions.clear();
    assert.equal(textOf(await connected.session.callTool('add', { a: 1, b: 1 })), '2');
    assert.deepEqual(connected.events.find((event) => event.type === 'session-renewed'), { type: 'session-renewed', previousSessionId: firstId, sessionId: connected.transport.sessionId });
    await connected.session.close();
  });
}

test('http client x SDK SSE server (2024-11-05): the auto fallback', async () => {
  const sessions = new Map<string, SSEServerTransport>();
  const { url } = await listen(async (request, response) => {
    const target = new URL(request.url ?? '/', 'http://localhost');
    if (request.method === 'GET' && target.pathname === '/sse') {
      const transport = new SSEServerTransport('/messages', response);
      sessions.set(transport.sessionId, transport);
      return sdkServer().connect(transport);
    }
    const transport = sessions.get(target.searchParams.get('sessionId') ?? '');
    if (request.method === 'POST' && transport !== undefined) return transport.handlePostMessage(request, response);
    response.writeHead(405).end();
  }, '/sse');
  const connected = await connect(url, { client: { elicitation } });
  assert.equal(connected.transport.mode, 'legacy');
  assert.equal(connected.events[0]?.type, 'legacy-fallback');
  assert.equal(textOf(await connected.session.callTool('add', { a: 20, b: 22 })), '42');
  assert.equal(textOf(await connected.session.callTool('ask')), 'hi Ada');
  await connected.session.close();
});
