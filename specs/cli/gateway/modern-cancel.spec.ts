/**
 * A modern-era (2026-07-28) client cancels a request by closing its POST. Through `rxmcp gateway` that must reach
 * the server behind it on NATS: the handler's signal aborts, while a request of another caller with the same id,
 * on the same gateway, runs on to its answer. A legacy POST closed early is no cancellation (the legacy rule:
 * a lost stream is not a cancellation), so its handler runs to the end.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type NatsConnection, connect } from '@nats-io/transport-node';
import { createGateway, type Gateway } from '../../../cli/gateway/gateway.ts';
import { type McpServer, createServer } from '../../../server/create-server.ts';
import { type ListeningServer } from '../../../transports/http/index.ts';
import { type NatsServing, serveNats } from '../../../transports/nats/index.ts';
import { deferred, eventually } from '../../support/harness.ts';
import { ACCEPT_BOTH, RawMcp, type RawReply, rawRequest } from '../../support/http-raw-client.ts';
import { type NatsServerProcess, startNatsServer } from '../../support/nats-server.ts';
import { type Json, ModernHttp } from '../../transports/http-server/modern/modern-http.ts';

interface Held {
  readonly signal: AbortSignal;
  readonly release: () => void;
}

/** `hold` runs until its key is released (answering `held <key>`) or its signal aborts. */
function holdingServer(held: Map<string, Held>, started: Map<string, ReturnType<typeof deferred<void>>>): McpServer {
  const server = createServer({ name: 'gateway-modern-cancel', version: '0.0.0' });
  server.tool({ name: 'hold', inputSchema: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] } }, (args: Record<string, unknown>, ctx) => {
    const key = String(args['key']);
    const gate = deferred<void>();
    held.set(key, { signal: ctx.signal, release: () => gate.resolve() });
    startedOf(started, key).resolve();
    return Promise.race([
      gate.promise.then(() => `held ${key}`),
      new Promise<string>((resolve) => ctx.signal.addEventListener('abort', () => resolve('aborted'), { once: true })),
    ]);
  });
  return server;
}

function startedOf(started: Map<string, ReturnType<typeof deferred<void>>>, key: string): ReturnType<typeof deferred<void>> {
  let found = started.get(key);
  if (found === undefined) started.set(key, (found = deferred<void>()));
  return found;
}

function textOf(reply: Json): string {
  const result = reply['result'] as { content?: Array<{ text?: string }> } | undefined;
  return String(result?.content?.[0]?.text);
}

describe('gateway: a modern POST closed early is a cancellation', () => {
  let nats: NatsServerProcess;
  const connections: NatsConnection[] = [];
  const held = new Map<string, Held>();
  const started = new Map<string, ReturnType<typeof deferred<void>>>();
  let server: McpServer;
  let serving: NatsServing;
  let gateway: Gateway;
  let listening: ListeningServer;

  before(async () => {
    nats = await startNatsServer();
    const open = async (): Promise<NatsConnection> => {
      const made = await connect({ servers: nats.url });
      connections.push(made);
      return made;
    };
    server = holdingServer(held, started);
    serving = await serveNats(server, { connection: await open(), name: 'holding' });
    gateway = await createGateway({ connection: await open(), name: 'holding' });
    listening = await gateway.http.listen(0, '127.0.0.1');
  });

  after(async () => {
    for (const entry of held.values()) entry.release();
    await listening.close();
    await gateway.close();
    await serving.close('end');
    await server.close();
    await Promise.allSettled(connections.map((made) => made.close()));
    await nats.dispose();
  });

  test('closing the POST aborts the handler behind the gateway; the same id of another client runs on', async () => {
    const leaving = new ModernHttp(listening.url);
    const staying = new ModernHttp(listening.url);
    const abort = new AbortController();
    const left = leaving.post('tools/call', { name: 'hold', arguments: { key: 'leaving' } }, { id: 3, signal: abort.signal }).catch((error: unknown) => error);
    const stays = staying.post('tools/call', { name: 'hold', arguments: { key: 'staying' } }, { id: 3 });
    await Promise.all([startedOf(started, 'leaving').promise, startedOf(started, 'staying').promise]);

    abort.abort();
    assert.ok((await left) instanceof Error, 'the closed POST ended without an answer');
    await eventually(() => held.get('leaving')?.signal.aborted === true, 5_000, 'the server behind the gateway to abort the closed request');
    assert.equal(held.get('staying')?.signal.aborted, false, 'the other request with the same id runs on');

    held.get('staying')?.release();
    const reply = await stays;
    assert.equal(reply.status, 200);
    assert.equal(reply.kind, 'body', 'nothing preceded the answer, so it is one JSON body');
    assert.equal(textOf((reply as RawReply).json as Json), 'held staying');
  });

  test('a legacy POST stream dropped by its client is no cancellation: the handler runs to its answer', async () => {
    const legacy = new RawMcp(listening.url);
    await legacy.initialize();
    const abort = new AbortController();
    const body = JSON.stringify({ jsonrpc: '2.0', id: legacy.id(), method: 'tools/call', params: { name: 'hold', arguments: { key: 'legacy' } } });
    const dropped = rawRequest(listening.url, { method: 'POST', headers: legacy.sessionHeaders({ 'content-type': 'application/json', accept: ACCEPT_BOTH }), body, signal: abort.signal }).then(
      (reply) => (reply.kind === 'sse' ? reply.done : 'answered'),
      (error: unknown) => error,
    );
    await startedOf(started, 'legacy').promise;
    abort.abort();
    await dropped;
    // Give a cancellation, were one sent, the time to arrive (the modern case above sees its own within this).
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(held.get('legacy')?.signal.aborted, false, 'the legacy request was not cancelled by the dropped stream');
    held.get('legacy')?.release();
    const { response } = await legacy.call('ping');
    assert.deepEqual(response['result'], {}, 'the session goes on');
    await legacy.delete();
  });
});
