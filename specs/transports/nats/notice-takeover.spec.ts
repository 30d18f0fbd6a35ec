/**
 * A legacy session's notification to a process that died is not lost: NATS says nobody serves the session
 * subject, and the client sends the notification to the adopt subject, where a surviving process takes the
 * session over and handles it (here `notifications/roots/list_changed`, which the fixture prints). With no
 * process left at all, the notification is reported on the session's diagnostics, not dropped in silence.
 * Real server processes on a real nats-server, the owner SIGKILLed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { NatsConnection } from '@nats-io/transport-node';
import { createClient } from '../../../client/create-client.ts';
import type { ClientSession } from '../../../client/session-api.ts';
import { createNatsClientTransport } from '../../../transports/nats/index.ts';
import { type NatsServerProcess, startNatsServer } from '../../support/nats-server.ts';
import { answerOf, awaitGoneFromNats, natsConnection, startServerProcess, stopAll, until } from './nats-processes.ts';

const SILENCE_MS = 5000;
const WAIT_MS = 10_000;

let nats: NatsServerProcess;
const connections: NatsConnection[] = [];
const sessions: ClientSession[] = [];

async function rootedClient(name: string): Promise<{ readonly client: ReturnType<typeof createClient>; readonly session: ClientSession }> {
  const connection = await natsConnection(nats.url, `${name}-client`);
  connections.push(connection);
  const client = createClient({ name: 'notice-spec', version: '1.0.0', era: 'legacy', roots: [{ uri: 'file:///first', name: 'first' }] });
  const session = await client.connect(createNatsClientTransport({ connection, name, silenceMs: SILENCE_MS }));
  sessions.push(session);
  return { client, session };
}

const rootsChanges = (lines: readonly string[]): number => lines.filter((line) => line === 'roots-changed').length;

describe('NATS: a notification to a dead owner is taken over, not lost', { timeout: 120_000 }, () => {
  before(async () => {
    nats = await startNatsServer({ jetstream: true });
  });

  after(async () => {
    await Promise.allSettled(sessions.map((session) => session.close()));
    await Promise.allSettled(connections.map((connection) => connection.close()));
    await stopAll();
    await nats[Symbol.asyncDispose]();
  });

  test('the owner killed, the next notification reaches the survivor, which takes the session over', async () => {
    const name = 'notice-takeover';
    const processes = [await startServerProcess(nats.url, name), await startServerProcess(nats.url, name)];
    const { client, session } = await rootedClient(name);
    const ownerPid = answerOf(await session.callTool('whoami', {})).pid;
    const owner = processes.find((process) => process.pid === ownerPid);
    const survivor = processes.find((process) => process.pid !== ownerPid);
    assert.ok(owner !== undefined && survivor !== undefined);
    // The owner hears a change while it lives.
    client.setRoots([{ uri: 'file:///second', name: 'second' }]);
    await until(() => rootsChanges(owner.lines()) === 1, 'the owner to hear the first roots change', WAIT_MS);

    await owner.kill();
    const watcher = connections[connections.length - 1] as NatsConnection;
    await awaitGoneFromNats(watcher, name, owner.processId, WAIT_MS);
    const dropped: string[] = [];
    session.session.diagnostics$.subscribe((diagnostic) => {
      if (diagnostic.type === 'dropped-notification') dropped.push(diagnostic.detail ?? '');
    });
    client.setRoots([{ uri: 'file:///third', name: 'third' }]);
    await until(() => rootsChanges(survivor.lines()) === 1, 'the survivor to hear the roots change sent after the owner died', WAIT_MS);
    assert.deepEqual(dropped, []);
    // The survivor owns the session now: calls go on there without a new initialize.
    assert.equal(answerOf(await session.callTool('whoami', {})).pid, survivor.pid);
  });

  test('with no process left, the notification is reported as not delivered', async () => {
    const name = 'notice-nobody';
    const only = await startServerProcess(nats.url, name);
    const { client, session } = await rootedClient(name);
    assert.equal(answerOf(await session.callTool('whoami', {})).pid, only.pid);
    const dropped: string[] = [];
    session.session.diagnostics$.subscribe((diagnostic) => {
      if (diagnostic.type === 'dropped-notification') dropped.push(diagnostic.detail ?? '');
    });
    await only.kill();
    await awaitGoneFromNats(connections[connections.length - 1] as NatsConnection, name, only.processId, WAIT_MS);
    client.setRoots([{ uri: 'file:///alone', name: 'alone' }]);
    await until(() => dropped.length === 1, 'the undelivered notification to be reported', WAIT_MS);
    assert.match(dropped[0] as string, /notifications\/roots\/list_changed notification was not delivered: no MCP server process serves session/);
  });
});
