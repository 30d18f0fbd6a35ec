/**
 * `rxmcp gateway` stops on time, a real process in front of a server on a real nats-server: with nothing in
 * flight it exits 0 within 1 s of SIGTERM; with a call in flight that outlasts `--drain-ms`, the call is
 * answered with an error naming the deadline and the process exits 0 within the drain and 1 s more; the same
 * once its NATS server is killed (it was "stopped" and still running 40 s later), and with HTTP clients that
 * never read their answers; with NATS unreachable from the start it fails at once (exit 1).
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { connect } from '@nats-io/transport-node';
import { createServer } from '../../../server/create-server.ts';
import { serveNats } from '../../../transports/nats/index.ts';
import { RawMcp, asStream } from '../../support/http-raw-client.ts';
import { killChildren } from '../../support/interop-processes.ts';
import { type NatsServerProcess, freePort, startNatsServer } from '../../support/nats-server.ts';
import { neverReadingPost } from '../../support/misbehaving-peers.ts';
import { assertStops, startRxmcp } from './stop-processes.ts';

after(async () => {
  await killChildren();
});

const DRAIN_MS = 1000;

/** The server behind the gateway, in this process: `wait` runs until cancelled, `big` answers `bytes` bytes. */
async function backend(nats: NatsServerProcess, name: string): Promise<AsyncDisposable> {
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

async function gateway(nats: NatsServerProcess, name: string, extra: readonly string[] = []): Promise<{ readonly program: ReturnType<typeof startRxmcp>; readonly url: string }> {
  const port = await freePort();
  const program = startRxmcp(['gateway', '--nats', nats.url, '--name', name, '--port', String(port), ...extra]);
  const url = (await program.waitFor(/listening at (\S+)/, 'the gateway to listen'))[1] as string;
  return { program, url };
}

/** A legacy session through the gateway with a call running that never ends by itself. */
async function waitingCall(url: string): Promise<{ readonly mcp: RawMcp; readonly call: ReturnType<typeof asStream> }> {
  const mcp = new RawMcp(url);
  await mcp.initialize();
  const call = asStream(await mcp.post({ jsonrpc: '2.0', id: mcp.id(), method: 'tools/call', params: { name: 'wait', arguments: {} } }));
  // The call has reached the server once the session answers a ping sent after it.
  await mcp.call('ping');
  return { mcp, call };
}

describe('rxmcp gateway stops on time', { timeout: 120_000 }, () => {
  test('nothing in flight (a session and its GET stream open): exit 0 within 1 s of SIGTERM', async (t) => {
    await using nats = await startNatsServer();
    await using _server = await backend(nats, 'idle');
    const { program, url } = await gateway(nats, 'idle');
    const mcp = new RawMcp(url);
    await mcp.initialize();
    const standalone = asStream(await mcp.get());
    t.diagnostic(`exited ${Math.round(await assertStops(program, 1000))} ms after SIGTERM`);
    assert.equal(await standalone.done, 'ended');
  });

  test('a call outlasting --drain-ms: it is answered with the deadline error, exit 0 within the drain + 1 s', async (t) => {
    await using nats = await startNatsServer();
    await using _server = await backend(nats, 'busy');
    const { program, url } = await gateway(nats, 'busy', ['--drain-ms', String(DRAIN_MS)]);
    const { mcp, call } = await waitingCall(url);
    t.diagnostic(`exited ${Math.round(await assertStops(program, DRAIN_MS + 1000))} ms after SIGTERM`);
    assert.match(JSON.stringify(await mcp.responseOf(call)), /"error".*(shut down|deadline|1000 ms)/i);
  });

  test('its NATS server killed, nothing in flight: exit 0 within 1 s of SIGTERM', async (t) => {
    await using nats = await startNatsServer();
    await using _server = await backend(nats, 'orphan');
    const { program, url } = await gateway(nats, 'orphan');
    await new RawMcp(url).initialize();
    await nats.kill();
    await new Promise((resolve) => setTimeout(resolve, 300));
    t.diagnostic(`exited ${Math.round(await assertStops(program, 1000))} ms after SIGTERM`);
  });

  test('its NATS server killed with a call in flight: the call gets an error, exit 0 within the drain + 1 s', async (t) => {
    await using nats = await startNatsServer();
    await using _server = await backend(nats, 'orphan-busy');
    const { program, url } = await gateway(nats, 'orphan-busy', ['--drain-ms', String(DRAIN_MS)]);
    const { mcp, call } = await waitingCall(url);
    await nats.kill();
    await new Promise((resolve) => setTimeout(resolve, 300));
    t.diagnostic(`exited ${Math.round(await assertStops(program, DRAIN_MS + 1000))} ms after SIGTERM`);
    const answer = await mcp.responseOf(call).catch((error: unknown) => assert.fail(`${String(error)}; the gateway wrote:\n${program.output()}`));
    assert.match(JSON.stringify(answer), /"error".*(shut down|deadline|1000 ms)/i);
  });

  test('HTTP clients that never read their answers (megabytes each): exit within the drain + 1 s', async (t) => {
    await using nats = await startNatsServer();
    await using _server = await backend(nats, 'unread');
    const { program, url } = await gateway(nats, 'unread', ['--drain-ms', String(DRAIN_MS)]);
    const mcp = new RawMcp(url);
    await mcp.initialize();
    const call = (id: number): Record<string, unknown> => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'big', arguments: { bytes: 900_000 } } });
    const stuck = await Promise.all([1, 2, 3, 4, 5, 6, 7, 8].map((id) => neverReadingPost(url, mcp.sessionHeaders(), call(100 + id))));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    t.diagnostic(`exited ${Math.round(await assertStops(program, DRAIN_MS + 1000))} ms after SIGTERM`);
    for (const client of stuck) client.close();
  });

  test('NATS unreachable from the start: exit 1 at once, saying where it tried', async () => {
    const port = await freePort();
    const program = startRxmcp(['gateway', '--nats', `nats://127.0.0.1:${port}`, '--name', 'nowhere', '--port', '0']);
    assert.deepEqual(await program.exited, { code: 1, signal: null });
    assert.match(program.output(), new RegExp(`could not connect to NATS at nats://127.0.0.1:${port}`));
  });
});
