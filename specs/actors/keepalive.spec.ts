import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KeepaliveOptions } from '../../actors/keepalive.ts';
import { isLocalError } from '../../core/errors.ts';
import { connectSession } from '../../client/connect-session.ts';
import { createSessionAcceptor } from '../../server/session-acceptor.ts';
import type { McpSession } from '../../session/session-core.ts';
import { createMemoryPair } from '../../transports/memory/index.ts';
import type { SchemaOracle } from '../support/schema-oracle.ts';
import {
  type RawPeer, TestClock, clientInfo, connectPair, handlerTable, messagesWith, observed, rawClient, rawPeer, responsesTo, serverInfo,
  teardown,
} from '../support/test-clock.ts';

const keepalive: KeepaliveOptions = { intervalMs: 1000, maxMissed: 2 };
const sides = ['client', 'server'] as const;

/** A session of the given role with keepalive, talking to a raw peer that never answers pings on its own. */
async function withSilentPeer(role: (typeof sides)[number], clock: TestClock): Promise<{ session: McpSession; peer: RawPeer; oracle: SchemaOracle }> {
  const [clientEnd, serverEnd] = createMemoryPair();
  if (role === 'client') {
    const peer = rawPeer(serverEnd, { answerPings: false });
    const side = observed(clientEnd);
    const session = await connectSession(side.transport, { clientInfo, capabilities: {}, clock, keepalive });
    return { session, peer, oracle: side.oracle };
  }
  const side = observed(serverEnd);
  const session = createSessionAcceptor({ serverInfo, capabilities: {}, handlers: handlerTable() }).accept(side.transport, { clock, keepalive });
  const peer = await rawClient(clientEnd, { answerPings: false });
  return { session, peer, oracle: side.oracle };
}

const pingsTo = (peer: RawPeer) => messagesWith(peer.received, 'ping');

for (const side of sides) {
  test(`keepalive - ${side}: pings on the interval, and a peer that answers keeps the session open`, async () => {
    const clock = new TestClock();
    const pair = await connectPair({ clock, ...(side === 'client' ? { clientKeepalive: keepalive } : { serverKeepalive: keepalive }) });
    const [session, sent, peerSent] = side === 'client' ? [pair.client, pair.clientSent, pair.serverSent] : [pair.server, pair.serverSent, pair.clientSent];
    await clock.advanceAsync(999);
    assert.equal(messagesWith(sent, 'ping').length, 0, 'no ping before the first interval');
    await clock.advanceAsync(1);
    assert.equal(messagesWith(sent, 'ping').length, 1, 'a ping at the first interval');
    for (let i = 0; i < 9; i++) await clock.advanceAsync(1000);
    const pings = messagesWith(sent, 'ping');
    assert.equal(pings.length, 10, 'one ping per interval');
    for (const ping of pings) assert.equal(responsesTo(peerSent, ping['id']).length, 1, 'each ping was answered');
    assert.equal(session.state, 'operating');
    assert.equal(pair.client.state, 'operating');
    await teardown(clock, [pair.client, pair.server], pair.oracles);
  });

  test(`keepalive - ${side}: a peer that stops answering gets the session closed with PeerUnresponsive after 2 missed pings`, async () => {
    const clock = new TestClock();
    const { session, peer, oracle } = await withSilentPeer(side, clock);
    let closedWith: unknown = 'not closed';
    void session.closed.then((reason) => (closedWith = reason));
    await clock.advanceAsync(2000);
    assert.equal(pingsTo(peer).length, 2, 'pinged at 1000 and 2000 ms');
    assert.equal(session.state, 'operating', 'one missed ping is tolerated');
    await clock.advanceAsync(1000);
    assert.equal(session.state, 'closed', 'closed once the second ping went unanswered');
    assert.ok(isLocalError(closedWith, 'PeerUnresponsive'), `PeerUnresponsive, got ${String(closedWith)}`);
    assert.equal(pingsTo(peer).length, 2, 'no ping after the session closed');
    assert.equal(messagesWith(peer.received, 'notifications/cancelled').length, 2, 'each timed-out ping was cancelled');
    assert.equal(clock.pending, 0, 'the keepalive timer was cancelled on close');
    await teardown(clock, [session], [oracle]);
  });

  test(`keepalive - ${side}: an answered ping resets the count of missed ones`, async () => {
    const clock = new TestClock();
    const { session, peer, oracle } = await withSilentPeer(side, clock);
    // Miss, answer, miss, miss: the answer in between means only the last two count.
    await clock.advanceAsync(2000);
    const second = pingsTo(peer)[1];
    assert.ok(second !== undefined);
    peer.send({ jsonrpc: '2.0', id: second['id'], result: {} });
    await clock.advanceAsync(2000);
    assert.equal(session.state, 'operating', 'missed, answered, missed: still open at 4000 ms');
    await clock.advanceAsync(1000);
    assert.equal(session.state, 'closed');
    assert.ok(isLocalError(await session.closed, 'PeerUnresponsive'));
    assert.equal(pingsTo(peer).length, 4);
    assert.equal(clock.pending, 0);
    await teardown(clock, [session], [oracle]);
  });
}

test('keepalive - the keepalive timer is cancelled when the session is closed locally', async () => {
  const clock = new TestClock();
  const pair = await connectPair({ clock, clientKeepalive: keepalive, serverKeepalive: { intervalMs: 700 } });
  await clock.advanceAsync(2500);
  assert.ok(clock.pending > 0, 'keepalive timers are running');
  await pair.client.close();
  assert.equal(pair.client.state, 'closed');
  assert.equal(pair.server.state, 'closed', 'the server saw the transport close');
  assert.equal(clock.pending, 0, 'both keepalive intervals were cancelled');
  await teardown(clock, [pair.client, pair.server], pair.oracles);
});

test('keepalive - the keepalive timer is cancelled when the peer closes the transport, even with a ping in flight', async () => {
  const clock = new TestClock();
  const { session, peer, oracle } = await withSilentPeer('client', clock);
  await clock.advanceAsync(1000);
  assert.equal(pingsTo(peer).length, 1, 'a ping is in flight');
  await peer.close();
  await clock.advanceAsync(0);
  assert.equal(session.state, 'closed');
  assert.equal(await session.closed, undefined);
  assert.equal(clock.pending, 0, 'the interval and the ping timeout were both cancelled');
  await teardown(clock, [session], [oracle]);
});
