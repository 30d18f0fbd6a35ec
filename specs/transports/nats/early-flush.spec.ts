/**
 * Both ends of the NATS binding write what they have buffered every 32 messages instead of only at the end of the
 * event loop's turn, so a window of requests (or answers) made in one turn leaves in parts and the peer starts on
 * the first part while the rest is made. Against a real nats-server: the writes are counted where nats.js hands
 * bytes to its socket.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type NatsConnection, headers } from '@nats-io/transport-node';
import { createServer } from '../../../server/create-server.ts';
import { earlyFlushOf } from '../../../transports/nats/early-flush.ts';
import { createNatsClientTransport, serveNats } from '../../../transports/nats/index.ts';
import { eventually } from '../../support/harness.ts';
import { SERVER_NAME, demoTools, handAnswered, natsFixture } from './nats-fixture.ts';

const envelope = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
const call = (id: number): Record<string, unknown> => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text: `t${id}` }, _meta: envelope } });

/** Records every write nats.js makes on `connection`'s socket (as it hands the bytes over). */
function writesOf(connection: NatsConnection): Uint8Array[] {
  const transport = (connection as unknown as { protocol: { transport: { send(bytes: Uint8Array): void } } }).protocol.transport;
  const writes: Uint8Array[] = [];
  const send = transport.send.bind(transport);
  transport.send = (bytes: Uint8Array): void => {
    writes.push(bytes);
    send(bytes);
  };
  return writes;
}

/** How many messages a write carries (each starts with a PUB or HPUB line). */
const messagesIn = (bytes: Uint8Array): number => Buffer.from(bytes).toString('latin1').split(/(?:^|\r\n)H?PUB /).length - 1;

test('early flush - every 32nd message on a connection sends what is buffered; other connections count on their own', () => {
  const flushed = new Map<string, number>();
  const fake = (name: string): NatsConnection => ({ protocol: { flushPending: () => flushed.set(name, (flushed.get(name) ?? 0) + 1) } }) as unknown as NatsConnection;
  const a = fake('a');
  const b = fake('b');
  assert.equal(earlyFlushOf(a), earlyFlushOf(a), 'one counter per connection, shared by its publishers');
  for (let i = 0; i < 31; i++) earlyFlushOf(a).published();
  assert.equal(flushed.get('a'), undefined);
  earlyFlushOf(a).published();
  assert.equal(flushed.get('a'), 1);
  for (let i = 0; i < 32; i++) earlyFlushOf(b).published();
  for (let i = 0; i < 32; i++) earlyFlushOf(a).published();
  assert.deepEqual([flushed.get('a'), flushed.get('b')], [2, 1]);
  // A connection without nats.js's internals keeps its own end-of-turn write, and nothing throws.
  const bare = earlyFlushOf({} as NatsConnection);
  for (let i = 0; i < 64; i++) bare.published();
});

test('early flush - a client sending 100 requests in one turn writes them in parts as it goes', async () => {
  await using fixture = await natsFixture({ jetstream: false });
  const seen = await handAnswered(await fixture.connection());
  const connection = await fixture.connection();
  const transport = createNatsClientTransport({ connection, name: SERVER_NAME });
  try {
    const writes = writesOf(connection);
    for (let id = 1; id <= 100; id++) void transport.send({ payload: call(id) as never });
    const duringTheTurn = writes.length;
    assert.ok(duringTheTurn >= 3, `${duringTheTurn} writes before the turn ended (one every 32 requests)`);
    await eventually(() => seen.length === 100, 5000, 'all 100 requests at the responder');
    assert.deepEqual(seen.map((msg) => (JSON.parse(Buffer.from(msg.data).toString()) as { id: number }).id), Array.from({ length: 100 }, (_, i) => i + 1), 'in order');
    assert.ok(writes.every((bytes) => messagesIn(bytes) <= 32), `no write carries more than 32 requests: ${writes.map(messagesIn).join(', ')}`);
  } finally {
    await transport.close();
  }
});

test('early flush - a server answering a window of requests writes no more than 32 answers at once', async () => {
  await using fixture = await natsFixture({ jetstream: false });
  // The server's writes are watched on its own connection.
  const serverConnection = await fixture.connection();
  const server = createServer({ name: 'early-flush', version: '0.0.0' });
  demoTools(server);
  const serving = await serveNats(server, { connection: serverConnection, name: SERVER_NAME, sessionRecords: false });
  const caller = await fixture.connection();
  const inbox = `_INBOX.early${process.pid}`;
  const answers: string[] = [];
  caller.subscribe(`${inbox}.>`, { callback: (error, msg) => void (error === null && answers.push(Buffer.from(msg.data).toString())) });
  await caller.flush();
  const writes = writesOf(serverConnection);
  const body = (id: number): Uint8Array => Buffer.from(JSON.stringify(call(id)));
  const set = headers();
  set.set('MCP-Protocol-Version', '2026-07-28');
  set.set('Mcp-Method', 'tools/call');
  set.set('Mcp-Name', 'echo');
  set.set('Mcp-Lane', 'early-flush-lane');
  try {
    for (let id = 1; id <= 200; id++) caller.publish(`mcp.${SERVER_NAME}.call.tools.call`, body(id), { reply: `${inbox}.${id}`, headers: set });
    await caller.flush();
    await eventually(() => answers.length === 200, 10_000, 'all 200 answers');
    assert.ok(answers.every((text) => text.includes('"result"')), `every request answered: ${answers.find((text) => !text.includes('"result"'))}`);
    const perWrite = writes.map(messagesIn).filter((count) => count > 0);
    assert.equal(perWrite.reduce((sum, count) => sum + count, 0), 200, 'every answer counted in the writes');
    assert.ok(perWrite.every((count) => count <= 32), `answers per write: ${perWrite.join(', ')}`);
  } finally {
    await serving.close('end', { drainMs: 0 });
    await server.close();
  }
});
