/**
 * Server logging (FEATURES rows 37-40) and pagination of the four list methods (row 35): per-session log
 * levels, cursors that are opaque, tamper-evident and bound to their list, and lazy client paging.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { firstValueFrom, take, toArray } from 'rxjs';
import { WireError } from '../../core/errors.ts';
import type { JsonObject } from '../../core/jsonrpc.ts';
import type { LoggingMessageParams } from '../../core/protocol/index.ts';
import type { McpServer, Registration } from '../../server/create-server.ts';
import { type Connection, REVISIONS, featurePair, featureServer, wireErrorOf } from '../support/feature-pair.ts';

const logsOf = (connection: Connection): LoggingMessageParams[] =>
  connection.serverSent('notifications/message').map((message) => message['params'] as LoggingMessageParams);

describe('server logging', () => {
  test('logging - setLevel is per session and filters both server.log and ctx.log; the logger name passes through', async () => {
    await using h = featureServer();
    h.server.tool({ name: 'work' }, (_args, context) => {
      context.log('debug', { step: 'start' }, 'worker');
      context.log('warning', 'slow disk', 'worker');
      context.log('error', ['failed', 1]);
      return 'done';
    });
    const quiet = await h.connect();
    const chatty = await h.connect({ protocolVersion: '2025-06-18' });
    assert.deepEqual(quiet.client.serverCapabilities?.logging, {});
    await quiet.client.setLogLevel('warning');
    await chatty.client.setLogLevel('debug');

    h.server.log('info', { note: 'hello' }, 'app');
    h.server.log('critical', 'fire', 'app');
    await quiet.client.callTool('work');
    await chatty.client.callTool('work');
    await Promise.all([quiet.settle(), chatty.settle()]);

    assert.deepEqual(logsOf(quiet), [
      { level: 'critical', data: 'fire', logger: 'app' },
      { level: 'warning', data: 'slow disk', logger: 'worker' },
      { level: 'error', data: ['failed', 1] },
    ]);
    assert.deepEqual(logsOf(chatty), [
      { level: 'info', data: { note: 'hello' }, logger: 'app' },
      { level: 'critical', data: 'fire', logger: 'app' },
      { level: 'debug', data: { step: 'start' }, logger: 'worker' },
      { level: 'warning', data: 'slow disk', logger: 'worker' },
      { level: 'error', data: ['failed', 1] },
    ]);
    const received: LoggingMessageParams[] = [];
    quiet.client.logs$.subscribe((log) => received.push(log));
    h.server.log('emergency', 'down');
    await quiet.settle();
    assert.deepEqual(received, [{ level: 'emergency', data: 'down' }], 'the client surfaces them on logs$');
    h.assertClean();
  });

  test('logging - raising the level later stops lower messages; a session that never set one gets everything', async () => {
    await using h = featureServer();
    const a = await h.connect();
    const b = await h.connect();
    h.server.log('debug', 1);
    await a.client.setLogLevel('error');
    h.server.log('debug', 2);
    h.server.log('error', 3);
    await Promise.all([a.settle(), b.settle()]);
    assert.deepEqual(logsOf(a).map((log) => log.data), [1, 3]);
    assert.deepEqual(logsOf(b).map((log) => log.data), [1, 2, 3]);
    h.assertClean();
  });

  test('logging - an invalid level is -32602 and leaves the session level unchanged', async () => {
    await using h = featureServer();
    const raw = h.connectRaw();
    await raw.initialize('2025-11-25');
    assert.equal((await raw.call('logging/setLevel', { level: 'error' })).error, undefined);
    for (const level of ['verbose', 'ERROR', 3]) {
      const response = await raw.call('logging/setLevel', { level });
      assert.equal(response.error?.code, -32602, String(level));
      assert.match(response.error?.message ?? '', /debug, info, notice, warning, error, critical, alert, emergency/);
    }
    assert.equal((await raw.call('logging/setLevel', {})).error?.code, -32602);
    h.server.log('warning', 'filtered');
    h.server.log('alert', 'kept');
    await raw.call('ping');
    const logs = raw.received.filter((m) => (m as JsonObject)['method'] === 'notifications/message').map((m) => (m as { params: JsonObject }).params['data']);
    assert.deepEqual(logs, ['kept']);
    h.assertClean();
  });
});

function registerFive(server: McpServer): void {
  for (let i = 1; i <= 5; i++) {
    server.tool({ name: `tool-${i}` }, () => 'ok');
    server.resource({ uri: `file:///r${i}`, name: `r${i}` }, () => 'r');
    server.resourceTemplate({ uriTemplate: `t${i}://{id}`, name: `t${i}` }, () => 't');
    server.prompt({ name: `prompt-${i}` }, () => 'p');
  }
}

const lists = [
  { method: 'tools/list', key: 'tools', name: (item: JsonObject) => item['name'], expected: ['tool-1', 'tool-2', 'tool-3', 'tool-4', 'tool-5'] },
  { method: 'resources/list', key: 'resources', name: (item: JsonObject) => item['uri'], expected: [1, 2, 3, 4, 5].map((i) => `file:///r${i}`) },
  { method: 'resources/templates/list', key: 'resourceTemplates', name: (item: JsonObject) => item['uriTemplate'], expected: [1, 2, 3, 4, 5].map((i) => `t${i}://{id}`) },
  { method: 'prompts/list', key: 'prompts', name: (item: JsonObject) => item['name'], expected: [1, 2, 3, 4, 5].map((i) => `prompt-${i}`) },
] as const;

describe('server pagination', () => {
  for (const list of lists) {
    test(`pagination - ${list.method} with pageSize 2 over 5 items gives pages 2, 2, 1 with nextCursor until the end`, async () => {
      await using pair = await featurePair(registerFive, { server: { pageSize: 2 } });
      const names: unknown[] = [];
      const sizes: number[] = [];
      let cursor: string | undefined;
      do {
        const page: JsonObject = await pair.client.session.request(list.method, cursor === undefined ? {} : { cursor });
        const items = page[list.key] as JsonObject[];
        sizes.push(items.length);
        names.push(...items.map(list.name));
        cursor = page['nextCursor'] as string | undefined;
        if (cursor !== undefined) assert.equal(typeof cursor, 'string');
      } while (cursor !== undefined && sizes.length < 10);
      assert.deepEqual(sizes, [2, 2, 1]);
      assert.deepEqual(names, list.expected);
      pair.assertClean();
    });
  }

  test('pagination - the client list helpers gather every page', async () => {
    await using pair = await featurePair(registerFive, { server: { pageSize: 2 } });
    assert.deepEqual((await pair.client.listTools()).map((t) => t.name), lists[0].expected);
    assert.deepEqual((await pair.client.listResources()).map((r) => r.uri), lists[1].expected);
    assert.deepEqual((await pair.client.listResourceTemplates()).map((t) => t.uriTemplate), lists[2].expected);
    assert.deepEqual((await pair.client.listPrompts()).map((p) => p.name), lists[3].expected);
    for (const list of lists) assert.equal(pair.clientSent(list.method).length, 3, list.method);
    pair.assertClean();
  });

  test('pagination - tools$().pipe(take(3)) fetches only two pages', async () => {
    await using pair = await featurePair(registerFive, { server: { pageSize: 2 } });
    const tools = await firstValueFrom(pair.client.tools$().pipe(take(3), toArray()));
    assert.deepEqual(tools.map((t) => t.name), ['tool-1', 'tool-2', 'tool-3']);
    await pair.settle();
    const sent = pair.clientSent('tools/list');
    assert.equal(sent.length, 2);
    assert.equal((sent[0]?.['params'] as JsonObject)['cursor'], undefined);
    assert.equal(typeof (sent[1]?.['params'] as JsonObject)['cursor'], 'string');
    pair.assertClean();
  });

  test('pagination - a forged, altered or garbled cursor is -32602', async () => {
    await using pair = await featurePair(registerFive, { server: { pageSize: 2 } });
    const first: JsonObject = await pair.client.session.request('tools/list', {});
    const real = first['nextCursor'] as string;
    const [body = '', tag = ''] = real.split('.');
    const forgedBody = Buffer.from('tools:4').toString('base64url');
    const attempts = [
      'not-a-cursor',
      '',
      `${forgedBody}.${tag}`, // offset changed, old tag
      `${body}.${tag.slice(0, -1)}${tag.endsWith('A') ? 'B' : 'A'}`, // tag altered
      `${forgedBody}`,
      'x'.repeat(300),
    ];
    for (const cursor of attempts) {
      const error = await wireErrorOf(pair.client.session.request('tools/list', { cursor }), -32602);
      assert.match(error.message, /cursor/, cursor);
    }
    const again: JsonObject = await pair.client.session.request('tools/list', { cursor: real });
    assert.deepEqual((again['tools'] as JsonObject[]).map((t) => t['name']), ['tool-3', 'tool-4'], 'the real cursor still works');
    pair.assertClean();
  });

  test('pagination - a cursor of one list is refused by every other list with -32602', async () => {
    await using pair = await featurePair(registerFive, { server: { pageSize: 2 } });
    for (const from of lists) {
      const page: JsonObject = await pair.client.session.request(from.method, {});
      const cursor = page['nextCursor'] as string;
      for (const to of lists) {
        if (to === from) continue;
        const error = await wireErrorOf(pair.client.session.request(to.method, { cursor }), -32602);
        assert.match(error.message, /not one this server issued for this list/, `${from.method} -> ${to.method}`);
      }
    }
    pair.assertClean();
  });

  test('pagination - a cursor issued before the list changed is refused or continues without skipping an item', async () => {
    const registrations: Registration[] = [];
    await using pair = await featurePair((server) => {
      for (let i = 1; i <= 5; i++) registrations.push(server.tool({ name: `tool-${i}` }, () => 'ok'));
    }, { server: { pageSize: 2 } });
    const first: JsonObject = await pair.client.session.request('tools/list', {});
    registrations[0]?.remove(); // tool-1 goes: tool-3 moves from offset 2 to offset 1
    const rest: unknown[] = [];
    let cursor = first['nextCursor'] as string | undefined;
    try {
      while (cursor !== undefined) {
        const page: JsonObject = await pair.client.session.request('tools/list', { cursor });
        rest.push(...(page['tools'] as JsonObject[]).map((t) => t['name']));
        cursor = page['nextCursor'] as string | undefined;
      }
      assert.ok(rest.includes('tool-3'), `the pages after the change were ${JSON.stringify(rest)}: tool-3 was never listed`);
    } catch (error) {
      if (!(error instanceof WireError && error.code === -32602)) throw error; // refusing a stale cursor is fine
    }
    pair.assertClean();
  });

  for (const revision of REVISIONS) {
    test(`pagination - pages and cursors are valid ${revision} traffic`, async () => {
      await using pair = await featurePair(registerFive, { server: { pageSize: 2 }, protocolVersion: revision });
      assert.equal((await pair.client.listTools()).length, 5);
      assert.equal((await pair.client.listPrompts()).length, 5);
      assert.equal(pair.session.revision, revision);
      pair.assertClean();
    });
  }
});
