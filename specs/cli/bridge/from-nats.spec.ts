/**
 * `rxmcp bridge from-nats` against real processes: the official SDK 1.x client launches the bridge as its
 * stdio server (as a desktop app would) and reaches an MCP server hosted on NATS, first an rxmcp server in
 * this process, then server-everything behind `rxmcp bridge to-nats` (SDK client -> from-nats -> NATS ->
 * to-nats -> server-everything). `--era` is checked with our own client over stdio.
 * @serial: an era-detecting client probes through a bridge child started with tsx, within the probe's wall-clock limit: on a loaded machine the probe times out and the client falls back to legacy
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { type NatsConnection, connect } from '@nats-io/transport-node';
import { filter, firstValueFrom, timeout } from 'rxjs';
import { z } from 'zod';
import { createClient } from '../../../client/create-client.ts';
import { type McpServer, createServer } from '../../../server/create-server.ts';
import { type NatsServing, serveNats } from '../../../transports/nats/index.ts';
import { spawnStdioServer } from '../../../transports/stdio/index.ts';
import { PROCESS_MS, isRunning, killChildren, trackChild, until } from '../../support/interop-processes.ts';
import { type NatsServerProcess, startNatsServer } from '../../support/nats-server.ts';
import { bridgeCommand, startToNats, stopBridge } from './bridge-processes.ts';

let nats: NatsServerProcess | undefined;
let connection: NatsConnection | undefined;
let server: McpServer | undefined;
let serving: NatsServing | undefined;
const clients: Client[] = [];
/** Every from-nats bridge the SDK client launched, newest last. */
const launched: number[] = [];

before(async () => {
  nats = await startNatsServer();
  connection = await connect({ servers: nats.url });
  server = createServer({ name: 'nats-hosted', version: '1.2.3' });
  server.tool({ name: 'add', description: 'Adds two numbers', inputSchema: z.object({ a: z.number(), b: z.number() }) }, ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }));
  // Progress through ctx.progress, each step well before the answer: the SDK 1.x client handles a notification
  // a microtask after reading it but an answer at once, so progress read with the answer would be too late.
  server.tool({ name: 'count', inputSchema: z.object({ n: z.number() }) }, async ({ n }, ctx) => {
    for (let step = 1; step <= n; step++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      ctx.progress({ progress: step, total: n });
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    return { content: [{ type: 'text', text: `counted to ${n}` }] };
  });
  serving = await serveNats(server, { connection, name: 'hosted' });
});

after(async () => {
  let leftovers: string[] = [];
  try {
    await Promise.allSettled(clients.map((client) => client.close()));
    await serving?.close('end');
    await server?.close();
    await connection?.close();
    leftovers = await killChildren();
  } finally {
    await nats?.dispose();
  }
  assert.deepEqual(leftovers, [], 'every process had ended by itself');
});

/** The SDK 1.x client, launching `rxmcp bridge from-nats` as its stdio server. */
async function sdkThroughBridge(name: string, ...flags: string[]): Promise<{ readonly client: Client; readonly pid: number; readonly stderr: () => string }> {
  assert.ok(nats !== undefined);
  const transport = new StdioClientTransport({ ...bridgeCommand('from-nats', '--nats', nats.url, '--name', name, ...flags), stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  const client = new Client({ name: 'sdk-desktop-client', version: '1.0.0' });
  const connecting = client.connect(transport, { timeout: PROCESS_MS });
  const pid = transport.pid;
  assert.ok(typeof pid === 'number');
  trackChild(pid, `rxmcp bridge from-nats ${name}`);
  launched.push(pid);
  clients.push(client);
  await connecting;
  return { client, pid, stderr: () => stderr };
}

function textOf(result: Awaited<ReturnType<Client['callTool']>>): string {
  assert.notEqual(result.isError, true, JSON.stringify(result));
  return (result.content as Array<{ type: string; text?: string }>).map((block) => block.text ?? '').join('');
}

describe('rxmcp bridge from-nats: an SDK client reaches a NATS-hosted server over stdio', { timeout: 90_000 }, () => {
  test('bridge from-nats - the SDK client lists and calls the tools of an rxmcp server on NATS, with progress, and the bridge exits when it closes', async () => {
    const { client, pid, stderr } = await sdkThroughBridge('hosted');
    assert.equal(client.getServerVersion()?.name, 'nats-hosted');
    assert.equal(serving?.counts().sessions, 1, 'a legacy session on NATS');
    const tools = await client.listTools();
    assert.deepEqual(tools.tools.map((tool) => tool.name).sort(), ['add', 'count']);
    assert.equal(textOf(await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } })), '42');
    const progress: number[] = [];
    const counted = await client.callTool({ name: 'count', arguments: { n: 3 } }, undefined, { onprogress: (event) => void progress.push(event.progress) });
    assert.equal(textOf(counted), 'counted to 3');
    assert.deepEqual(progress, [1, 2, 3]);
    await client.close();
    await until(() => !isRunning(pid), 'the bridge exited once its stdin closed', PROCESS_MS);
    await until(() => serving?.counts().sessions === 0, 'the NATS session ended with it');
    assert.doesNotMatch(stderr(), /NATS side ended|failed/, stderr());
  });

  test('bridge from-nats - a server name nobody serves: the handshake fails at once with a clear error', async () => {
    await assert.rejects(sdkThroughBridge('nobody'), /No MCP server answers on NATS for "nobody"/);
    // The SDK client closes its transport after a failed connect: the bridge sees stdin end and exits.
    await until(() => !isRunning(launched.at(-1) as number), 'the bridge exited', PROCESS_MS);
  });

  test('bridge from-nats - the full chain: SDK client -> from-nats -> NATS -> to-nats -> server-everything', async () => {
    assert.ok(nats !== undefined);
    const bridge = await startToNats(nats.url, 'everything');
    const { client, pid } = await sdkThroughBridge('everything');
    assert.equal(client.getServerVersion()?.name, 'mcp-servers/everything');
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    for (const name of ['echo', 'get-sum', 'trigger-long-running-operation']) assert.ok(names.includes(name), `${name} in ${names.join(', ')}`);
    assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { message: 'the whole chain' } })), 'Echo: the whole chain');
    const progress: Array<[number, number | undefined]> = [];
    const done = await client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } }, undefined, {
      onprogress: (event) => void progress.push([event.progress, event.total]),
    });
    assert.equal(textOf(done), 'Long running operation completed. Duration: 0.3 seconds, Steps: 3.');
    // server-everything sends its last progress right before the answer; the SDK 1.x client handles a
    // notification a microtask after reading it, so when both arrive in one read the last progress is too late.
    assert.ok(progress.length >= 2, JSON.stringify(progress));
    assert.deepEqual(progress, [[1, 3], [2, 3], [3, 3]].slice(0, progress.length));
    await client.close();
    await until(() => !isRunning(pid), 'the from-nats bridge exited', PROCESS_MS);
    await until(() => bridge.childPids().length === 1 && bridge.childPids().every((child) => !isRunning(child)), 'the session\'s server-everything process stopped', PROCESS_MS);
    assert.deepEqual(await stopBridge(bridge), { code: 0, signal: null });
  });
});

