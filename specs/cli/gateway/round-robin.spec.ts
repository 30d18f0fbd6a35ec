/**
 * Two `rxmcp gateway` replicas behind a round-robin load balancer that alternates them on EVERY request (POSTs,
 * GET streams, DELETE: specs/support/round-robin-proxy.ts), in front of an MCP server on a real nats-server,
 * used by the official SDK clients (1.x and 2.x, both eras where they speak them) and by ours:
 * - a tool whose input schema marks arguments with `x-mcp-header` (the 2.x client mirrors them in the modern era);
 * - a tool that elicits during `tools/call`: the client's answer goes in a POST the balancer sends to the other
 *   replica, and still reaches the server that asked (modern era: an `input_required` round instead);
 * - sampling and roots asked of our client, answered the same way;
 * - tool list changes (server notifications outside any request) and the server's own `roots/list` requests reach
 *   the client on its standalone GET stream, whichever replica holds it and whichever replica the server's message
 *   came to; the client's answer to such a request reaches the server through either replica.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client as Sdk1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as Sdk1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as Sdk2Client, StreamableHTTPClientTransport as Sdk2HttpTransport } from '@modelcontextprotocol/client';
import { type NatsConnection, connect } from '@nats-io/transport-node';
import { createGateway, type Gateway } from '../../../cli/gateway/gateway.ts';
import { createClient } from '../../../client/create-client.ts';
import type { JsonObject } from '../../../core/jsonrpc.ts';
import { type McpServer, createServer } from '../../../server/create-server.ts';
import { type ListeningServer, createStreamableHttpClientTransport } from '../../../transports/http/index.ts';
import { type NatsServing, serveNats } from '../../../transports/nats/index.ts';
import { type NatsServerProcess, startNatsServer } from '../../support/nats-server.ts';
import { type RoundRobinProxy, type Routed, roundRobinProxy } from '../../support/round-robin-proxy.ts';

const NAME = 'gw-rr';
const T = { timeout: 60_000 };
/** Tool list changes each client must hear: with two replicas, each one landing on the GET stream's replica by luck is 1 in 2^4. */
const ANNOUNCEMENTS = 4;

const objectSchema = (properties: JsonObject): JsonObject => ({ type: 'object', properties });

/** What the server's own requests outside any call (roots/list after the client's roots changed) brought back. */
const rootsAsked: string[] = [];

function natsServer(): McpServer {
  const server = createServer({
    name: 'gateway-round-robin',
    version: '0.0.0',
    // A server request outside any client request: it goes to the session's GET stream.
    onRootsListChanged: (session) => {
      session.request<{ roots: Array<{ uri: string }> }>('roots/list').then(
        (listed) => void rootsAsked.push(listed.roots.map((root) => root.uri).join(' ')),
        (error: unknown) => void rootsAsked.push(`failed: ${String(error)}`),
      );
    },
  });
  server.tool(
    { name: 'region', inputSchema: objectSchema({ region: { type: 'string', 'x-mcp-header': 'Region' }, count: { type: 'integer', 'x-mcp-header': 'Count' } }) },
    (args: Record<string, unknown>) => `region ${String(args['region'])} count ${String(args['count'])}`,
  );
  server.tool({ name: 'confirm', inputSchema: objectSchema({ what: { type: 'string' } }) }, async (args: Record<string, unknown>, ctx) => {
    const answer = await ctx.elicit({
      message: `Confirm ${String(args['what'])}?`,
      requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
    });
    return answer.action === 'accept' ? `confirmed ${String(args['what'])}: ok=${String(answer.content?.['ok'])}` : `not confirmed (${answer.action})`;
  });
  server.tool({ name: 'summarize', inputSchema: objectSchema({ text: { type: 'string' } }) }, async (args: Record<string, unknown>, ctx) => {
    const sampled = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: String(args['text']) } }], maxTokens: 16 });
    const content = Array.isArray(sampled.content) ? sampled.content[0] : sampled.content;
    return `model ${sampled.model} said ${content?.type === 'text' ? content.text : '?'}`;
  });
  server.tool({ name: 'where' }, async (_args, ctx) => `roots: ${(await ctx.roots()).map((root) => root.uri).join(' ')}`);
  server.tool({ name: 'announce', inputSchema: objectSchema({ name: { type: 'string' } }) }, (args: Record<string, unknown>) => {
    server.tool({ name: String(args['name']) }, () => `added ${String(args['name'])}`);
    return `announced ${String(args['name'])}`;
  });
  return server;
}

function textOf(result: object): string {
  const first = ((result as { readonly content?: unknown }).content as Array<{ type: string; text?: string }> | undefined)?.[0];
  return first?.type === 'text' ? String(first.text) : JSON.stringify(result);
}

