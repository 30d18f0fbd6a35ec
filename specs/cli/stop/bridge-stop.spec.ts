/**
 * `rxmcp bridge` stops on time both ways, each a real process against a real nats-server. `to-nats`: with
 * nothing in flight it exits 0 within 1 s of SIGTERM, even when its server process ignores its stdin's end and
 * SIGTERM (that process is gone too); with a call in flight that outlasts `--drain-ms` the call gets an error
 * naming the deadline and the bridge exits 0 within the drain and 1 s more, and so once its NATS server is
 * killed (it took 18 s). `from-nats`: the same, and with a stdio client that never reads its answers. Both fail
 * at once (exit 1) with NATS unreachable from the start.
 * @serial: each bridge process must exit within its drain time plus 1 s of wall clock: CPU contention stretches that
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, describe, test } from 'node:test';
import { type NatsConnection, connect } from '@nats-io/transport-node';
import { createClient } from '../../../client/create-client.ts';
import { createServer } from '../../../server/create-server.ts';
import { createNatsClientTransport, serveNats } from '../../../transports/nats/index.ts';
import { PROCESS_MS, killChildren, trackChild, until } from '../../support/interop-processes.ts';
import { type NatsServerProcess, freePort, startNatsServer } from '../../support/nats-server.ts';
import { type Program, assertGone, assertStops, initializeMessage, startRxmcp } from './stop-processes.ts';
import { programArgs } from '../../support/spec-program.ts';

/** Clients' NATS connections reconnect forever: each is closed at the end even when its test failed. */
const closers: Array<() => Promise<void>> = [];

after(async () => {
  await Promise.allSettled(closers.splice(0).map((close) => close()));
  await killChildren();
});

const DRAIN_MS = 1000;
const STUBBORN = fileURLToPath(new URL('../../support/stdio-fixtures/stubborn-server.mjs', import.meta.url));
const GRACEFUL = fileURLToPath(new URL('../../support/stdio-fixtures/graceful-server.ts', import.meta.url));

async function toNats(nats: NatsServerProcess, name: string, command: readonly string[], extra: readonly string[] = []): Promise<Program> {
  const program = startRxmcp(['bridge', 'to-nats', '--nats', nats.url, '--name', name, ...extra, '--', ...command]);
  await program.waitFor(/serving .* as mcp\./, 'the bridge to serve');
  return program;
}

/** The server processes a to-nats bridge reported starting for sessions (not its probe's, ended before it serves). */
function childPids(program: Program): number[] {
  const pids = Array.from(program.output().matchAll(/server process (\d+) started for/g), (match) => Number(match[1]));
  for (const pid of pids) trackChild(pid, 'a server process of a bridge');
  return pids;
}

