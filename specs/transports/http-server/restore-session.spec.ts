/**
 * Restoring sessions (`restoreSession`): a gateway's replicas serve the same sessions. A request naming a
 * session this replica does not hold is offered to the hook; a record brings the session back under the same
 * id, operating at once with the handshake's outcome; no record answers 404. Concurrent requests for one id
 * share one restore; the principal and session limits still hold.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { deferred } from '../../support/harness.ts';
import { RawMcp, asBody, asStream } from '../../support/http-raw-client.ts';
import { answers, isMethod, nextMessage, resultText } from './fixtures.ts';
import { type SessionRecord, startReplicas } from './replicas.ts';

/** A client of replica `url` that continues the session `from` opened elsewhere. */
function continuing(url: string, from: RawMcp, headers: Readonly<Record<string, string>> = {}): RawMcp {
  const mcp = new RawMcp(url, { headers });
  mcp.sessionId = from.sessionId;
  mcp.revision = from.revision;
  return mcp;
}

const callTool = (id: number, name: string, args: Record<string, unknown> = {}): Record<string, unknown> => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

describe('http server: restoring sessions from another replica', () => {
  test('restore - a session initialized on replica A is served by replica B under the same id', async () => {
    await using cluster = await startReplicas(2);
    const [a, b] = cluster.replicas;
    assert.ok(a !== undefined && b !== undefined);
    const onA = new RawMcp(a.url);
    await onA.initialize('2025-11-25', { elicitation: {} });
    const id = onA.sessionId;
    assert.ok(id !== undefined);
    assert.ok(cluster.book.records.has(id), 'replica A booked the session once it operated');
    assert.equal(a.accepted[0]?.sessionId, id, 'the transport handed to the acceptor names its session');

    const onB = continuing(b.url, onA);
    const { reply, response } = await onB.call('tools/call', { name: 'echo', arguments: { text: 'hi' } });
    assert.equal(reply.headers['mcp-session-id'], id, 'the same id, not a new session');
    assert.equal(resultText(response), 'echo: hi');
    assert.deepEqual(cluster.book.lookups, [{ sessionId: id, principal: undefined }]);
    assert.equal(b.http.sessionCount, 1);
    const accepted = b.accepted[0];
    assert.equal(accepted?.sessionId, id);
    assert.equal(accepted.options?.restoredSessionId, id);
    assert.deepEqual(accepted.options?.preinitialized, { revision: '2025-11-25', peerCapabilities: { elicitation: {} }, peerInfo: { name: 'raw', version: '0' } });
    const session = [...b.server.sessions][0];
    assert.equal(session?.state, 'operating');
    assert.deepEqual(session.peerInfo, { name: 'raw', version: '0' });

    // The client's capabilities came back too: B may elicit, and the answer reaches B's session.
    const callId = onB.id();
    const stream = asStream(await onB.post(callTool(callId, 'ask')));
    const elicit = await nextMessage(stream, isMethod('elicitation/create'));
    assert.equal(asBody(await onB.post({ jsonrpc: '2.0', id: elicit['id'], result: { action: 'accept', content: { name: 'Ada' } } })).status, 202);
    assert.equal(resultText(await nextMessage(stream, answers(callId))), 'answered accept {"name":"Ada"}');
    assert.equal(await stream.done, 'ended');

    // B restores once: later requests find the session held.
    await onB.call('tools/list');
    assert.equal(cluster.book.lookups.length, 1);
    // A still serves it as well.
    assert.equal(resultText((await onA.call('tools/call', { name: 'echo', arguments: { text: 'A' } })).response), 'echo: A');
    onA.assertClean();
    onB.assertClean();
  });

  test('restore - a GET stream and DELETE on a replica that never saw the session restore it first', async () => {
    await using cluster = await startReplicas(3);
    const [a, b, c] = cluster.replicas;
    assert.ok(a !== undefined && b !== undefined && c !== undefined);
    const onA = new RawMcp(a.url);
    await onA.initialize();
    const stream = asStream(await continuing(b.url, onA).get());
    assert.equal(stream.status, 200);
    assert.equal(stream.headers['mcp-session-id'], onA.sessionId);
    assert.equal(b.http.sessionCount, 1);
    stream.close();
    const deleted = await continuing(c.url, onA).delete();
    assert.equal(deleted.status, 200);
    assert.equal(c.http.sessionCount, 0, 'the restored session ended there');
    assert.deepEqual(cluster.book.lookups.map((lookup) => lookup.sessionId), [onA.sessionId, onA.sessionId]);
  });

  test('restore - an id the hook does not know answers 404, asking once per request', async () => {
    await using cluster = await startReplicas(1);
    const [a] = cluster.replicas;
    assert.ok(a !== undefined);
    const stranger = new RawMcp(a.url);
    stranger.sessionId = 'no-such-session';
    stranger.revision = '2025-11-25';
    const reply = asBody((await stranger.post({ jsonrpc: '2.0', id: 1, method: 'tools/list' })));
    assert.equal(reply.status, 404);
    assert.equal((await stranger.get()).status, 404);
    assert.equal((await stranger.delete()).status, 404);
    assert.deepEqual(cluster.book.lookups.map((lookup) => lookup.sessionId), ['no-such-session', 'no-such-session', 'no-such-session']);
    assert.equal(a.http.sessionCount, 0);
    assert.equal(a.accepted.length, 0);

    // Ids the spec rules out never reach the hook.
    stranger.sessionId = 'x'.repeat(300);
    assert.equal((await stranger.delete()).status, 404);
    assert.equal(cluster.book.lookups.length, 3);
  });

  test('restore - concurrent requests for the same unknown id share one restore', async () => {
    await using cluster = await startReplicas(2);
    const [a, b] = cluster.replicas;
    assert.ok(a !== undefined && b !== undefined);
    const onA = new RawMcp(a.url);
    await onA.initialize();
    const id = onA.sessionId as string;
    const record = cluster.book.records.get(id) as SessionRecord;
    // A slow record store: every restore waits until the test lets it go.
    const release = deferred();
    let calls = 0;
    let requests = 0;
    await using slow = await startReplicas(1, {
      authenticate: () => void requests++,
      restoreSession: async (sessionId) => {
        calls++;
        await release.promise;
        return sessionId === id ? record : undefined;
      },
    });
    const [replica] = slow.replicas;
    assert.ok(replica !== undefined);
    const onB = continuing(replica.url, onA);
    const calling = [1, 2, 3].map((n) => onB.call('tools/call', { name: 'echo', arguments: { text: `n${n}` } }));
    const listing = onB.call('tools/list');
    // Let all four requests arrive (polled for at most 2 s) and reach the restore they wait on.
    for (let waited = 0; requests < 4 && waited < 2000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(requests, 4);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(calls, 1);
    release.resolve();
    const results = await Promise.all(calling);
    assert.deepEqual(results.map(({ response }) => resultText(response)), ['echo: n1', 'echo: n2', 'echo: n3']);
    assert.ok('result' in (await listing).response);
    assert.equal(calls, 1, 'one restore for all of them');
    assert.equal(replica.accepted.length, 1, 'one session handed to the acceptor');
    assert.equal(replica.http.sessionCount, 1);
    onB.assertClean();
  });

  test('restore - the restored session belongs to the principal that restored it; a full replica answers 503', async () => {
    const authenticate = (request: { header(name: string): string | undefined }): string | undefined => request.header('authorization')?.replace(/^Bearer /, '');
    await using cluster = await startReplicas(2, { authenticate, maxSessions: 1 });
    const [a, b] = cluster.replicas;
    assert.ok(a !== undefined && b !== undefined);
    const alice = new RawMcp(a.url, { headers: { authorization: 'Bearer alice' } });
    await alice.initialize();
    assert.equal(cluster.book.records.get(alice.sessionId as string)?.principal, 'alice');

    // Mallory names Alice's session on B: the hook is asked for Mallory and says no.
    const mallory = continuing(b.url, alice, { authorization: 'Bearer mallory' });
    assert.equal((await mallory.delete()).status, 404);
    assert.deepEqual(cluster.book.lookups.at(-1), { sessionId: alice.sessionId, principal: 'mallory' });
    assert.equal(b.http.sessionCount, 0);

    const aliceOnB = continuing(b.url, alice, { authorization: 'Bearer alice' });
    assert.equal(resultText((await aliceOnB.call('tools/call', { name: 'echo', arguments: { text: 'me' } })).response), 'echo: me');
    // Held for Alice now: Mallory's request finds it and is refused without asking again.
    const lookups = cluster.book.lookups.length;
    assert.equal((await mallory.delete()).status, 404);
    assert.equal(cluster.book.lookups.length, lookups);

    // B is full (one session): another session cannot be restored there.
    const bob = new RawMcp(a.url, { headers: { authorization: 'Bearer bob' } });
    const refusedOnA = await bob.post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bob', version: '0' } } });
    assert.equal(refusedOnA.status, 503, 'A is full too');
    cluster.book.records.set('bob-session', { revision: '2025-11-25', peerCapabilities: {}, principal: 'bob' });
    const bobOnB = new RawMcp(b.url, { headers: { authorization: 'Bearer bob' } });
    bobOnB.sessionId = 'bob-session';
    bobOnB.revision = '2025-11-25';
    const full = asBody(await bobOnB.post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));
    assert.equal(full.status, 503);
    assert.equal(full.headers['retry-after'], '30');
    assert.equal(cluster.book.lookups.at(-1)?.sessionId, alice.sessionId, 'a full replica does not ask');
  });
});
