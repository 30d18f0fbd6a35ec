/**
 * Refusing sessions on NATS without losing them (a real nats-server):
 * - `rxmcp bridge to-nats` answers the binding's `refusal()`: a full bridge asked to take over a session whose
 *   bridge left refuses the request without claiming the session, so the session survives and is taken over
 *   once a bridge has room.
 * - An acceptor whose `accept` throws (it refuses after all) leaves no subscription behind on the serving
 *   connection, its caller hears the reason, and a session it was about to take over goes back to the record as
 *   it was, for the next process.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type NatsConnection, connect } from '@nats-io/transport-node';
import { LocalError } from '../../../core/errors.ts';
import { isWireError } from '../../../core/errors.ts';
import type { CallToolResult } from '../../../core/protocol/index.ts';
import type { SessionAcceptorPort } from '../../../core/transport.ts';
import { createClient } from '../../../client/create-client.ts';
import type { ClientSession } from '../../../client/session-api.ts';
import { type McpServer, createServer } from '../../../server/create-server.ts';
import { type NatsServing, createNatsClientTransport, serveNats } from '../../../transports/nats/index.ts';
import { PROCESS_MS, isRunning, killChildren, until } from '../../support/interop-processes.ts';
import { type NatsServerProcess, freePort, startNatsServer } from '../../support/nats-server.ts';
import { type BridgeProcess, startToNats, stopBridge } from './bridge-processes.ts';

let nats: NatsServerProcess | undefined;
let monitorPort = 0;
const connections: NatsConnection[] = [];
const sessions: ClientSession[] = [];

before(async () => {
  monitorPort = await freePort();
  nats = await startNatsServer({ config: () => `http: 127.0.0.1:${monitorPort}` });
});

after(async () => {
  let leftovers: string[] = [];
  try {
    await Promise.allSettled(sessions.map((session) => session.close()));
    await Promise.allSettled(connections.map((connection) => connection.close()));
    leftovers = await killChildren();
  } finally {
    await nats?.dispose();
  }
  assert.deepEqual(leftovers, [], 'every bridge and server process had ended');
});

async function natsConnection(name?: string): Promise<NatsConnection> {
  assert.ok(nats !== undefined);
  const connection = await connect({ servers: nats.url, ...(name === undefined ? {} : { name }) });
  connections.push(connection);
  return connection;
}

async function connectClient(name: string): Promise<ClientSession> {
  const client = createClient({ era: 'legacy', name: 'refusal-spec-client', version: '0.0.0' });
  const session = await client.connect(createNatsClientTransport({ connection: await natsConnection(), name }), { initializeTimeoutMs: PROCESS_MS });
  sessions.push(session);
  return session;
}

function textOf(result: CallToolResult): string {
  assert.notEqual(result.isError, true, JSON.stringify(result));
  return result.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
}

/** The subjects the named client connection subscribes to, as the nats-server's monitoring endpoint lists them. */
async function subscriptionsOf(connectionName: string): Promise<string[]> {
  const response = await fetch(`http://127.0.0.1:${monitorPort}/connz?subs=1&limit=1000`);
  const body = await response.json() as { connections: Array<{ name?: string; subscriptions_list?: string[] }> };
  const found = body.connections.find((entry) => entry.name === connectionName);
  assert.ok(found !== undefined, `the connection ${connectionName} is listed`);
  return found.subscriptions_list ?? [];
}

