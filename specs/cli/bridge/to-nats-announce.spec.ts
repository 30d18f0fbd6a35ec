/**
 * `rxmcp bridge to-nats` announces the server it bridges on the NATS services protocol, as serveNats announces an
 * rxmcp server: a discovery round on a real nats-server finds the bridge process with the name and version
 * `@modelcontextprotocol/server-everything` answered the bridge's probe, the revision it speaks and the legacy era;
 * its catalog revision moves once a session's process says its tools changed (server-everything adds tools when a
 * client is initialized); a bridge that stops is no longer listed. A program that does not answer the probe is
 * still served, unannounced.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type NatsConnection, connect } from '@nats-io/transport-node';
import { createClient } from '../../../client/create-client.ts';
import { LATEST_LEGACY_REVISION } from '../../../core/protocol/versions.ts';
import { type AnnouncedServer, createNatsClientTransport, discoverNatsServers } from '../../../transports/nats/index.ts';
import { PROCESS_MS, killChildren, until } from '../../support/interop-processes.ts';
import { type NatsServerProcess, startNatsServer } from '../../support/nats-server.ts';
import { startToNats, stopBridge } from './bridge-processes.ts';

let nats: NatsServerProcess | undefined;
let connection: NatsConnection | undefined;

before(async () => {
  nats = await startNatsServer();
  connection = await connect({ servers: nats.url });
});

after(async () => {
  let leftovers: string[] = [];
  try {
    await connection?.close();
    leftovers = await killChildren();
  } finally {
    await nats?.dispose();
  }
  assert.deepEqual(leftovers, [], 'every bridge and server process had ended');
});

/** The servers announced under `binding` (a window wide enough for a loaded machine). */
async function announced(binding: string): Promise<AnnouncedServer[]> {
  assert.ok(connection !== undefined);
  return (await discoverNatsServers(connection, { windowMs: 500 })).filter((server) => server.binding === binding);
}

describe('rxmcp bridge to-nats: announced on the services protocol', { timeout: 90_000 }, () => {
  test('bridge to-nats announce - discovery finds the bridged server with its name, version, revision and era; its catalog revision moves with a list change; gone once stopped', async () => {
    assert.ok(nats !== undefined && connection !== undefined);
    const bridge = await startToNats(nats.url, 'everything');
    assert.match(bridge.stderr(), /announced as mcp-servers\/everything \S+\)/);
    const processId = /bridge process (\S+),/.exec(bridge.stderr())?.[1];
    const [found, ...others] = await announced('everything');
    assert.equal(others.length, 0, 'one bridge process, one instance');
    assert.ok(found !== undefined, 'the bridge is announced');
    const version = found.serverInfo.version;
    assert.match(version, /\S/);
    assert.deepEqual(found, {
      instanceId: processId,
      binding: 'everything',
      prefix: 'mcp',
      serverInfo: { name: 'mcp-servers/everything', version },
      revisions: [LATEST_LEGACY_REVISION],
      eras: ['legacy'],
      catalogRevision: '0',
    });
    assert.match(bridge.stderr(), /server process (\d+) started to learn what it serves[^]*server process \1 exited[^]*serving/, 'the probe\'s process ended before the bridge served');
    assert.equal(bridge.childPids().length, 0, 'no session yet, no process for one');

    // A session: its process adds tools once initialized and says so; the announcement follows.
    const session = await createClient({ era: 'legacy', name: 'announce-spec', version: '0.0.0' }).connect(createNatsClientTransport({ connection, name: 'everything' }), { initializeTimeoutMs: PROCESS_MS });
    assert.equal(session.session.peerInfo?.name, found.serverInfo.name, 'the name announced is the one a session hears');
    assert.equal(session.session.peerInfo?.version, version);
    await until(async () => (await announced('everything'))[0]?.catalogRevision !== '0', 'the catalog revision moved after the list change', 10_000);
    await session.close();

    assert.deepEqual(await stopBridge(bridge), { code: 0, signal: null });
    assert.deepEqual(await announced('everything'), [], 'a stopped bridge is not listed');
  });

  test('bridge to-nats announce - a program that does not answer the probe is served but not announced', async () => {
    assert.ok(nats !== undefined);
    const directory = await mkdtemp(join(tmpdir(), 'rxmcp-bridge-'));
    const server = join(directory, 'mute-server');
    await writeFile(server, '#!/bin/sh\nexit 3\n', { mode: 0o755 });
    try {
      const bridge = await startToNats(nats.url, 'mute', { command: [server] });
      try {
        assert.match(bridge.stderr(), /not announced on the NATS services protocol: the probe of .*mute-server.* failed \(.*exited with code 3\)/);
        assert.match(bridge.stderr(), /serving .* as mcp\.mute .*not announced\)/);
        assert.deepEqual(await announced('mute'), []);
      } finally {
        assert.deepEqual(await stopBridge(bridge), { code: 0, signal: null });
      }
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});
