/**
 * One process serves a legacy session, also when its owner was cut off from NATS (alive, not dead) and another
 * process took the session over meanwhile, whatever the order in which they learn of it:
 * - the process that takes a session over tells the previous owner (its `taken` subject);
 * - an owner told so lets the session go once the record agrees (a notice whose record still names it changes
 *   nothing);
 * - an owner whose state write finds another owner in the record steps down;
 * - an owner that could not read the record after a reconnection reads it again later and lets go then.
 * partition-takeover.spec.ts covers the plain order (the takeover lands before the old owner re-reads its record).
 * Two or three serveNats instances in this process, each with its own NATS connection, on one real nats-server.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { NatsConnection } from '@nats-io/transport-node';
import { type KV, Kvm } from '@nats-io/kv';
import { jetstreamManager } from '@nats-io/jetstream';
import { serverSubjects } from '../../../transports/nats/index.ts';
import { startNatsServer } from '../../support/nats-server.ts';
import { InProcessOwners, type Owner, sessionsOf, whoami } from './in-process-owners.ts';
import { awaitGoneFromNats, until } from './nats-processes.ts';

/** An owner id no process has: a record naming it names a dead owner. */
const NOBODY = 'no-such-process';
const encoder = new TextEncoder();

let owners: InProcessOwners;

async function bucketOf(connection: NatsConnection, name: string): Promise<KV> {
  return new Kvm(connection).create(`mcp_sessions_${name}`);
}

/** Rewrites the session's record to name `owner`, as a process taking it over would. */
async function recordOwner(kv: KV, sessionId: string, owner: string): Promise<void> {
  const entry = await kv.get(sessionId);
  assert.ok(entry !== null && entry.operation === 'PUT', 'the session has a record');
  const record = entry.json<Record<string, unknown>>();
  await kv.update(sessionId, JSON.stringify({ ...record, owner }), entry.revision);
}

