/**
 * What a server publishes while its own NATS connection is down (nats.js reconnecting) is not lost: the answer
 * of a handler that finished meanwhile, and its progress notifications before it, wait in the process's outbox
 * and reach the client, in order, once the connection is back (both eras). Bounded: past `reconnectWaitMs` an
 * answer is given up and its session hears why (a `dropped-response` diagnostic); a flood of notifications
 * fills at most half the outbox, the rest given up at once, and the answer after them still goes. A real
 * nats-server; a proxy in front of the server's connection cuts it (the client's stays up).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type NatsConnection, connect } from '@nats-io/transport-node';
import { concat, defer, from, mergeMap, of, range } from 'rxjs';
import type { SessionDiagnostic } from '../../../index.ts';
import { createServer } from '../../../server/create-server.ts';
import { type NatsServeOptions, type NatsServing, serveNats } from '../../../transports/nats/index.ts';
import { MAX_HELD_FRAMES } from '../../../transports/nats/server/outbox.ts';
import { type NatsServerProcess, startNatsServer } from '../../support/nats-server.ts';
import { type CuttableProxy, cuttableProxy } from './cuttable-proxy.ts';
import { connectClient, until } from './nats-processes.ts';

let nats: NatsServerProcess;
const cleanups: Array<() => Promise<void>> = [];

interface CutServer {
  readonly serving: NatsServing;
  readonly proxy: CuttableProxy;
  /** Whether the server's connection is down now. */
  down(): boolean;
  /** Lets the `gate` call with this key finish (its handler then reports progress and answers). */
  release(key: string): void;
  /** Whether a `gate` call with this key is running. */
  waiting(key: string): boolean;
  /** What the server's sessions diagnosed. */
  readonly diagnostics: SessionDiagnostic[];
  readonly clientConnection: NatsConnection;
}

/**
 * A server whose connection goes through a proxy. Its `gate` tool waits for the test, then reports `progress`
 * steps and answers `done <key>`.
 */
