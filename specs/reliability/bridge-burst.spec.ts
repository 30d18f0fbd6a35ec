/**
 * The burst through `rxmcp bridge to-nats` (a real process) in front of a stdio server program (a real child):
 * 1,000 calls at once from a NATS client against the child's in-flight cap of 256. Every call settles exactly
 * once, the refusals name the bound, and the session serves again once the load fell: the bridge's pipe pauses
 * reading instead of dropping what it cannot pass on.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { createNatsClientTransport } from '../../transports/nats/index.ts';
import { type BridgeProcess, startToNats, stopBridge } from '../cli/bridge/bridge-processes.ts';
import { burstCalls, withClient } from '../support/burst.ts';
import { killChildren } from '../support/interop-processes.ts';
import { type NatsServerProcess, startNatsServer } from '../support/nats-server.ts';
import { BURST_SERVER } from '../support/raw-stdio-peer.ts';
import { programArgs } from '../support/spec-program.ts';

let nats: NatsServerProcess;
let bridge: BridgeProcess;
let connection: NatsConnection;

before(async () => {
  nats = await startNatsServer();
  bridge = await startToNats(nats.url, 'burst', { command: [process.execPath, ...programArgs(BURST_SERVER)] });
  connection = await connect({ servers: nats.url });
});

after(async () => {
  await connection?.close();
  if (bridge !== undefined) await stopBridge(bridge);
  await killChildren();
  await nats?.dispose();
});

test('bridge burst - 1,000 calls at once through the bridge to a stdio server with a cap of 256: each answered exactly once, then served again', { timeout: 120_000 }, async () => {
  await withClient(createNatsClientTransport({ connection, name: 'burst' }), 'legacy', async (client) => {
    const tally = await burstCalls(client, { calls: 1_000, cap: 256, args: { ms: 1_000 } });
    assert.ok(tally.refusals > 0, 'the cap was hit and named');
  });
});
