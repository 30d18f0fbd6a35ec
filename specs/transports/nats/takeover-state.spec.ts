/**
 * A legacy session's portable state survives a takeover, with real processes on a real nats-server: the client
 * subscribes to a resource and sets its log level on one process; that process dies (SIGKILL) or hands over
 * (graceful close); the survivor takes the session over at the next request and the client still hears the
 * resource's updates and the log messages at its level (not those below it). A survivor that cannot restore all
 * of it says so.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { NatsConnection } from '@nats-io/transport-node';
import { Kvm } from '@nats-io/kv';
import type { LoggingMessageParams, ResourceUpdatedParams } from '../../../core/protocol/index.ts';
import { type NatsServerProcess, startNatsServer } from '../../support/nats-server.ts';
import { type NatsClient, type ServerProcess, answerOf, awaitGoneFromNats, connectClient, natsConnection, startServerProcess, stopAll, until } from './nats-processes.ts';

const SILENCE_MS = 3000;
const WAIT_MS = 10_000;

let nats: NatsServerProcess;
const connections: NatsConnection[] = [];
const clients: NatsClient[] = [];

interface Followed {
  readonly client: NatsClient;
  readonly connection: NatsConnection;
  readonly updates: ResourceUpdatedParams[];
  readonly logs: LoggingMessageParams[];
  readonly sessionId: string;
}

/** A legacy client of `name` that follows `uris` at log level `warning`; `owner` is the process serving it. */
async function follow(name: string, processes: readonly ServerProcess[], uris: readonly string[]): Promise<Followed & { readonly owner: ServerProcess; readonly survivor: ServerProcess }> {
  const connection = await natsConnection(nats.url, `${name}-client`);
  connections.push(connection);
  const client = await connectClient(connection, name, 'legacy', SILENCE_MS);
  clients.push(client);
  const ownerPid = answerOf(await client.session.callTool('whoami', {})).pid;
  const owner = processes.find((process) => process.pid === ownerPid);
  const survivor = processes.find((process) => process.pid !== ownerPid);
  assert.ok(owner !== undefined && survivor !== undefined);
  const updates: ResourceUpdatedParams[] = [];
  const logs: LoggingMessageParams[] = [];
  for (const uri of uris) client.session.subscribe$(uri).subscribe((update) => void updates.push(update));
  client.session.logs$.subscribe((log) => void logs.push(log));
  await client.session.setLogLevel('warning');
  const sessionId = client.transport.sessionId;
  assert.ok(sessionId !== undefined);
  // No wait for the record here: the answers left only once it held the state (the subscribes were handled
  // before the level, in order), so the owner may die at once.
  return { client, connection, updates, logs, sessionId, owner, survivor };
}

async function recordOf(connection: NatsConnection, name: string, sessionId: string): Promise<{ owner: string; state?: { subscriptions?: string[]; logLevel?: string } }> {
  const entry = await (await new Kvm(connection).create(`mcp_sessions_${name}`)).get(sessionId);
  assert.ok(entry !== null);
  return JSON.parse(new TextDecoder().decode(entry.value)) as { owner: string };
}

describe('NATS takeover carries resource subscriptions and the log level', { timeout: 120_000 }, () => {
  before(async () => {
    nats = await startNatsServer({ jetstream: true });
  });

  after(async () => {
    await Promise.allSettled(clients.map((client) => client.session.close()));
    await Promise.allSettled(connections.map((connection) => connection.close()));
    await stopAll();
    await nats[Symbol.asyncDispose]();
  });

  for (const how of ['killed', 'handed over'] as const) {
    test(`owner ${how}: the survivor sends the resource's updates and the logs at the session's level`, async () => {
      const name = `state-${how === 'killed' ? 'kill' : 'handover'}`;
      const followed = await follow(name, [await startServerProcess(nats.url, name), await startServerProcess(nats.url, name)], ['test://status']);
      const { owner: first, survivor: second } = followed;
      if (how === 'killed') {
        await first.kill();
        await awaitGoneFromNats(followed.connection, name, first.processId);
      } else {
        await first.command('shutdown 2000', 15_000);
        await first.exited;
      }
      const initializes = followed.client.sent.filter((method) => method === 'initialize').length;
      assert.equal(answerOf(await followed.client.session.callTool('whoami', {})).pid, second.pid, 'the survivor took the session over');
      assert.equal(followed.client.sent.filter((method) => method === 'initialize').length, initializes, 'no new initialize');
      const record = await recordOf(followed.connection, name, followed.sessionId);
      assert.equal(record.owner, second.processId);
      assert.deepEqual(record.state, { subscriptions: ['test://status'], logLevel: 'warning' });

      await second.command('resource-updated test://status');
      await second.command('resource-updated test://unfollowed');
      // Sent in this order on one inbox: once `above` arrived, `below` was filtered, not late.
      await second.command('log info below');
      await second.command('log error above');
      await until(() => followed.updates.length > 0 && followed.logs.length > 0, 'the update and the log message reach the client', WAIT_MS);
      assert.deepEqual(followed.updates.map((update) => update.uri), ['test://status']);
      assert.deepEqual(followed.logs.map((log) => [log.level, log.data]), [['error', 'above']]);
      assert.deepEqual(second.lines().filter((line) => line.startsWith('state-warning')), [], 'nothing was lost');
    });
  }

  test('a survivor that cannot restore every subscription says so, and keeps what it could', async () => {
    const name = 'state-partial';
    // Only the first process serves the session's start; the survivor holds one subscription per session.
    const only = await startServerProcess(nats.url, name);
    const followed = await follow(name, [only, await startServerProcess(nats.url, `${name}-elsewhere`)], ['test://status', 'test://other']);
    assert.equal(followed.owner, only);
    const first = only;
    const second = await startServerProcess(nats.url, name, { MAX_SUBSCRIPTIONS: '1' });
    await first.kill();
    await awaitGoneFromNats(followed.connection, name, first.processId);
    assert.equal(answerOf(await followed.client.session.callTool('whoami', {})).pid, second.pid);
    await until(() => second.lines().includes(`state-warning not-restored ${followed.sessionId}`), 'the survivor warns that state was lost', WAIT_MS);
    const record = await recordOf(followed.connection, name, followed.sessionId);
    assert.equal(record.state?.subscriptions?.length, 1, 'the record now says what the session really follows');
    assert.equal(record.state?.logLevel, 'warning');
  });
});
