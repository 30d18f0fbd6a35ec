/**
 * MCP over NATS with replicas on both sides.
 *
 * - Two server replicas (here two NATS connections in one process; in production, processes anywhere) serve the
 *   same name, `weather`, in one queue group: requests are spread over them.
 * - A client anywhere on the bus connects with `createNatsClientTransport`.
 * - Two `rxmcp gateway` processes put the NATS-hosted server on Streamable HTTP. They keep legacy sessions and
 *   SSE events in JetStream, so a session opened through one gateway goes on through the other.
 *
 * Needs a nats-server with JetStream: NATS_URL (default nats://127.0.0.1:4222), for example
 * `nats-server -js -p 4222`. Run: node nats-gateway-replicas.js (after tsc), exits 0 when every assertion holds.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { connect } from '@nats-io/transport-node';
import { createClient, createServer, type McpServer } from 'rxmcp';
import { createStreamableHttpClientTransport } from 'rxmcp/http';
import { createNatsClientTransport, serveNats } from 'rxmcp/nats';

const natsUrl = process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222';
const name = `weather-${process.pid}`; // a name of its own, so runs sharing a nats-server do not meet

function weatherServer(replica: string): McpServer {
  const server = createServer({ name: 'weather', version: '1.0.0' });
  server.tool(
    { name: 'forecast', inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
    (args) => ({ structuredContent: { city: String(args['city']), sky: 'clear', replica } }),
  );
  return server;
}

/** Starts `rxmcp gateway` (the package's own command) and resolves with its URL once it listens. */
async function startGateway(): Promise<{ readonly url: string; readonly child: ChildProcess }> {
  const manifestPath = createRequire(import.meta.url).resolve('rxmcp/package.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { bin: { rxmcp: string } };
  const bin = join(dirname(manifestPath), manifest.bin.rxmcp);
  // The same node with the same flags as this example (a loader, if one runs it).
  const child = spawn(process.execPath, [...process.execArgv, bin, 'gateway', '--name', name, '--nats', natsUrl, '--port', '0'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the gateway did not start within 30 s')), 30_000);
    child.once('exit', (code) => reject(new Error(`the gateway exited with ${code}`)));
    lines.on('line', (line) => {
      const match = /listening at (\S+)/.exec(line);
      if (match?.[1] === undefined) return;
      clearTimeout(timer);
      resolve(match[1]);
    });
  });
  return { url, child };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM'); // the gateway closes its HTTP side and drains its NATS connection
  await exited;
}

/** One JSON-RPC message over Streamable HTTP, without a client library; the answer may come as SSE. */
async function post(url: string, message: object, headers: Record<string, string> = {}): Promise<{ status: number; sessionId: string | null; body: unknown }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(message),
  });
  const text = await response.text();
  const data = text.split('\n').filter((line) => line.startsWith('data: ')).map((line) => line.slice('data: '.length)).at(-1);
  const json = response.headers.get('content-type')?.startsWith('text/event-stream') === true ? data : text;
  return { status: response.status, sessionId: response.headers.get('mcp-session-id'), body: json === undefined || json === '' ? undefined : JSON.parse(json) };
}

const replicaConnections = [await connect({ servers: natsUrl }), await connect({ servers: natsUrl })];
const servers = [weatherServer('replica-1'), weatherServer('replica-2')];
const serving = await Promise.all(servers.map((server, index) => serveNats(server, { connection: replicaConnections[index]!, name })));
const clientConnection = await connect({ servers: natsUrl });
const gateways: ChildProcess[] = [];

try {
  // A client on the bus: calls are spread over both replicas (queue group).
  const session = await createClient({ name: 'bus-client', version: '1.0.0' }).connect(createNatsClientTransport({ connection: clientConnection, name }));
  const replicas = new Set<unknown>();
  for (let call = 0; call < 20; call += 1) {
    const result = await session.callTool('forecast', { city: 'Oslo' });
    replicas.add(result.structuredContent?.['replica']);
  }
  assert.deepEqual([...replicas].sort(), ['replica-1', 'replica-2']);
  await session.close();

  // Two gateways: Streamable HTTP fronts for the same NATS-hosted server.
  const [a, b] = [await startGateway(), await startGateway()];
  gateways.push(a.child, b.child);

  // Any HTTP client works through a gateway; this one speaks the modern era.
  const viaA = await createClient({ name: 'http-client', version: '1.0.0' }).connect(createStreamableHttpClientTransport(a.url));
  assert.equal((await viaA.callTool('forecast', { city: 'Lima' })).structuredContent?.['city'], 'Lima');
  await viaA.close();

  // A legacy session opened through gateway A goes on through gateway B (its record is in JetStream KV).
  const init = await post(a.url, {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fetch', version: '0' } },
  });
  assert.equal(init.status, 200);
  assert.ok(init.sessionId !== null);
  const inSession = { 'mcp-session-id': init.sessionId, 'mcp-protocol-version': '2025-06-18' };
  assert.equal((await post(b.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, inSession)).status, 202);
  const call = await post(b.url, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'forecast', arguments: { city: 'Kyiv' } } }, inSession);
  assert.equal(call.status, 200);
  assert.deepEqual((call.body as { result: { structuredContent: { city: string } } }).result.structuredContent.city, 'Kyiv');
} finally {
  await Promise.all(gateways.map(stop));
  await Promise.all(serving.map((served) => served.close('end')));
  await Promise.all([...replicaConnections, clientConnection].map((connection) => connection.drain()));
}
console.log('NATS with gateway replicas: ok');
