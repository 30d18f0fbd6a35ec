/**
 * A legacy session its server ends while a request for it is already on its way (NATS routed the request to the
 * server's connection before nats-server heard of the unsubscribe): the request is answered, as for an ended
 * session, not dropped, so its client hears at once instead of waiting out its silence limit. A proxy between the
 * server's connection and nats-server holds what the server sends (its unsubscribe among it) while the client's
 * request is routed to it; nothing is timed but the bound on the answer.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { connect } from '@nats-io/transport-node';
import { createClient } from '../../../client/create-client.ts';
import { createServer } from '../../../server/create-server.ts';
import { createNatsClientTransport, serveNats } from '../../../transports/nats/index.ts';
import { type NatsServerProcess, startNatsServer } from '../../support/nats-server.ts';
import { cuttableProxy } from './cuttable-proxy.ts';

let nats: NatsServerProcess | undefined;
const cleanups: (() => Promise<unknown>)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  await nats?.[Symbol.asyncDispose]();
});

test('a request on its way to a session its server just ended is refused as for an ended session, not lost', { timeout: 30_000 }, async () => {
  nats = await startNatsServer({ jetstream: false });
  const proxy = await cuttableProxy(nats.port);
  cleanups.push(() => proxy.close());
  const serverConnection = await connect({ servers: proxy.url });
  cleanups.push(() => serverConnection.close());
  const server = createServer({ name: 'ending', version: '1.0.0' });
  server.tool({ name: 'ping' }, () => 'pong');
  const serving = await serveNats(server, { connection: serverConnection, name: 'ending', sessionRecords: false });
  cleanups.push(() => serving.close('end', { drainMs: 0 }));
  const clientConnection = await connect({ servers: nats.url });
  cleanups.push(() => clientConnection.close());
  // A silence limit far beyond the bound below: only an answer can end the call in time.
  const session = await createClient({ name: 'spec', version: '1.0.0', era: 'legacy' }).connect(createNatsClientTransport({ connection: clientConnection, name: 'ending', silenceMs: 20_000 }));
  cleanups.push(() => session.close());
  assert.equal((await session.callTool('ping')).content[0]?.type, 'text');

  // The server ends the session; its unsubscribe (and anything else it sends) waits in the proxy.
  proxy.hold();
  const [ended] = [...server.sessions];
  await ended?.close();
  const started = Date.now();
  const call = session.callTool('ping').then(() => 'answered', (error: unknown) => (error instanceof Error ? error.message : String(error)));
  // The request reaches the server's connection (nats-server still routes it there); then the proxy lets go.
  await new Promise((resolve) => setTimeout(resolve, 300));
  proxy.release();
  const outcome = await call;
  assert.ok(Date.now() - started < 10_000, `the call ended within 10 s (took ${Date.now() - started} ms): ${outcome}`);
  assert.match(outcome, /Session not found|session (ended|closed)/i);
});