describe('rxmcp bridge from-nats --era', { timeout: 90_000 }, () => {
  async function ourClientThroughBridge(...flags: string[]) {
    assert.ok(nats !== undefined);
    const transport = await spawnStdioServer({ ...bridgeCommand('from-nats', '--nats', nats.url, '--name', 'hosted', ...flags), stderr: 'pipe', shutdown: { stdinCloseWaitMs: PROCESS_MS } });
    trackChild(transport.pid, 'rxmcp bridge from-nats (our client)');
    return { transport, session: await createClient({ name: 'era-probe', version: '0.0.0', era: 'auto' }).connect(transport, { initializeTimeoutMs: PROCESS_MS }) };
  }

  test('bridge from-nats - without --era the client\'s own choice passes: an era-detecting client speaks 2026-07-28 to a dual-era server', async () => {
    const { transport, session } = await ourClientThroughBridge();
    assert.equal(session.session.era, 'modern');
    assert.equal((await session.callTool('add', { a: 1, b: 1 })).content[0]?.type, 'text');
    await session.close();
    assert.deepEqual(await transport.exited, { code: 0, signal: null });
  });

  test('bridge from-nats - --era legacy: the probe is refused locally and the client falls back to a legacy session', async () => {
    const sessionsBefore = serving?.counts().sessions ?? 0;
    const { transport, session } = await ourClientThroughBridge('--era', 'legacy');
    assert.equal(session.session.era, 'legacy');
    assert.equal(serving?.counts().sessions, sessionsBefore + 1);
    assert.deepEqual((await session.callTool('add', { a: 1, b: 2 })).content, [{ type: 'text', text: '3' }]);
    await session.close();
    assert.deepEqual(await transport.exited, { code: 0, signal: null });
  });

  test('bridge from-nats - --era modern: a legacy-only client (SDK 1.x) is refused with a message naming the flag', async () => {
    await assert.rejects(sdkThroughBridge('hosted', '--era', 'modern'), /2026-07-28 protocol era only \(rxmcp bridge from-nats --era modern\)/);
    await until(() => !isRunning(launched.at(-1) as number), 'the bridge exited', PROCESS_MS);
  });
});

describe('rxmcp bridge from-nats: a client that does not wait for the handshake', { timeout: 60_000 }, () => {
  test('bridge from-nats - a request before initialize, to a legacy-only server, is refused for its era (not for a header)', async () => {
    assert.ok(nats !== undefined && connection !== undefined);
    const legacyServer = createServer({ name: 'legacy-only', version: '0.0.0', eras: 'legacy' });
    const legacyServing = await serveNats(legacyServer, { connection, name: 'legacy-only' });
    try {
      const transport = await spawnStdioServer({ ...bridgeCommand('from-nats', '--nats', nats.url, '--name', 'legacy-only'), stderr: 'pipe', shutdown: { stdinCloseWaitMs: PROCESS_MS } });
      trackChild(transport.pid, 'rxmcp bridge from-nats legacy-only');
      const answer = firstValueFrom(transport.incoming$.pipe(filter((frame) => frame.type === 'message'), timeout(PROCESS_MS)));
      await transport.send({ payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
      assert.deepEqual((await answer).type === 'message' ? (await answer).payload : undefined, {
        jsonrpc: '2.0',
        id: 1,
        error: { code: -32600, message: 'Invalid request: this server speaks the legacy protocol era; send initialize first and then use the session' },
      });
      await transport.close();
      assert.deepEqual(await transport.exited, { code: 0, signal: null });
    } finally {
      await legacyServing.close('end');
      await legacyServer.close();
    }
  });
});
