/**
 * Roots through the public API: `ctx.roots()` against a static list and a function source, `client.setRoots`
 * and `notifications/roots/list_changed` to every connected server session (FEATURES rows 72-74).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ClientRequestContext } from '../../actors/features/client-requests.ts';
import { isLocalError } from '../../core/errors.ts';
import type { Root } from '../../core/protocol/roots.ts';
import type { McpServer } from '../../server/create-server.ts';
import type { McpSession } from '../../session/session-core.ts';
import { clientPair, notificationsOf, requestsOf, settle, textOf } from '../support/client-pair.ts';

const projectRoots: readonly Root[] = [
  { uri: 'file:///home/ada/project', name: 'Project' },
  { uri: 'file:///home/ada/notes' },
];

/** Registers `roots`: answers with the roots the client gave, as JSON; records errors. */
function rootsTool(server: McpServer, record: { roots?: readonly Root[]; error?: unknown }): void {
  server.tool({ name: 'roots' }, async (_args, ctx) => {
    try {
      record.roots = await ctx.roots();
    } catch (error) {
      record.error = error;
      throw error;
    }
    return JSON.stringify(record.roots);
  });
}

for (const revision of ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const) {
  test(`roots - ctx.roots() returns the client's static list (${revision})`, async () => {
    const record: { roots?: readonly Root[]; error?: unknown } = {};
    const pair = await clientPair({ protocolVersion: revision, client: { roots: projectRoots }, setup: (server) => rootsTool(server, record) });
    assert.deepEqual(pair.serverSession.peerCapabilities, { roots: { listChanged: true } }, 'roots declare roots.listChanged');
    const result = await pair.session.callTool('roots');
    assert.deepEqual(record.roots, projectRoots);
    assert.deepEqual(JSON.parse(textOf(result)), projectRoots);
    assert.equal(requestsOf(pair.serverSent, 'roots/list').length, 1);
    await pair.finish();
  });
}

test('roots - a function source is asked on every roots/list, with the request context, and may be async', async () => {
  const contexts: ClientRequestContext[] = [];
  let calls = 0;
  const source = async (context: ClientRequestContext): Promise<readonly Root[]> => {
    contexts.push(context);
    calls++;
    await Promise.resolve();
    return [{ uri: `file:///workspace/${calls}`, name: `call ${calls}` }];
  };
  const record: { roots?: readonly Root[]; error?: unknown } = {};
  const pair = await clientPair({ protocolVersion: '2025-11-25', client: { roots: source }, setup: (server) => rootsTool(server, record) });

  await pair.session.callTool('roots');
  assert.deepEqual(record.roots, [{ uri: 'file:///workspace/1', name: 'call 1' }]);
  await pair.session.callTool('roots');
  assert.deepEqual(record.roots, [{ uri: 'file:///workspace/2', name: 'call 2' }], 'asked again, not cached');
  assert.equal(contexts.length, 2);
  assert.equal(contexts[0]?.session.role, 'client');
  assert.equal(contexts[0]?.signal.aborted, false);
  await pair.finish();
});

test('roots - setRoots sends roots/list_changed to every connected server session, fires onRootsListChanged, and new lists follow', async () => {
  const changed: McpSession[] = [];
  const record: { roots?: readonly Root[]; error?: unknown } = {};
  const pair = await clientPair({
    protocolVersion: '2025-11-25',
    client: { roots: projectRoots },
    server: { onRootsListChanged: (session) => changed.push(session) },
    setup: (server) => rootsTool(server, record),
  });
  const second = await pair.link();
  assert.equal(pair.server.sessions.size, 2);
  assert.equal(pair.client.sessions.size, 2);

  const next: readonly Root[] = [{ uri: 'file:///srv/other', name: 'Other' }];
  pair.client.setRoots(next);
  await settle();
  for (const link of pair.links) assert.equal(notificationsOf(link.clientSent, 'notifications/roots/list_changed').length, 1, 'one notification per session');
  assert.equal(changed.length, 2, 'onRootsListChanged fired once per server session');
  assert.deepEqual(new Set(changed), new Set([pair.serverSession, second.serverSession]), 'with the session it came on');

  const result = await second.session.callTool('roots');
  assert.deepEqual(JSON.parse(textOf(result)), next, 'the server now lists the new roots');

  // A function source replaces a list too.
  pair.client.setRoots(() => [{ uri: 'file:///fn' }]);
  await settle();
  await pair.session.callTool('roots');
  assert.deepEqual(record.roots, [{ uri: 'file:///fn' }]);
  assert.equal(changed.length, 4);
  await pair.finish();
});

test('roots - setRoots skips sessions that have closed', async () => {
  let changed = 0;
  const pair = await clientPair({ protocolVersion: '2025-11-25', client: { roots: projectRoots }, server: { onRootsListChanged: () => changed++ } });
  const second = await pair.link();
  await second.session.close();
  await settle();
  assert.equal(pair.client.sessions.size, 1, 'the closed session left the client');
  pair.client.setRoots([]);
  await settle();
  assert.equal(changed, 1);
  assert.deepEqual(second.clientSentAfterClose, []);
  await pair.finish();
});

test('roots - a client without roots does not declare them: ctx.roots() is refused locally and setRoots throws', async () => {
  const record: { roots?: readonly Root[]; error?: unknown } = {};
  const pair = await clientPair({ protocolVersion: '2025-11-25', setup: (server) => rootsTool(server, record) });
  assert.deepEqual(pair.serverSession.peerCapabilities, {});
  const result = await pair.session.callTool('roots');
  assert.ok(isLocalError(record.error, 'CapabilityNotNegotiated'), `got ${String(record.error)}`);
  assert.match((record.error as Error).message, /"roots"/);
  assert.equal(result.isError, true);
  assert.deepEqual(requestsOf(pair.serverSent, 'roots/list'), [], 'nothing was sent');
  assert.throws(() => pair.client.setRoots(projectRoots), RangeError);
  assert.deepEqual(notificationsOf(pair.clientSent, 'notifications/roots/list_changed'), []);
  await pair.finish();
});

test('roots - a roots/list sent anyway to a client without roots is answered -32601', async () => {
  const pair = await clientPair({ protocolVersion: '2025-11-25' });
  // Around the server's own check: the server session believes the client declared roots (SessionCore's field).
  const core = pair.serverSession as unknown as { peerCapabilities: unknown };
  const declared = core.peerCapabilities;
  core.peerCapabilities = { roots: {} };
  const error = await pair.serverSession.request('roots/list').then(() => undefined, (failure: unknown) => failure);
  core.peerCapabilities = declared;
  assert.equal((error as { code?: unknown } | undefined)?.code, -32601, 'Method not found (FEATURES row 73)');
  await pair.finish();
});

test('roots - the server asks again after list_changed: a stale answer is never cached on the server', async () => {
  let version = 1;
  const record: { roots?: readonly Root[]; error?: unknown } = {};
  const pair = await clientPair({
    protocolVersion: '2025-06-18',
    client: { roots: () => [{ uri: `file:///v${version}` }] },
    setup: (server) => rootsTool(server, record),
  });
  await pair.session.callTool('roots');
  version = 2;
  pair.client.setRoots(() => [{ uri: `file:///v${version}` }]);
  await settle();
  await pair.session.callTool('roots');
  assert.deepEqual(record.roots, [{ uri: 'file:///v2' }]);
  assert.equal(requestsOf(pair.serverSent, 'roots/list').length, 2);
  await pair.finish();
});