async function until(check: () => boolean, what: string, ms = 5000): Promise<void> {
  for (let waited = 0; !check(); waited += 10) {
    if (waited >= ms) assert.fail(`not within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * Pairs each POST that `isCall` matches with the first later POST that `isAnswer` matches (the client's answer
 * to the server request the call caused: calls are made one at a time) and asserts that the balancer sent at
 * least one answer to another replica than its call, so the path under test was taken.
 */
function assertAnsweredElsewhere(routed: readonly Routed[], isCall: (body: string) => boolean, isAnswer: (body: string) => boolean): void {
  const pairs: Array<readonly [number, number]> = [];
  routed.forEach((entry, index) => {
    if (entry.method !== 'POST' || !isCall(entry.body)) return;
    const answer = routed.slice(index + 1).find((later) => later.method === 'POST' && isAnswer(later.body));
    if (answer !== undefined) pairs.push([entry.upstream, answer.upstream]);
  });
  assert.ok(pairs.length > 0, 'calls and answers went through the balancer');
  assert.ok(pairs.some(([call, answer]) => call !== answer), `an answer reached another replica than its call: ${JSON.stringify(pairs)}`);
}

let sequence = 0;
/** Calls `announce` `ANNOUNCEMENTS` times and waits, each time, for `heard()` to count the tool list change. */
async function announceAll(call: (name: string) => Promise<string>, heard: () => number): Promise<void> {
  for (let round = 0; round < ANNOUNCEMENTS; round++) {
    const before = heard();
    const name = `added-${++sequence}`;
    assert.equal(await call(name), `announced ${name}`);
    await until(() => heard() > before, `tool list change ${round + 1} of ${ANNOUNCEMENTS} heard on the GET stream`);
  }
}

describe('gateway replicas behind a round-robin balancer', () => {
  let nats: NatsServerProcess;
  const connections: NatsConnection[] = [];
  const replicas: Array<{ gateway: Gateway; listening: ListeningServer }> = [];
  let serving: NatsServing;
  let server: McpServer;
  let proxy: RoundRobinProxy;

  before(async () => {
    nats = await startNatsServer();
    const open = async (): Promise<NatsConnection> => {
      const made = await connect({ servers: nats.url });
      connections.push(made);
      return made;
    };
    server = natsServer();
    serving = await serveNats(server, { connection: await open(), name: NAME });
    for (let index = 0; index < 2; index++) {
      const gateway = await createGateway({ connection: await open(), name: NAME, silenceMs: 10_000 });
      replicas.push({ gateway, listening: await gateway.http.listen(0, '127.0.0.1') });
    }
    proxy = await roundRobinProxy(replicas.map((replica) => replica.listening.url));
  });

  after(async () => {
    await proxy.close();
    for (const replica of replicas) {
      await replica.listening.close();
      await replica.gateway.close();
    }
    await serving.close('end');
    await server.close();
    await Promise.allSettled(connections.map((made) => made.close()));
    await nats.dispose();
  });

  test('round robin - the SDK 1.x client: marked tool, elicitation answered on the other replica, list changes on its GET stream, DELETE', T, async () => {
    const elicited: string[] = [];
    const errors: string[] = [];
    let changes = 0;
    const client = new Sdk1Client({ name: 'sdk1-rr', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      elicited.push(request.params.message);
      return { action: 'accept', content: { ok: true } };
    });
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changes++);
    client.onerror = (error) => void errors.push(error.message);
    const transport = new Sdk1HttpTransport(new URL(proxy.url));
    await client.connect(transport, { timeout: 10_000 });
    const sessionId = transport.sessionId;
    assert.match(sessionId ?? '', /\S/);
    try {
      assert.equal(textOf(await client.callTool({ name: 'region', arguments: { region: 'eu', count: 2 } })), 'region eu count 2');
      for (const what of ['one', 'two', 'three']) {
        assert.equal(textOf(await client.callTool({ name: 'confirm', arguments: { what } })), `confirmed ${what}: ok=true`);
      }
      assert.deepEqual(elicited, ['Confirm one?', 'Confirm two?', 'Confirm three?']);
      assertAnsweredElsewhere(proxy.routed, (body) => body.includes('"confirm"'), (body) => body.includes('"action":"accept"'));
      await announceAll(async (name) => textOf(await client.callTool({ name: 'announce', arguments: { name } })), () => changes);
    } finally {
      await transport.terminateSession();
      await client.close();
    }
    assert.ok(proxy.routed.some((entry) => entry.method === 'GET' && entry.sessionId === sessionId), 'the client held a GET stream through the balancer');
    assert.ok(proxy.routed.some((entry) => entry.method === 'DELETE' && entry.sessionId === sessionId), 'and ended its session with DELETE');
    assert.deepEqual(errors, []);
  });

  test('round robin - the SDK 2.x client, legacy era: the same, answers and list changes crossing replicas', T, async () => {
    const elicited: string[] = [];
    const errors: string[] = [];
    let changes = 0;
    const client = new Sdk2Client({ name: 'sdk2-rr-legacy', version: '2.0.0' }, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler('elicitation/create', (request) => {
      elicited.push((request.params as { message: string }).message);
      return { action: 'accept', content: { ok: false } };
    });
    client.setNotificationHandler('notifications/tools/list_changed', () => void changes++);
    client.onerror = (error) => void errors.push(error.message);
    const transport = new Sdk2HttpTransport(new URL(proxy.url));
    await client.connect(transport, { timeout: 10_000 });
    const sessionId = transport.sessionId;
    assert.match(sessionId ?? '', /\S/, 'a legacy session');
    try {
      assert.equal(textOf(await client.callTool({ name: 'region', arguments: { region: 'us', count: 5 } })), 'region us count 5');
      for (const what of ['four', 'five', 'six']) {
        assert.equal(textOf(await client.callTool({ name: 'confirm', arguments: { what } })), `confirmed ${what}: ok=false`);
      }
      assert.deepEqual(elicited, ['Confirm four?', 'Confirm five?', 'Confirm six?']);
      assertAnsweredElsewhere(proxy.routed.filter((entry) => entry.sessionId === sessionId), (body) => body.includes('"confirm"'), (body) => body.includes('"action":"accept"'));
      await announceAll(async (name) => textOf(await client.callTool({ name: 'announce', arguments: { name } })), () => changes);
    } finally {
      await transport.terminateSession();
      await client.close();
    }
    assert.ok(proxy.routed.some((entry) => entry.method === 'DELETE' && entry.sessionId === sessionId), 'the session ended with DELETE');
    assert.deepEqual(errors, []);
  });

  test('round robin - the SDK 2.x client, modern era: mirrored Mcp-Param-* headers, an input_required round on alternating replicas', T, async () => {
    const elicited: string[] = [];
    const client = new Sdk2Client({ name: 'sdk2-rr-modern', version: '2.0.0' }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: 'auto' } });
    client.setRequestHandler('elicitation/create', (request) => {
      elicited.push((request.params as { message: string }).message);
      return { action: 'accept', content: { ok: true } };
    });
    const from = proxy.routed.length;
    await client.connect(new Sdk2HttpTransport(new URL(proxy.url)), { timeout: 10_000 });
    try {
      assert.equal(client.getProtocolEra(), 'modern');
      await client.listTools();
      assert.equal(textOf(await client.callTool({ name: 'region', arguments: { region: 'ap', count: 3 } })), 'region ap count 3');
      const mirrored = proxy.routed.slice(from).find((entry) => entry.body.includes('"region"') && entry.body.includes('"ap"'));
      assert.deepEqual(mirrored?.paramHeaders, { 'mcp-param-region': 'ap', 'mcp-param-count': '3' }, 'the client mirrored the marked arguments');
      assert.equal(textOf(await client.callTool({ name: 'confirm', arguments: { what: 'seven' } })), 'confirmed seven: ok=true');
      assert.deepEqual(elicited, ['Confirm seven?']);
      // The round's retry (the call again, with the client's input) went to the other replica than the first try.
      const tries = proxy.routed.slice(from).filter((entry) => entry.method === 'POST' && entry.body.includes('"seven"'));
      assert.equal(tries.length, 2, 'the call, then its retry with the input');
      assert.notEqual(tries[0]?.upstream, tries[1]?.upstream);
    } finally {
      await client.close();
    }
    assert.ok(proxy.routed.slice(from).every((entry) => entry.sessionId === undefined), 'no session in the modern era');
  });

  test('round robin - our client: sampling and roots asked during a call answered through the other replica; list changes and server requests on the GET stream', T, async () => {
    const client = createClient({
      name: 'rxmcp-rr',
      version: '0.0.0',
      era: 'legacy',
      sampling: () => ({ role: 'assistant', model: 'rr-model', content: { type: 'text', text: 'briefly' } }),
      roots: [{ uri: 'file:///work/rr', name: 'rr' }],
    });
    const session = await client.connect(createStreamableHttpClientTransport(proxy.url));
    let changes = 0;
    const listening = session.listChanged$.subscribe((change) => {
      if (change === 'tools') changes++;
    });
    try {
      for (let round = 0; round < 2; round++) {
        assert.equal(textOf(await session.callTool('summarize', { text: `text ${round}` })), 'model rr-model said briefly');
        assert.equal(textOf(await session.callTool('where', {})), 'roots: file:///work/rr');
      }
      assertAnsweredElsewhere(proxy.routed, (body) => body.includes('"summarize"'), (body) => body.includes('"rr-model"'));
      assertAnsweredElsewhere(proxy.routed, (body) => body.includes('"where"'), (body) => body.includes('"roots":['));
      await announceAll(async (name) => textOf(await session.callTool('announce', { name })), () => changes);
      // The server asks for the roots on its own each time they change: a request on the GET stream.
      for (let round = 1; round <= ANNOUNCEMENTS; round++) {
        client.setRoots([{ uri: `file:///work/rr-${round}` }]);
        await until(() => rootsAsked.length === round, `the server's roots/list ${round} of ${ANNOUNCEMENTS} answered`);
        assert.equal(rootsAsked[round - 1], `file:///work/rr-${round}`);
      }
    } finally {
      listening.unsubscribe();
      await session.close();
    }
  });
});