/** A legacy client of the bridged server, on its own NATS connection. */
async function legacyClient(nats: NatsServerProcess, name: string): Promise<{ readonly session: Awaited<ReturnType<ReturnType<typeof createClient>['connect']>>; readonly connection: NatsConnection; close(): Promise<void> }> {
  const connection = await connect({ servers: nats.url, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
  closers.push(() => connection.close());
  const session = await createClient({ name: 'stop-spec', version: '1', era: 'legacy' }).connect(createNatsClientTransport({ connection, name, silenceMs: 10_000 }));
  return {
    session,
    connection,
    close: async () => {
      await session.close().catch(() => undefined);
      await connection.close();
    },
  };
}

const settle = <T>(promise: Promise<T>): Promise<{ readonly result?: T; readonly error?: string }> =>
  promise.then((result) => ({ result }), (error: unknown) => ({ error: error instanceof Error ? error.message : String(error) }));

/** A server on NATS, in this process: `wait` runs until cancelled, `big` answers `bytes` bytes. */
async function natsServer(nats: NatsServerProcess, name: string): Promise<AsyncDisposable> {
  const server = createServer({ name, version: '1.0.0' });
  server.tool({ name: 'wait', inputSchema: { type: 'object' } }, (_args, context) => new Promise<string>((_resolve, reject) => context.signal.addEventListener('abort', () => reject(context.signal.reason))));
  server.tool({ name: 'big', inputSchema: { type: 'object', properties: { bytes: { type: 'number' } }, required: ['bytes'] } }, ({ bytes }) => 'x'.repeat(Number(bytes)));
  const connection = await connect({ servers: nats.url, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
  const serving = await serveNats(server, { connection, name, sessionRecords: false });
  return {
    async [Symbol.asyncDispose]() {
      await serving.close('end', { drainMs: 0 });
      await connection.close();
    },
  };
}

/** `bridge from-nats` with the handshake done on its stdin/stdout. */
async function fromNats(nats: NatsServerProcess, name: string, extra: readonly string[] = [], options: { readonly neverReadStdout?: boolean } = {}): Promise<Program> {
  const program = startRxmcp(['bridge', 'from-nats', '--nats', nats.url, '--name', name, ...extra], { protocolOnStdout: true, ...options });
  await program.waitFor(/bridging stdio to mcp\./, 'the bridge to start');
  program.send(initializeMessage(0));
  if (options.neverReadStdout !== true) await until(() => program.messages.some((message) => message['id'] === 0), `the initialize answer; it wrote:\n${program.output()}`, PROCESS_MS);
  program.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return program;
}

const toolCall = (id: number, name: string, args: Record<string, unknown> = {}): Record<string, unknown> => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

describe('rxmcp bridge to-nats stops on time', { timeout: 120_000 }, () => {
  test('nothing in flight, no session: exit 0 within 1 s of SIGTERM', async (t) => {
    await using nats = await startNatsServer();
    const program = await toNats(nats, 'idle', [process.execPath, STUBBORN]);
    t.diagnostic(`exited ${Math.round(await assertStops(program, 1000))} ms after SIGTERM`);
  });

  test('a session whose server process ignores its stdin\'s end and SIGTERM: exit 0 within 1 s, the process gone', async (t) => {
    await using nats = await startNatsServer();
    const program = await toNats(nats, 'stubborn', [process.execPath, STUBBORN]);
    const client = await legacyClient(nats, 'stubborn');
    await client.session.ping();
    const pids = childPids(program);
    assert.equal(pids.length, 1);
    t.diagnostic(`exited ${Math.round(await assertStops(program, 1000))} ms after SIGTERM`);
    await assertGone(pids, 'the stubborn server process was ended');
    await client.close();
  });

  test('a call outlasting --drain-ms: it gets the deadline error, exit 0 within the drain + 1 s', async (t) => {
    await using nats = await startNatsServer();
    const program = await toNats(nats, 'slow', [process.execPath, ...programArgs(GRACEFUL), '10000'], ['--drain-ms', String(DRAIN_MS)]);
    const client = await legacyClient(nats, 'slow');
    const call = settle(client.session.callTool('slow', { ms: 8000 }, { timeoutMs: 20_000 }));
    await until(() => childPids(program).length === 1, 'the server process started', PROCESS_MS);
    await new Promise((resolve) => setTimeout(resolve, 500));
    t.diagnostic(`exited ${Math.round(await assertStops(program, DRAIN_MS + 1000))} ms after SIGTERM`);
    assert.match(JSON.stringify(await call), /closed before request \d+ was answered: the close deadline of 1000 ms passed/);
    await assertGone(childPids(program), 'the server process ended');
    await client.close();
  });

  test('its NATS server killed with a call in flight: exit 0 within the drain + 1 s, the process gone', async (t) => {
    await using nats = await startNatsServer();
    const program = await toNats(nats, 'orphan', [process.execPath, STUBBORN], ['--drain-ms', String(DRAIN_MS)]);
    const client = await legacyClient(nats, 'orphan');
    void settle(client.session.callTool('wait', {}, { timeoutMs: 20_000 }));
    await client.session.ping();
    await nats.kill();
    await new Promise((resolve) => setTimeout(resolve, 300));
    t.diagnostic(`exited ${Math.round(await assertStops(program, DRAIN_MS + 1000))} ms after SIGTERM`);
    await assertGone(childPids(program), 'the server process ended');
    await client.close().catch(() => undefined);
  });

  test('NATS unreachable from the start: exit 1 at once, saying where it tried, its probe\'s process gone', async () => {
    const port = await freePort();
    const program = startRxmcp(['bridge', 'to-nats', '--nats', `nats://127.0.0.1:${port}`, '--name', 'nowhere', '--', process.execPath, STUBBORN]);
    assert.deepEqual(await program.exited, { code: 1, signal: null });
    assert.match(program.output(), new RegExp(`could not connect to NATS at nats://127.0.0.1:${port}`));
    // The process it started to learn what the program serves (one that ignores its stdin's end and SIGTERM) did
    // not outlive it.
    const probed = Array.from(program.output().matchAll(/server process (\d+) started to learn/g), (match) => Number(match[1]));
    assert.equal(probed.length, 1, 'the bridge said which process it probed');
    for (const pid of probed) trackChild(pid, 'the probe process of a bridge');
    await assertGone(probed, 'the probe process ended with the bridge');
  });
});

describe('rxmcp bridge from-nats stops on time', { timeout: 120_000 }, () => {
  test('nothing in flight: exit 0 within 1 s of SIGTERM', async (t) => {
    await using nats = await startNatsServer();
    await using _server = await natsServer(nats, 'idle');
    const program = await fromNats(nats, 'idle');
    t.diagnostic(`exited ${Math.round(await assertStops(program, 1000))} ms after SIGTERM`);
  });

  test('a call outlasting --drain-ms: it gets the deadline error on stdout, exit 0 within the drain + 1 s', async (t) => {
    await using nats = await startNatsServer();
    await using _server = await natsServer(nats, 'busy');
    const program = await fromNats(nats, 'busy', ['--drain-ms', String(DRAIN_MS)]);
    program.send(toolCall(1, 'wait'));
    program.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
    await until(() => program.messages.some((message) => message['id'] === 2), 'the ping answered (the call runs)', PROCESS_MS);
    t.diagnostic(`exited ${Math.round(await assertStops(program, DRAIN_MS + 1000))} ms after SIGTERM`);
    assert.match(JSON.stringify(program.messages.find((message) => message["id"] === 1)), /"error".*the close deadline of 1000 ms passed/);
  });

  test('its NATS server killed with a call in flight: the call gets an error, exit 0 within the drain + 1 s', async (t) => {
    await using nats = await startNatsServer();
    await using _server = await natsServer(nats, 'orphan');
    const program = await fromNats(nats, 'orphan', ['--drain-ms', String(DRAIN_MS)]);
    program.send(toolCall(1, 'wait'));
    program.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
    await until(() => program.messages.some((message) => message['id'] === 2), 'the ping answered (the call runs)', PROCESS_MS);
    await nats.kill();
    await new Promise((resolve) => setTimeout(resolve, 300));
    t.diagnostic(`exited ${Math.round(await assertStops(program, DRAIN_MS + 1000))} ms after SIGTERM`);
    assert.match(JSON.stringify(program.messages.find((message) => message['id'] === 1)), /"error"/);
  });

  test('a stdio client that never reads its answers (megabytes unread): exit within the drain + 1 s', async (t) => {
    await using nats = await startNatsServer();
    await using _server = await natsServer(nats, 'unread');
    const program = await fromNats(nats, 'unread', ['--drain-ms', String(DRAIN_MS)], { neverReadStdout: true });
    for (let id = 1; id <= 8; id++) program.send(toolCall(id, 'big', { bytes: 500_000 }));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    t.diagnostic(`exited ${Math.round(await assertStops(program, DRAIN_MS + 1000))} ms after SIGTERM`);
  });

  test('NATS unreachable from the start: exit 1 at once, saying where it tried', async () => {
    const port = await freePort();
    const program = startRxmcp(['bridge', 'from-nats', '--nats', `nats://127.0.0.1:${port}`, '--name', 'nowhere']);
    assert.deepEqual(await program.exited, { code: 1, signal: null });
    assert.match(program.output(), new RegExp(`could not connect to NATS at nats://127.0.0.1:${port}`));
  });
});