describe('rxmcp bridge to-nats: a full bridge does not claim a session it would refuse', { timeout: 120_000 }, () => {
  test('bridge to-nats refusal - the owner leaves, the only other bridge is full: the request is refused, the session survives and is taken over once there is room', async () => {
    assert.ok(nats !== undefined);
    const flags = ['--max-children', '1', '--handover'];
    const first: BridgeProcess = await startToNats(nats.url, 'full', { flags });
    const kept = await connectClient('full');
    assert.equal(textOf(await kept.callTool('echo', { message: 'on the first bridge' }, { timeoutMs: PROCESS_MS })), 'Echo: on the first bridge');
    const second: BridgeProcess = await startToNats(nats.url, 'full', { flags });
    // The first bridge is full, so another session ends up on the second (a handshake the first picks up is refused).
    let filler: ClientSession | undefined;
    for (let attempt = 0; filler === undefined; attempt++) {
      if (attempt >= 20) assert.fail('no session reached the second bridge');
      filler = await connectClient('full').catch((error: unknown) => {
        assert.ok(isWireError(error) && /already runs 1 server processes, its limit/.test(error.message), String(error));
        return undefined;
      });
    }
    assert.equal(second.childPids().length, 1, 'the second bridge serves the filler session');

    // The owner leaves its session for the others (--handover) and stops its process.
    assert.deepEqual(await stopBridge(first), { code: 0, signal: null }, first.stderr());
    await until(() => first.childPids().every((pid) => !isRunning(pid)), 'the first bridge\'s process ended', PROCESS_MS);

    await assert.rejects(kept.callTool('echo', { message: 'while full' }, { timeoutMs: PROCESS_MS }), (error: unknown) =>
      isWireError(error) && /already runs 1 server processes, its limit .*; retry the request/.test(error.message));
    assert.match(second.stderr(), /refused a session: 1 server processes run already \(--max-children 1\)/);
    assert.equal(second.childPids().length, 1, 'no process was started for the refused session');
    assert.doesNotMatch(second.stderr(), /taken over/);

    // Room again: the session was not claimed (and so not ended) by the refusal; the second bridge takes it over.
    await filler.close();
    await until(() => second.childPids().every((pid) => !isRunning(pid)), 'the filler session\'s process ended', PROCESS_MS);
    assert.equal(textOf(await kept.callTool('echo', { message: 'taken over' }, { timeoutMs: PROCESS_MS })), 'Echo: taken over');
    assert.match(second.stderr(), /started for a session taken over/);
    await kept.close();
    assert.deepEqual(await stopBridge(second), { code: 0, signal: null }, second.stderr());
  });
});

describe('NATS binding: an acceptor that throws', { timeout: 60_000 }, () => {
  const servers: McpServer[] = [];
  const servings: NatsServing[] = [];

  after(async () => {
    for (const serving of servings) await serving.close('end').catch(() => undefined);
    for (const made of servers) await made.close();
  });

  const refusing: SessionAcceptorPort = {
    eras: 'legacy',
    accept() {
      throw new LocalError('SessionLimit', 'This acceptor takes no sessions today');
    },
  };

  const echoServer = (): McpServer => {
    const made = createServer({ name: 'echo', version: '0.0.0' });
    made.tool({ name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, (args: Record<string, unknown>) => `echo ${String(args['text'])}`);
    servers.push(made);
    return made;
  };

  test('acceptor throws - a new session is refused with its reason and no session subject stays subscribed', async () => {
    const serving = await serveNats(refusing, { connection: await natsConnection('refusing-opener'), name: 'throws' });
    servings.push(serving);
    const before = await subscriptionsOf('refusing-opener');
    await assert.rejects(connectClient('throws'), (error: unknown) => isWireError(error) && /This acceptor takes no sessions today/.test(error.message));
    const afterwards = await subscriptionsOf('refusing-opener');
    assert.deepEqual(afterwards.filter((subject) => subject.startsWith('mcp.throws.s.')), [], `left behind: ${afterwards.join(', ')}`);
    assert.deepEqual([...afterwards].sort(), [...before].sort());
    assert.equal(serving.counts().sessions, 0);
  });

  test('acceptor throws on takeover - the request is refused, nothing stays subscribed, and the session is taken over by the next process', async () => {
    const owner = await serveNats(echoServer(), { connection: await natsConnection(), name: 'handback' });
    const session = await connectClient('handback');
    assert.equal(textOf(await session.callTool('echo', { text: 'one' })), 'echo one');
    await owner.close('handover');

    const refuser = await serveNats(refusing, { connection: await natsConnection('refusing-taker'), name: 'handback' });
    servings.push(refuser);
    await assert.rejects(session.callTool('echo', { text: 'two' }, { timeoutMs: PROCESS_MS }), (error: unknown) =>
      isWireError(error) && /This acceptor takes no sessions today; retry the request/.test(error.message));
    const left = await subscriptionsOf('refusing-taker');
    assert.deepEqual(left.filter((subject) => subject.startsWith('mcp.handback.s.')), [], `left behind: ${left.join(', ')}`);
    await refuser.close('end');
    servings.splice(servings.indexOf(refuser), 1);

    // The record went back as it was: a process that can serve takes the session over.
    const next = await serveNats(echoServer(), { connection: await natsConnection(), name: 'handback' });
    servings.push(next);
    assert.equal(textOf(await session.callTool('echo', { text: 'three' }, { timeoutMs: PROCESS_MS })), 'echo three');
    assert.equal(next.counts().sessions, 1);
  });
});