describe('NATS: one owner per legacy session, in whatever order its processes learn of a takeover', { timeout: 60_000 }, () => {
  before(async () => {
    owners = new InProcessOwners(await startNatsServer());
  });

  after(async () => {
    await owners.dispose();
  });

  test('the process taking a session over tells the previous owner', async () => {
    const name = 'owner-told';
    const proxy = await owners.proxy();
    const one = await owners.serve(name, 1, proxy.url);
    const { client, connection } = await owners.legacyClient(name);
    await owners.serve(name, 2, owners.url);
    const told: string[] = [];
    connection.subscribe(serverSubjects('mcp', name).taken(one.serving.processId), { callback: (_error, msg) => void told.push(msg.string()) });
    await connection.flush();

    proxy.cut();
    await awaitGoneFromNats(connection, name, one.serving.processId);
    assert.equal(await whoami(client), 2, 'process 2 took the session over');
    await until(() => told.length > 0, 'the previous owner was told', 5000);
    assert.deepEqual(told, [client.transport.sessionId], 'told once, naming the session');
    proxy.restore();
    await until(() => one.reconnections() > 0, 'process 1 reconnected', 5000);
  });

  test('an owner told of a takeover lets the session go once its record agrees, not before', async () => {
    const name = 'notice';
    const one = await owners.serve(name, 1, owners.url);
    const { client, connection, sessionId } = await owners.legacyClient(name);
    const two = await owners.serve(name, 2, owners.url);
    const taken = serverSubjects('mcp', name).taken(one.serving.processId);

    // A notice the record does not bear out (it still names process 1): nothing changes.
    connection.publish(taken, encoder.encode(sessionId));
    await connection.flush();
    await one.connection.flush();
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.deepEqual(sessionsOf(one, two), [1, 0], 'a notice alone moves nothing');
    assert.equal(await whoami(client), 1, 'process 1 still serves the session');

    // The record names another owner (one that has died since), and the notice comes: process 1 lets go.
    await recordOwner(await bucketOf(connection, name), sessionId, NOBODY);
    connection.publish(taken, encoder.encode(sessionId));
    await until(() => one.serving.counts().sessions === 0, 'process 1 let the session go', 5000);
    // The session goes on, served by one process: whichever took it over from the dead owner named in the record.
    const answeredBy = new Set<number>();
    for (let i = 0; i < 10; i++) answeredBy.add(await whoami(client));
    assert.equal(answeredBy.size, 1, `one process serves the session (${[...answeredBy].join(', ')})`);
    assert.equal(sessionsOf(one, two).reduce((a, b) => a + b), 1, 'exactly one process holds it');
    assert.equal(client.transport.sessionId, sessionId, 'the session kept its id');
  });

  test('an owner whose state write finds another owner steps down', async () => {
    const name = 'step-down';
    const one = await owners.serve(name, 1, owners.url);
    const { client, connection, sessionId } = await owners.legacyClient(name);
    const two = await owners.serve(name, 2, owners.url);

    await recordOwner(await bucketOf(connection, name), sessionId, NOBODY);
    // Setting the log level is a state write: the record names another owner, so process 1 steps down.
    await client.session.setLogLevel('warning');
    await until(() => one.serving.counts().sessions === 0, 'process 1 let the session go', 5000);
    assert.deepEqual(one.warnings.map((w) => [w.kind, w.sessionId]), [['not-owner', sessionId]], 'and said so');
    const answeredBy = new Set<number>();
    for (let i = 0; i < 10; i++) answeredBy.add(await whoami(client));
    assert.equal(answeredBy.size, 1, `one process serves the session (${[...answeredBy].join(', ')})`);
    assert.equal(sessionsOf(one, two).reduce((a, b) => a + b), 1, 'exactly one process holds it');
  });

  test('an owner that could not read its record after a reconnection reads it again later', async (t) => {
    const name = 'recheck';
    const proxy = await owners.proxy();
    // A short election budget: its re-read after the reconnection gives up within a second.
    const one = await owners.serve(name, 1, proxy.url, 1000);
    const { client, connection, sessionId } = await owners.legacyClient(name);
    const kv = await bucketOf(connection, name);
    const record = (await kv.get(sessionId))?.json<Record<string, unknown>>();
    assert.ok(record !== undefined);

    // Cut off, and meanwhile the bucket goes away: after its reconnection process 1 cannot read the record.
    proxy.cut();
    await awaitGoneFromNats(connection, name, one.serving.processId);
    const jsm = await jetstreamManager(connection);
    await jsm.streams.delete(`KV_mcp_sessions_${name}`);
    proxy.restore();
    await until(() => one.reconnections() > 0, 'process 1 reconnected', 5000);
    // Its re-read failed (no bucket, for longer than its budget): it serves on for now.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    assert.equal(one.serving.counts().sessions, 1, 'process 1 serves on while it cannot tell');

    // The record is back, naming another owner: the next re-read lets the session go.
    const back = await bucketOf(connection, name);
    await back.put(sessionId, JSON.stringify({ ...record, owner: NOBODY }));
    const started = Date.now();
    await until(() => one.serving.counts().sessions === 0, 'process 1 let the session go at a re-read', 10_000);
    t.diagnostic(`let go ${Date.now() - started} ms after the record came back`);
    assert.equal(client.transport.sessionId, sessionId);
  });

  test('a claim overtaken by a later write does not serve: the process the record names does', async () => {
    const name = 'overtaken';
    const proxy = await owners.proxy();
    const one = await owners.serve(name, 1, proxy.url);
    const { client, connection, sessionId } = await owners.legacyClient(name);
    const two = await owners.serve(name, 2, owners.url);
    const three = await owners.serve(name, 3, owners.url);
    const kv = await bucketOf(connection, name);
    // As soon as a process claims the session, another write lands after it (what a concurrent claim that a
    // cluster also accepted would do): the record names a process that no longer exists.
    const claims: string[] = [];
    const watch = await kv.watch({ key: sessionId, include: 'updates' as never });
    void (async () => {
      for await (const entry of watch) {
        const owner = entry.operation === 'PUT' ? entry.json<{ owner: string }>().owner : undefined;
        if (owner === undefined || owner === NOBODY || claims.includes(owner)) continue;
        claims.push(owner);
        if (claims.length === 1) await kv.put(sessionId, JSON.stringify({ ...entry.json<Record<string, unknown>>(), owner: NOBODY }));
      }
    })();

    proxy.cut();
    await awaitGoneFromNats(connection, name, one.serving.processId);
    const pid = await whoami(client).catch((error: unknown) => {
      throw new Error(`${String(error)}; claims ${claims.join(',')}; held ${sessionsOf(one, two, three).join(',')}; ids ${[one, two, three].map((s) => s.serving.processId).join(',')}`);
    });
    watch.stop();
    // Process 1, cut off, still holds it (fenced) until it is back; of the others, one holds it.
    const holders = [two, three].filter((s) => s.serving.counts().sessions === 1);
    assert.equal(holders.length, 1, 'one of the processes on NATS holds the session');
    const entry = await kv.get(sessionId);
    assert.equal(entry?.json<{ owner: string }>().owner, holders[0]?.serving.processId, 'the record names the process that serves it');
    assert.equal(pid, [one, two, three].indexOf(holders[0] as Owner) + 1, 'and that process answered');
    assert.ok(claims.length >= 1, 'a claim was overtaken');
    proxy.restore();
    await until(() => one.serving.counts().sessions === 0, 'process 1, back, let the session go', 10_000);
    assert.equal(await whoami(client), pid, 'the session stays with its one owner');
  });
});
