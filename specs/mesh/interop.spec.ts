/**
 * rxmcp/mesh with real parts only (issue 30, "what must show"): a 3-node nats-server cluster, and on it three MCP
 * servers found by discovery, each on its own node:
 *   - node 0: an rxmcp server in this process (serveNats), binding `alpha`;
 *   - node 1: the official `@modelcontextprotocol/server-everything` (SDK 1.x, stdio) put on NATS by `rxmcp bridge
 *     to-nats` (the command as users run it, specs/support/rxmcp-command.ts), binding `everything`;
 *   - node 2: an rxmcp server process (specs/support/nats-fixtures/server-process.ts), binding `gamma`.
 * One mesh (createMesh, members from discovery) is served on Streamable HTTP on 127.0.0.1, and two official clients
 * use it: SDK 1.x (`@modelcontextprotocol/sdk`, 2025-11-25 with initialize) and SDK 2.x (`@modelcontextprotocol/client`
 * 2.4.0, which offers 2026-07-28: it speaks the modern era, no session). Each lists the union and calls a tool of
 * every server. Then `gamma` is SIGKILLed while a call of the 1.x client runs there: that call fails with the
 * mesh's "member unavailable" error within a bound, gamma's tools leave the catalog and both clients hear
 * `notifications/tools/list_changed` (the 2.x one on its listen stream), and calls to alpha and everything all
 * succeed meanwhile. Started again, gamma is found again and its tools come back. Likewise the bridge SIGKILLed
 * while a call of the 2.x client runs in its server-everything process: the call fails, everything leaves the
 * union (its processes end with their stdin), and a new bridge of the name is found and listed.
 *
 * @serial: a 3-node JetStream cluster, bridges, server-everything and server processes killed and restarted under wall-clock bounds
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client as Sdk1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as Sdk1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as Sdk2Client, StreamableHTTPClientTransport as Sdk2HttpTransport } from '@modelcontextprotocol/client';
import { type NatsConnection, connect } from '@nats-io/transport-node';
import { z } from 'zod';
import { type Mesh, createMesh } from '../../mesh/index.ts';
import { MEMBER_UNAVAILABLE } from '../../mesh/errors.ts';
import { createServer } from '../../server/create-server.ts';
import { type StreamableHttpServer, createStreamableHttpServer } from '../../transports/http/index.ts';
import { type NatsServing, serveNats } from '../../transports/nats/index.ts';
import { type NatsCluster, startNatsCluster } from '../support/nats-cluster.ts';
import { isRunning, killChildren, until } from '../support/interop-processes.ts';
import { type BridgeProcess, startToNats, stopBridge } from '../cli/bridge/bridge-processes.ts';
import { type ServerProcess, startServerProcess, stopAll } from '../transports/nats/nats-processes.ts';

const LEGACY = '2025-11-25';
const MODERN = '2026-07-28';
/** gamma's tools as the mesh names them: `echo` collides with alpha's and everything's, the rest are its own. */
const GAMMA_TOOLS = ['gamma__echo', 'slow', 'ticks', 'whoami'];

let cluster: NatsCluster | undefined;
const connections: NatsConnection[] = [];
let alpha: NatsServing | undefined;
let bridge: BridgeProcess | undefined;
let gamma: ServerProcess | undefined;
let mesh: Mesh | undefined;
let http: StreamableHttpServer | undefined;
let url: URL;

