/**
 * Tool parameters mirrored into `Mcp-Param-*` headers (2026-07-28) through `rxmcp gateway` to a server hosted
 * on a real nats-server: the gateway passes them on beside the body, so a tool whose input schema marks
 * arguments with `x-mcp-header` works through it for our client and the official SDK 2.x client; a mirrored
 * header that disagrees with the body is refused by the server behind the gateway exactly as over direct HTTP.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { type NatsConnection, connect } from '@nats-io/transport-node';
import { createGateway, type Gateway } from '../../../cli/gateway/gateway.ts';
import { createClient } from '../../../client/create-client.ts';
import { type McpServer, createServer } from '../../../server/create-server.ts';
import { type ListeningServer, type StreamableHttpServer, createStreamableHttpServer, createStreamableHttpClientTransport } from '../../../transports/http/index.ts';
import { type NatsServing, serveNats } from '../../../transports/nats/index.ts';
import { withEnvelope } from '../../support/modern-envelope.ts';
import { type NatsServerProcess, startNatsServer } from '../../support/nats-server.ts';
import { type Json, ModernHttp, assertErrorReply, base64Header } from '../../transports/http-server/modern/modern-http.ts';

/** Every argument `region` reads is mirrored: `region` as `Mcp-Param-Region`, `count` as `Mcp-Param-Count`. */
function regionServer(): McpServer {
  const server = createServer({ name: 'gateway-param-headers', version: '0.0.0' });
  server.tool(
    {
      name: 'region',
      inputSchema: {
        type: 'object',
        properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, count: { type: 'integer', 'x-mcp-header': 'Count' } },
      },
    },
    (args: Record<string, unknown>) => `region ${String(args['region'])} count ${String(args['count'])}`,
  );
  return server;
}

function textOf(result: { readonly content?: unknown }): string {
  const first = (result.content as Array<{ type: string; text?: string }> | undefined)?.[0];
  return first?.type === 'text' ? String(first.text) : JSON.stringify(result);
}

describe('gateway Mcp-Param-* headers', () => {
  let nats: NatsServerProcess;
  const connections: NatsConnection[] = [];
  const servers: McpServer[] = [];
  let serving: NatsServing;
  let gateway: Gateway;
  let gatewayListening: ListeningServer;
  let direct: StreamableHttpServer;
  let directListening: ListeningServer;

  before(async () => {
    nats = await startNatsServer();
    const open = async (): Promise<NatsConnection> => {
      const made = await connect({ servers: nats.url });
      connections.push(made);
      return made;
    };
    const onNats = regionServer();
    const onHttp = regionServer();
    servers.push(onNats, onHttp);
    serving = await serveNats(onNats, { connection: await open(), name: 'regions' });
    gateway = await createGateway({ connection: await open(), name: 'regions' });
    gatewayListening = await gateway.http.listen(0, '127.0.0.1');
    direct = createStreamableHttpServer({ server: onHttp });
    directListening = await direct.listen(0, '127.0.0.1');
  });

  after(async () => {
    await gatewayListening.close();
    await gateway.close();
    await directListening.close();
    await direct.close();
    await serving.close('end');
    for (const made of servers) await made.close();
    await Promise.allSettled(connections.map((made) => made.close()));
    await nats.dispose();
  });

  test('gateway Mcp-Param-* - our modern client calls a tool with x-mcp-header marks through the gateway', async () => {
    const session = await createClient({ name: 'c', version: '0', era: 'modern' }).connect(createStreamableHttpClientTransport(gatewayListening.url));
    try {
      // Listing teaches the client which arguments the tool mirrors.
      const tools = await session.listTools();
      assert.ok(tools.some((tool) => tool.name === 'region'));
      assert.equal(textOf(await session.callTool('region', { region: 'eu-west', count: 7 })), 'region eu-west count 7');
      // A value that needs encoding travels encoded and is decoded by the server behind the gateway.
      assert.equal(textOf(await session.callTool('region', { region: 'Zürich ' })), 'region Zürich  count undefined');
    } finally {
      await session.close();
    }
  });

  test('gateway Mcp-Param-* - the official SDK 2.x client mirrors the marked arguments and is served through the gateway', async () => {
    const client = new Client({ name: 'sdk2-param-headers', version: '2.4.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new StreamableHTTPClientTransport(new URL(gatewayListening.url)));
    try {
      assert.equal(client.getProtocolEra(), 'modern');
      await client.listTools();
      const result = await client.callTool({ name: 'region', arguments: { region: 'ap-south', count: 3 } });
      assert.equal(textOf(result), 'region ap-south count 3');
    } finally {
      await client.close();
    }
  });

  test('gateway Mcp-Param-* - a mirrored header that disagrees with the body is refused behind the gateway as over direct HTTP', async () => {
    const cases: Array<{ readonly label: string; readonly args: Json; readonly headers: Readonly<Record<string, string | undefined>> }> = [
      { label: 'different value', args: { region: 'eu', count: 7 }, headers: { 'Mcp-Param-Region': 'eu', 'Mcp-Param-Count': '8' } },
      { label: 'header missing', args: { region: 'eu' }, headers: {} },
      { label: 'header without a body value', args: { count: 1 }, headers: { 'Mcp-Param-Count': '1', 'Mcp-Param-Region': 'eu' } },
      { label: 'bad encoding', args: { region: 'Zürich' }, headers: { 'Mcp-Param-Region': base64Header('Zurich') } },
    ];
    const viaGateway = new ModernHttp(gatewayListening.url);
    const viaHttp = new ModernHttp(directListening.url);
    for (const { label, args, headers } of cases) {
      const refusedBehind = assertErrorReply(await viaGateway.post('tools/call', { name: 'region', arguments: args }, { id: label, headers }), 400, -32020, label);
      const refusedDirect = assertErrorReply(await viaHttp.post('tools/call', { name: 'region', arguments: args }, { id: label, headers }), 400, -32020, label);
      assert.deepEqual(refusedBehind, refusedDirect, label);
      assert.match(String(refusedBehind['message']), /Mcp-Param-/, label);
    }
    // The same raw client, headers agreeing with the body, is served: the refusals were the mirror check.
    const { response } = await viaGateway.call('tools/call', { name: 'region', arguments: { region: 'eu', count: 7 } }, { headers: { 'mcp-param-region': 'eu', 'MCP-PARAM-COUNT': '007' } });
    assert.equal(textOf(response['result'] as Json), 'region eu count 7');
    viaGateway.assertClean();
    viaHttp.assertClean();
  });

  test('gateway Mcp-Param-* - the web-standard handler passes them on as well', async () => {
    const call = async (headers: Readonly<Record<string, string>>): Promise<Json> => {
      const params = withEnvelope({ name: 'region', arguments: { region: 'eu' } }, {});
      const response = await gateway.http.handleFetch(new Request(gatewayListening.url, {
        method: 'POST',
        headers: { ...new ModernHttp(gatewayListening.url).standardHeaders('tools/call', params), ...headers },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }),
      }));
      return { status: response.status, ...(await response.json() as Json) };
    };
    const served = await call({ 'Mcp-Param-Region': 'eu' });
    assert.equal(served['status'], 200, JSON.stringify(served));
    assert.equal(textOf(served['result'] as Json), 'region eu count undefined');
    const refused = await call({ 'Mcp-Param-Region': 'us' });
    assert.equal(refused['status'], 400);
    assert.equal((refused['error'] as Json)['code'], -32020);
  });
});