async function cutServer(name: string, options: Partial<NatsServeOptions> = {}): Promise<CutServer> {
  const proxy = await cuttableProxy(nats.port);
  const gates = new Map<string, () => void>();
  const server = createServer({ name, version: '1.0.0' });
  server.tool(
    { name: 'gate', inputSchema: { type: 'object', properties: { key: { type: 'string' }, progress: { type: 'number' } }, required: ['key'] } },
    (args) => {
      const key = String(args['key']);
      const steps = Number(args['progress'] ?? 0);
      return defer(() => from(new Promise<void>((resolve) => gates.set(key, resolve)))).pipe(
        mergeMap(() => concat(range(1, steps).pipe(mergeMap((step) => of({ progress: step, total: steps }))), of(`done ${key}`))),
      );
    },
  );
  const diagnostics: SessionDiagnostic[] = [];
  const watching = server.sessions$.subscribe((event) => {
    if (event.type === 'opened') event.session.diagnostics$.subscribe((diagnostic) => diagnostics.push(diagnostic));
  });
  const connection = await connect({ servers: proxy.url, name: `${name}-server`, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
  let down = false;
  void (async () => {
    for await (const status of connection.status()) {
      if (status.type === 'disconnect') down = true;
      if (status.type === 'reconnect') down = false;
    }
  })();
  const serving = await serveNats(server, { connection, name, ...options });
  const clientConnection = await connect({ servers: nats.url, name: `${name}-client`, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
  cleanups.push(async () => {
    watching.unsubscribe();
    await serving.close('end', { drainMs: 0 });
    await Promise.allSettled([connection.close(), clientConnection.close()]);
    await proxy.close();
  });
  return {
    serving,
    proxy,
    down: () => down,
    release: (key) => gates.get(key)?.(),
    waiting: (key) => gates.has(key),
    diagnostics,
    clientConnection,
  };
}

/** Cuts the server's connection and waits until it noticed. */
async function cut(server: CutServer): Promise<void> {
  server.proxy.cut();
  await until(server.down, 'the server saw its connection drop', 5000);
}

describe('NATS server: what it sends while its connection is down', { timeout: 60_000 }, () => {
  before(async () => {
    nats = await startNatsServer();
  });

  after(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
    await nats?.dispose();
  });

  for (const era of ['legacy', 'modern'] as const) {
    test(`${era}: an answer made while the connection is down arrives once it is back, after its progress, in order`, async () => {
      const server = await cutServer(`answers-${era}`);
      const client = await connectClient(server.clientConnection, `answers-${era}`, era, 15_000);
      const events: string[] = [];
      const call = client.session.callTool('gate', { key: 'a', progress: 2 }, { timeoutMs: 20_000, onProgress: (progress) => void events.push(`progress ${String(progress.progress)}`) }).then((result) => void events.push(JSON.stringify(result.content)));
      await until(() => server.waiting('a'), 'the handler running', 5000);
      await cut(server);
      server.release('a');
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.deepEqual(events, [], 'nothing reaches the client while the server is cut off');
      assert.equal(server.serving.counts().held, 3, 'two progress notifications and the answer wait');
      server.proxy.restore();
      await call;
      assert.deepEqual(events, ['progress 1', 'progress 2', '[{"type":"text","text":"done a"}]']);
      assert.equal(server.serving.counts().held, 0);
      assert.deepEqual(server.diagnostics.filter((diagnostic) => diagnostic.type === 'dropped-response'), []);
    });
  }

  test('past reconnectWaitMs the answer is given up, and its session hears why', async () => {
    const server = await cutServer('answers-bound', { reconnectWaitMs: 400 });
    const client = await connectClient(server.clientConnection, 'answers-bound', 'legacy', 3000);
    const call = client.session.callTool('gate', { key: 'b' }, { timeoutMs: 20_000 }).then(() => 'answered', (error: unknown) => String(error));
    await until(() => server.waiting('b'), 'the handler running', 5000);
    await cut(server);
    server.release('b');
    await until(() => server.diagnostics.some((diagnostic) => diagnostic.type === 'dropped-response'), 'the answer given up', 5000);
    const dropped = server.diagnostics.find((diagnostic) => diagnostic.type === 'dropped-response');
    assert.match(dropped?.detail ?? '', /the answer to request \d+ was not sent \(it waited 400 ms for the connection to come back\)/);
    assert.equal(server.serving.counts().held, 0, 'nothing is kept once given up');
    server.proxy.restore();
    assert.match(await call, /No word from the MCP server "answers-bound" about tools\/call for 3000 ms/, 'the client ends its wait at its silence limit');
  });

  test('a flood of notifications while down fills at most half the outbox; the answer after it still goes', async () => {
    const server = await cutServer('answers-flood');
    const client = await connectClient(server.clientConnection, 'answers-flood', 'legacy', 15_000);
    const flood = MAX_HELD_FRAMES + 1000;
    let progressed = 0;
    const call = client.session.callTool('gate', { key: 'c', progress: flood }, { timeoutMs: 30_000, onProgress: () => void progressed++ });
    await until(() => server.waiting('c'), 'the handler running', 5000);
    await cut(server);
    server.release('c');
    await until(() => server.diagnostics.filter((diagnostic) => diagnostic.type === 'dropped-notification').length >= flood - MAX_HELD_FRAMES / 2, 'the notifications beyond the bound given up', 10_000);
    await until(() => server.serving.counts().held === MAX_HELD_FRAMES / 2 + 1, 'half the outbox of notifications, and the answer, held', 10_000);
    server.proxy.restore();
    const result = await call;
    assert.deepEqual(result.content, [{ type: 'text', text: 'done c' }]);
    assert.ok(progressed <= MAX_HELD_FRAMES / 2, `at most half the outbox of progress reached the client (${progressed})`);
    assert.equal(server.serving.counts().held, 0);
  });
});
