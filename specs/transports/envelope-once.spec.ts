/**
 * Every inbound frame's envelope (kind, id, method, target, claimed revision, needs-an-answer) is read once, by
 * the medium where it decodes the frame, and never again: over memory, stdio, Streamable HTTP in both eras and
 * NATS, the envelopes read while a client calls tools (with progress), lists them and pings equal the frames the
 * sessions of both ends took in, and no session had to read one itself.
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { createClient } from '../../client/create-client.ts';
import type { ClientSession } from '../../client/session-api.ts';
import { envelopesRead } from '../../core/frame-envelope.ts';
import type { Transport } from '../../core/transport.ts';
import { createServer, type McpServer } from '../../server/create-server.ts';
import { createStreamableHttpClientTransport, createStreamableHttpServer } from '../../transports/http/index.ts';
import { createMemoryPair } from '../../transports/memory/index.ts';
import { createNatsClientTransport, serveNats } from '../../transports/nats/index.ts';
import { createStdioServerTransport } from '../../transports/stdio/index.ts';
import { eventually } from '../support/harness.ts';
import { startNatsServer } from '../support/nats-server.ts';
import { connect } from '@nats-io/transport-node';

function echoServer(): McpServer {
  const server = createServer({ name: 'envelope-once', version: '1' });
  server.tool({ name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, async (args, ctx) => {
    ctx.progress({ progress: 1, total: 2 });
    await Promise.resolve();
    return `echo ${String((args as { text?: unknown }).text)}`;
  });
  return server;
}

/**
 * Calls, lists and pings on a connected client, counting what both ends' sessions took in (their message taps)
 * against the envelopes read meanwhile.
 */
async function assertReadOnce(server: McpServer, client: ClientSession, medium: string): Promise<void> {
  let inbound = 0;
  const countIn = (message: { readonly direction: 'in' | 'out' }): void => {
    if (message.direction === 'in') inbound++;
  };
  const taps = [server.messages$.subscribe(countIn), client.session.messages$.subscribe(countIn)];
  try {
    const before = envelopesRead();
    for (let i = 0; i < 3; i++) {
      const result = await client.callTool('echo', { text: `t${i}` }, { onProgress: () => undefined });
      assert.deepEqual(result.content, [{ type: 'text', text: `echo t${i}` }], medium);
    }
    await Promise.all([client.callTool('echo', { text: 'a' }), client.callTool('echo', { text: 'b' })]);
    await client.listTools();
    // The modern era has no ping: a second list stands in for it.
    if (client.session.era === 'legacy') await client.ping();
    else await client.listTools();
    // Frames still on their way (a notification behind its answer) are counted once they arrived.
    await eventually(() => envelopesRead().byMedia - before.byMedia === inbound, 2000, `${medium}: every envelope read to be a frame taken in`);
    const after = envelopesRead();
    assert.ok(inbound >= 12, `${medium}: the calls went both ways (${inbound} frames in)`);
    assert.equal(after.byMedia - before.byMedia, inbound, `${medium}: one envelope per frame, read by the medium`);
    assert.equal(after.late - before.late, 0, `${medium}: no session read an envelope again`);
  } finally {
    for (const tap of taps) tap.unsubscribe();
  }
}

test('memory: each frame has its envelope read once', async () => {
  const server = echoServer();
  const [clientEnd, serverEnd] = createMemoryPair();
  server.accept(serverEnd);
  const client = await createClient({ name: 'c', version: '1', era: 'legacy' }).connect(clientEnd);
  try {
    await assertReadOnce(server, client, 'memory');
  } finally {
    await client.close();
    await server.close();
  }
});

test('stdio: each frame has its envelope read once', async () => {
  const toServer = new PassThrough();
  const toClient = new PassThrough();
  const server = echoServer();
  server.accept(createStdioServerTransport({ stdin: toServer, stdout: toClient, guardConsole: false }));
  // The client's end is the same NDJSON pipe transport, over the other ends of the two streams.
  const clientEnd: Transport = createStdioServerTransport({ stdin: toClient, stdout: toServer, guardConsole: false });
  const client = await createClient({ name: 'c', version: '1', era: 'legacy' }).connect(clientEnd);
  try {
    await assertReadOnce(server, client, 'stdio');
  } finally {
    await client.close();
    await server.close();
  }
});

for (const era of ['legacy', 'modern'] as const) {
  for (const responseMode of ['json', 'sse'] as const) {
    test(`Streamable HTTP, ${era} era, ${responseMode} answers: each frame has its envelope read once`, async () => {
      const server = echoServer();
      const http = createStreamableHttpServer({ server, responseMode });
      const { url } = await http.listen();
      const client = await createClient({ name: 'c', version: '1', era }).connect(createStreamableHttpClientTransport(url));
      try {
        await assertReadOnce(server, client, `HTTP ${era} ${responseMode}`);
      } finally {
        await client.close();
        await http.close();
        await server.close();
      }
    });
  }
}

test('NATS: each frame has its envelope read once', async () => {
  await using nats = await startNatsServer({ jetstream: false });
  const serverConnection = await connect({ servers: nats.url });
  const clientConnection = await connect({ servers: nats.url });
  const server = echoServer();
  const serving = await serveNats(server, { connection: serverConnection, name: 'envelope-once', sessionRecords: false });
  const client = await createClient({ name: 'c', version: '1', era: 'legacy' }).connect(createNatsClientTransport({ connection: clientConnection, name: 'envelope-once' }));
  try {
    await assertReadOnce(server, client, 'NATS');
  } finally {
    await client.close();
    await serving.close('end', { drainMs: 0 });
    await server.close();
    await Promise.allSettled([serverConnection.close(), clientConnection.close()]);
  }
});
