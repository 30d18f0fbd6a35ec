/**
 * `rxmcp serve --nats` stops on time, a real process against a real nats-server: with nothing in flight it
 * exits 0 within 1 s of SIGTERM; with a call in flight that outlasts `--drain-ms`, the call is answered with an
 * error naming the deadline and the process exits 0 within the drain and 1 s more; the same once its NATS
 * server is killed (it was "stopped" and still running 40 s later); and with NATS unreachable from the start
 * it fails at once (exit 1, saying where it tried), or, facing a NATS server that never answers, ends at once
 * on SIGTERM.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { connect } from '@nats-io/transport-node';
import { createClient } from '../../../client/create-client.ts';
import { createNatsClientTransport } from '../../../transports/nats/index.ts';
import { PROCESS_MS, killChildren } from '../../support/interop-processes.ts';
import { freePort, startNatsServer } from '../../support/nats-server.ts';
import { silentListener } from '../../support/misbehaving-peers.ts';
import { assertStops, startRxmcp } from './stop-processes.ts';

/** Clients' NATS connections reconnect forever: each is closed at the end even when its test failed. */
const closers: Array<() => Promise<void>> = [];

after(async () => {
  await Promise.allSettled(closers.splice(0).map((close) => close()));
  await killChildren();
});

const DRAIN_MS = 1000;

async function natsServe(url: string, name: string, extra: readonly string[] = []): Promise<ReturnType<typeof startRxmcp>> {
  const program = startRxmcp(['serve', '--nats', url, '--name', name, ...extra]);
  await program.waitFor(/on NATS .* as mcp\./, 'it served');
  return program;
}

/** A legacy client of `name` on its own connection, with a count call running (4 s, past the drain). */
async function callInFlight(url: string, name: string): Promise<{ readonly call: Promise<unknown>; close(): Promise<void> }> {
  const connection = await connect({ servers: url, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
  closers.push(() => connection.close());
  const session = await createClient({ name: 'stop-spec', version: '1', era: 'legacy' }).connect(createNatsClientTransport({ connection, name, silenceMs: 10_000 }));
  let progressed!: () => void;
  const running = new Promise<void>((resolve) => (progressed = resolve));
  const call = session.callTool('count', { n: 20 }, { onProgress: () => progressed(), timeoutMs: 20_000 }).then(
    (result) => ({ result }),
    (error: unknown) => ({ error: error instanceof Error ? error.message : String(error) }),
  );
  await running;
  return {
    call,
    close: async () => {
      await session.close().catch(() => undefined);
      await connection.close();
    },
  };
}

describe('rxmcp serve --nats stops on time', { timeout: 120_000 }, () => {
  test('nothing in flight: exit 0 within 1 s of SIGTERM', async (t) => {
    await using nats = await startNatsServer();
    const program = await natsServe(nats.url, 'idle');
    t.diagnostic(`exited ${Math.round(await assertStops(program, 1000))} ms after SIGTERM`);
  });

  test('a call outlasting --drain-ms: it is answered with the deadline error, exit 0 within the drain + 1 s', async (t) => {
    await using nats = await startNatsServer();
    const program = await natsServe(nats.url, 'busy', ['--drain-ms', String(DRAIN_MS)]);
    const client = await callInFlight(nats.url, 'busy');
    t.diagnostic(`exited ${Math.round(await assertStops(program, DRAIN_MS + 1000))} ms after SIGTERM`);
    assert.match(JSON.stringify(await client.call), /shut down|deadline|1000 ms/i);
    await client.close();
  });

  test('its NATS server killed, nothing in flight: exit 0 within 1 s of SIGTERM', async (t) => {
    await using nats = await startNatsServer();
    const program = await natsServe(nats.url, 'orphan');
    await nats.kill();
    await new Promise((resolve) => setTimeout(resolve, 300));
    t.diagnostic(`exited ${Math.round(await assertStops(program, 1000))} ms after SIGTERM`);
  });

  test('its NATS server killed with a call in flight: exit 0 within the drain + 1 s, saying what was not sent', async (t) => {
    await using nats = await startNatsServer();
    const program = await natsServe(nats.url, 'orphan-busy', ['--drain-ms', String(DRAIN_MS)]);
    const client = await callInFlight(nats.url, 'orphan-busy');
    await nats.kill();
    await new Promise((resolve) => setTimeout(resolve, 300));
    t.diagnostic(`exited ${Math.round(await assertStops(program, DRAIN_MS + 1000))} ms after SIGTERM`);
    assert.match(program.output(), /RxmcpNatsUndeliveredWarning: \d+ message\(s\) of closed sessions were not sent \(.*the answer to request \d+\)/, 'the answer it could not send is reported');
    await client.close().catch(() => undefined);
  });

  test('NATS unreachable from the start: exit 1 at once, saying where it tried', async () => {
    const port = await freePort();
    const program = startRxmcp(['serve', '--nats', `nats://127.0.0.1:${port}`, '--name', 'nowhere']);
    const exit = await program.exited;
    assert.deepEqual(exit, { code: 1, signal: null });
    assert.match(program.output(), new RegExp(`could not connect to NATS at nats://127.0.0.1:${port}`));
  });

  test('a NATS server that accepts and never answers: SIGTERM while connecting ends it at once', async (t) => {
    const silent = await silentListener();
    try {
      const program = startRxmcp(['serve', '--nats', silent.url, '--name', 'hung']);
      // The process is up (the tsx loader done) and waiting on the connection.
      await new Promise((resolve) => setTimeout(resolve, Math.min(PROCESS_MS, 3000)));
      t.diagnostic(`exited ${Math.round(await assertStops(program, 1000, { code: null, signal: 'SIGTERM' }))} ms after SIGTERM`);
    } finally {
      await silent.close();
    }
  });
});