async function natsConnection(server: string): Promise<NatsConnection> {
  const made = await connect({ servers: server, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
  connections.push(made);
  return made;
}

function alphaServer(): ReturnType<typeof createServer> {
  const server = createServer({ name: 'interop-alpha', version: '1.0.0' });
  server.tool({ name: 'echo', inputSchema: z.object({ text: z.string() }) }, ({ text }) => `alpha: ${text}`);
  server.tool({ name: 'add', inputSchema: z.object({ a: z.number(), b: z.number() }) }, ({ a, b }) => String(a + b));
  return server;
}

before(async () => {
  cluster = await startNatsCluster({ name: 'mesh' });
  const [node0, node1, node2] = cluster.nodes;
  assert.ok(node0 !== undefined && node1 !== undefined && node2 !== undefined);
  // The two processes start while this one serves alpha and the mesh.
  const bridging = startToNats(node1.url, 'everything');
  const starting = startServerProcess(node2.url, 'gamma');
  // Awaited below; a failure meanwhile is not an unhandled rejection.
  bridging.catch(() => undefined);
  starting.catch(() => undefined);
  alpha = await serveNats(alphaServer(), { connection: await natsConnection(node0.url), name: 'alpha', sessionRecords: false });
  mesh = createMesh({
    connection: await natsConnection(node0.url),
    server: { name: 'interop-mesh', version: '1.0.0' },
    discovery: { intervalMs: 300, windowMs: 200 },
    health: { intervalMs: 250, timeoutMs: 1000, retryMs: 250 },
  });
  http = createStreamableHttpServer({ server: mesh.server });
  url = new URL((await http.listen(0, '127.0.0.1')).url);
  [bridge, gamma] = await Promise.all([bridging, starting]);
  mesh.start();
  await until(() => mesh?.members.filter((status) => status.up).length === 3, 'the mesh found the three servers and listed them', 10_000);
});

after(async () => {
  let leftovers: string[] = [];
  try {
    await http?.close();
    await mesh?.close();
    await alpha?.close('end', { drainMs: 0 });
    if (bridge !== undefined) await stopBridge(bridge);
    await stopAll();
    await Promise.allSettled(connections.map((made) => made.close()));
    leftovers = await killChildren();
  } finally {
    await cluster?.dispose();
  }
  assert.deepEqual(leftovers, [], 'every bridge and server process had ended');
});

interface Sdk1 {
  readonly client: Sdk1Client;
  readonly transport: Sdk1HttpTransport;
  /** When each tools/list_changed arrived. */
  readonly toolChanges: number[];
  readonly errors: string[];
}

async function sdk1(): Promise<Sdk1> {
  const client = new Sdk1Client({ name: 'mesh-interop-sdk1', version: '1.0.0' });
  const recorded: Sdk1 = { client, transport: new Sdk1HttpTransport(url), toolChanges: [], errors: [] };
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void recorded.toolChanges.push(Date.now()));
  client.onerror = (error) => void recorded.errors.push(error.message);
  await client.connect(recorded.transport, { timeout: 10_000 });
  return recorded;
}

interface Sdk2 {
  readonly client: Sdk2Client;
  readonly toolChanges: number[];
  readonly errors: string[];
}

async function sdk2(): Promise<Sdk2> {
  const client = new Sdk2Client({ name: 'mesh-interop-sdk2', version: '2.4.0' }, { capabilities: {}, versionNegotiation: { mode: 'auto' } });
  const recorded: Sdk2 = { client, toolChanges: [], errors: [] };
  client.setNotificationHandler('notifications/tools/list_changed', () => void recorded.toolChanges.push(Date.now()));
  client.onerror = (error) => void recorded.errors.push(error.message);
  await client.connect(new Sdk2HttpTransport(url), { timeout: 10_000 });
  return recorded;
}

/** The text of a tool result (its text blocks joined); an error result fails the assertion. */
function textOf(result: unknown): string {
  const { content, isError } = result as { content?: readonly { type: string; text?: string }[]; isError?: boolean };
  assert.notEqual(isError, true, JSON.stringify(result));
  return (content ?? []).map((block) => (block.type === 'text' ? block.text ?? '' : '')).join('');
}

const sorted = (tools: readonly { readonly name: string }[]): string[] => tools.map((tool) => tool.name).sort();

describe('mesh interop: three servers on a NATS cluster, official SDK clients on Streamable HTTP', { timeout: 60_000 }, () => {
  test('mesh interop - both SDKs list the union and call a tool of each server; a member SIGKILLed mid-call fails that call, leaves and comes back while the others answer', async (t) => {
    const [one, two] = await Promise.all([sdk1(), sdk2()]);
    try {
      assert.equal(one.transport.protocolVersion, LEGACY, 'SDK 1.x: the legacy era');
      assert.equal(two.client.getProtocolEra(), 'modern', 'SDK 2.4.0 offers 2026-07-28: the modern era');
      assert.equal(two.client.getNegotiatedProtocolVersion(), MODERN);
      assert.equal(one.client.getServerVersion()?.name, 'interop-mesh');
      const announced = Object.fromEntries((mesh?.members ?? []).map((status) => [status.member.binding, status.member.serverInfo?.name]));
      assert.deepEqual(announced, { alpha: 'interop-alpha', everything: 'mcp-servers/everything', gamma: 'nats-fixture' }, 'each member as it announced itself, the bridged one too');

      // The union: alpha's, everything's and gamma's tools; `echo`, served by all three, is named per member.
      const union = sorted((await one.client.listTools()).tools);
      assert.deepEqual(sorted((await two.client.listTools()).tools), union, 'both eras list the same union');
      for (const name of ['alpha__echo', 'add', 'everything__echo', 'get-sum', 'trigger-long-running-operation', ...GAMMA_TOOLS]) assert.ok(union.includes(name), `${name} in ${union.join(', ')}`);
      assert.ok(!union.includes('echo'), 'a colliding name is not served plain');

      // One tool of each server, from each client.
      for (const client of [one.client, two.client]) {
        assert.equal(textOf(await client.callTool({ name: 'alpha__echo', arguments: { text: 'hi' } })), 'alpha: hi');
        assert.equal(textOf(await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } })), '5');
        assert.equal(textOf(await client.callTool({ name: 'everything__echo', arguments: { message: 'hi' } })), 'Echo: hi');
        assert.match(textOf(await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } })), /\b5\b/);
        assert.equal(JSON.parse(textOf(await client.callTool({ name: 'gamma__echo', arguments: { text: 'hi' } }))).text, 'hi');
      }
      assert.ok(gamma !== undefined);
      assert.equal(JSON.parse(textOf(await one.client.callTool({ name: 'whoami', arguments: {} }))).pid, gamma.pid, 'gamma answers from its process');

      // The 2.x client follows list changes on a listen stream (the modern era has no session to carry them).
      const listening = await two.client.listen({ toolsListChanged: true });
      // The calls to the other members below stop when this test ends, however it ends.
      const others = { stop: false, texts: [] as string[] };
      try {
        // A long call on gamma, from the 1.x client: once its first progress arrives, it runs there.
        let progressed = false;
        const killedCall = one.client.callTool({ name: 'ticks', arguments: { count: 200, ms: 100 } }, CallToolResultSchema, { timeout: 20_000, onprogress: () => void (progressed = true) })
          .then((result) => ({ result }), (error: unknown) => ({ error }));
        await until(() => progressed, 'the call on gamma reported progress', 10_000);
        const changesBefore = { one: one.toolChanges.length, two: two.toolChanges.length };

        // Calls to the other members go on while gamma dies and leaves: a bounded loop, every one must succeed.
        const othersDone = (async () => {
          for (let n = 0; n < 400 && !others.stop; n++) {
            const client = n % 2 === 0 ? one.client : two.client;
            const [echoed, summed] = await Promise.all([
              client.callTool({ name: 'alpha__echo', arguments: { text: String(n) } }),
              client.callTool({ name: 'everything__echo', arguments: { message: String(n) } }),
            ]);
            others.texts.push(textOf(echoed), textOf(summed));
          }
        })().then(() => undefined, (error: unknown) => error);

        const killedAt = Date.now();
        await gamma.kill();
        const outcome = await killedCall;
        const failedAfter = Date.now() - killedAt;
        assert.ok('error' in outcome, `the call on the killed member failed, not ${JSON.stringify(outcome)}`);
        const failure = outcome.error as { code?: unknown; message?: unknown };
        assert.equal(failure.code, MEMBER_UNAVAILABLE, String(failure.message));
        assert.match(String(failure.message), /Mesh member "gamma" is unavailable/);
        assert.ok(failedAfter < 5000, `it failed ${failedAfter} ms after the kill`);
        t.diagnostic(`the call on gamma failed ${failedAfter} ms after the kill: ${String(failure.message)}`);

        // gamma's tools leave the catalog, and both clients hear it.
        await until(() => one.toolChanges.length > changesBefore.one && two.toolChanges.length > changesBefore.two, 'both clients heard tools/list_changed', 10_000);
        await until(async () => !sorted((await one.client.listTools()).tools).includes('whoami'), 'gamma\'s tools left the catalog', 10_000);
        const without = sorted((await two.client.listTools()).tools);
        for (const name of GAMMA_TOOLS) assert.ok(!without.includes(name), `${name} is gone from ${without.join(', ')}`);
        assert.ok(without.includes('alpha__echo') && without.includes('everything__echo'), 'two members still serve echo: still named per member');

        others.stop = true;
        assert.equal(await othersDone, undefined, 'every call to alpha and everything succeeded');
        assert.ok(others.texts.length >= 4, `calls to alpha and everything ran meanwhile (${others.texts.length})`);
        assert.ok(others.texts.every((text) => /^(alpha|Echo): \d+$/.test(text)), others.texts.join(' | '));
        t.diagnostic(`${others.texts.length} calls to alpha and everything succeeded while gamma died and left (${Date.now() - killedAt} ms)`);

        // gamma comes back: found again, listed again, its tools back for both clients.
        const changesGone = { one: one.toolChanges.length, two: two.toolChanges.length };
        assert.ok(cluster?.nodes[2] !== undefined);
        gamma = await startServerProcess(cluster.nodes[2].url, 'gamma');
        await until(() => one.toolChanges.length > changesGone.one && two.toolChanges.length > changesGone.two, 'both clients heard gamma come back', 15_000);
        await until(async () => sorted((await two.client.listTools()).tools).includes('whoami'), 'gamma\'s tools are back', 10_000);
        assert.deepEqual(sorted((await one.client.listTools()).tools), union, 'the union is whole again');
        t.diagnostic(`gamma was back in the union ${Date.now() - killedAt} ms after the kill`);
        assert.equal(JSON.parse(textOf(await two.client.callTool({ name: 'whoami', arguments: {} }))).pid, gamma.pid, 'the new gamma process answers');
      } finally {
        others.stop = true;
        await listening.close();
      }
      assert.deepEqual(one.errors, []);
      assert.deepEqual(two.errors, []);
    } finally {
      await one.transport.terminateSession().catch(() => undefined);
      await Promise.all([one.client.close(), two.client.close()]);
    }
  });

  test('mesh interop - the bridge SIGKILLed mid-call: the call fails, server-everything leaves the union; a new bridge is found and it comes back', async (t) => {
    const [one, two] = await Promise.all([sdk1(), sdk2()]);
    try {
      assert.ok(bridge !== undefined && cluster?.nodes[1] !== undefined);
      const union = sorted((await one.client.listTools()).tools);
      assert.ok(union.includes('trigger-long-running-operation'), union.join(', '));
      // The 2.x client's call runs in a server-everything process behind the bridge, reporting progress.
      let progressed = false;
      const killedCall = two.client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 20, steps: 100 } }, { timeout: 20_000, onprogress: () => void (progressed = true) })
        .then((result) => ({ result }), (error: unknown) => ({ error }));
      await until(() => progressed, 'the call through the bridge reported progress', 10_000);
      const changesBefore = one.toolChanges.length;

      const killedAt = Date.now();
      const killed = bridge;
      killed.signal('SIGKILL');
      await killed.exited;
      const outcome = await killedCall;
      const failedAfter = Date.now() - killedAt;
      assert.ok('error' in outcome, `the call through the killed bridge failed, not ${JSON.stringify(outcome)}`);
      const failure = outcome.error as { code?: unknown; message?: unknown };
      assert.equal(failure.code, MEMBER_UNAVAILABLE, String(failure.message));
      assert.match(String(failure.message), /Mesh member "everything" is unavailable/);
      assert.ok(failedAfter < 5000, `it failed ${failedAfter} ms after the kill`);
      t.diagnostic(`the call through the bridge failed ${failedAfter} ms after the kill: ${String(failure.message)}`);

      // Gone from the union (alpha's and gamma's tools stay, and answer); its processes end with their stdin.
      await until(() => one.toolChanges.length > changesBefore, 'the 1.x client heard tools/list_changed', 10_000);
      await until(async () => !sorted((await two.client.listTools()).tools).includes('get-sum'), 'server-everything\'s tools left the catalog', 10_000);
      assert.equal(textOf(await one.client.callTool({ name: 'add', arguments: { a: 1, b: 1 } })), '2');
      assert.equal(JSON.parse(textOf(await two.client.callTool({ name: 'gamma__echo', arguments: { text: 'still' } }))).text, 'still');
      await until(() => killed.childPids().every((pid) => !isRunning(pid)), 'the killed bridge\'s server processes ended', 10_000);

      // A new bridge of the same name: announced, found, listed again.
      const changesGone = one.toolChanges.length;
      bridge = await startToNats(cluster.nodes[1].url, 'everything');
      await until(() => one.toolChanges.length > changesGone, 'the 1.x client heard server-everything come back', 15_000);
      await until(async () => sorted((await one.client.listTools()).tools).includes('get-sum'), 'server-everything\'s tools are back', 10_000);
      assert.equal(textOf(await two.client.callTool({ name: 'everything__echo', arguments: { message: 'again' } })), 'Echo: again');
      t.diagnostic(`server-everything was back ${Date.now() - killedAt} ms after the kill`);
      assert.deepEqual(one.errors, []);
      assert.deepEqual(two.errors, []);
    } finally {
      await one.transport.terminateSession().catch(() => undefined);
      await Promise.all([one.client.close(), two.client.close()]);
    }
  });
});
