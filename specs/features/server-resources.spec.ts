/**
 * Server resources (FEATURES rows 55-64, 99): static resources, contents, RFC 6570 templates matched on read,
 * the not-found error, and per-session subscriptions (including what happens when a subscriber goes away).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isLocalError } from '../../core/errors.ts';
import type { JsonObject } from '../../core/jsonrpc.ts';
import type { ResourceUpdatedParams } from '../../core/protocol/index.ts';
import type { McpSession } from '../../session/session-core.ts';
import { featurePair, featureServer, settle, wireErrorOf } from '../support/feature-pair.ts';

const png = Buffer.from([0x89, 0x50, 0x4e, 0x47]).toString('base64');

describe('server resources: list and read', () => {
  test('resources - static resources are listed with mimeType, annotations and size; text and blob contents are read', async () => {
    const readme = {
      uri: 'file:///readme.md',
      name: 'readme',
      title: 'Read me',
      mimeType: 'text/markdown',
      size: 12,
      annotations: { audience: ['user' as const], priority: 0.8, lastModified: '2025-01-12T15:00:58Z' },
    };
    const logo = { uri: 'file:///logo.png', name: 'logo', mimeType: 'image/png' };
    await using pair = await featurePair((server) => {
      server.resource(readme, (uri) => ({ contents: [{ uri, mimeType: 'text/markdown', text: '# Hello' }] }));
      server.resource(logo, (uri) => [{ uri, mimeType: 'image/png', blob: png }]);
    });
    assert.deepEqual(await pair.client.listResources(), [readme, logo]);
    assert.deepEqual(await pair.client.readResource(readme.uri), { contents: [{ uri: readme.uri, mimeType: 'text/markdown', text: '# Hello' }] });
    assert.deepEqual(await pair.client.readResource(logo.uri), { contents: [{ uri: logo.uri, mimeType: 'image/png', blob: png }] });
    pair.assertClean();
  });

  test('resources - a reader returning a string gets the resource mimeType', async () => {
    await using pair = await featurePair((server) => {
      server.resource({ uri: 'file:///notes.txt', name: 'notes', mimeType: 'text/plain' }, () => 'plain notes');
      server.resource({ uri: 'file:///untyped', name: 'untyped' }, () => 'no type');
    });
    assert.deepEqual(await pair.client.readResource('file:///notes.txt'), { contents: [{ uri: 'file:///notes.txt', mimeType: 'text/plain', text: 'plain notes' }] });
    assert.deepEqual(await pair.client.readResource('file:///untyped'), { contents: [{ uri: 'file:///untyped', text: 'no type' }] });
    pair.assertClean();
  });

  test('resources - a template reader returning a string gets the template mimeType', async () => {
    await using pair = await featurePair((server) =>
      server.resourceTemplate({ uriTemplate: 'notes://{id}', name: 'note', mimeType: 'text/markdown' }, (_uri, vars) => `# note ${String(vars['id'])}`),
    );
    assert.deepEqual(await pair.client.readResource('notes://7'), { contents: [{ uri: 'notes://7', mimeType: 'text/markdown', text: '# note 7' }] });
    pair.assertClean();
  });

  test('resources - an unknown uri is -32002 with data.uri, and the reader of another resource is not called', async () => {
    let reads = 0;
    await using pair = await featurePair((server) => server.resource({ uri: 'file:///a', name: 'a' }, () => (reads++, 'a')));
    const error = await wireErrorOf(pair.client.readResource('file:///missing'), -32002);
    assert.deepEqual(error.data, { uri: 'file:///missing' });
    assert.match(error.message, /file:\/\/\/missing/);
    assert.equal(reads, 0);
    pair.assertClean();
  });
});

describe('server resources: templates', () => {
  test('resources - templates of levels 1-4 are listed and matched on read, with their variables passed to the reader', async () => {
    const calls: Array<{ template: string; uri: string; vars: Readonly<Record<string, string | string[]>> }> = [];
    const templates = [
      { uriTemplate: 'users://{id}/profile', name: 'profile' },
      { uriTemplate: 'file:///{+path}', name: 'file' },
      { uriTemplate: 'tree://root{/segments*}', name: 'tree' },
      { uriTemplate: 'search://items{?limit,offset}', name: 'search' },
    ];
    await using pair = await featurePair((server) => {
      for (const definition of templates) {
        server.resourceTemplate(definition, (uri, vars) => {
          calls.push({ template: definition.uriTemplate, uri, vars });
          return [{ uri, text: definition.name }];
        });
      }
    });
    assert.deepEqual(await pair.client.listResourceTemplates(), templates);
    const read = async (uri: string): Promise<string> => {
      const { contents } = await pair.client.readResource(uri);
      return contents.map((item) => ('text' in item ? item.text : '')).join();
    };
    assert.equal(await read('users://42/profile'), 'profile');
    assert.equal(await read('file:///docs/guide%20one.md'), 'file');
    assert.equal(await read('tree://root/a/b/c'), 'tree');
    assert.equal(await read('search://items?offset=20&limit=10'), 'search');
    assert.equal(await read('search://items'), 'search');
    assert.deepEqual(calls.map(({ vars }) => vars), [
      { id: '42' },
      { path: 'docs/guide one.md' },
      { segments: ['a', 'b', 'c'] },
      { limit: '10', offset: '20' },
      {},
    ]);
    assert.deepEqual(calls.map(({ template }) => template), [...templates.map((t) => t.uriTemplate), 'search://items{?limit,offset}']);
    // {id} never spans "/": this uri matches no template.
    await wireErrorOf(pair.client.readResource('users://4/2/profile'), -32002);
    pair.assertClean();
  });

  test('resources - a static resource wins over a template that also matches its uri', async () => {
    await using pair = await featurePair((server) => {
      server.resourceTemplate({ uriTemplate: 'file:///{+path}', name: 'any' }, () => 'template');
      server.resource({ uri: 'file:///exact', name: 'exact' }, () => 'static');
    });
    const { contents } = await pair.client.readResource('file:///exact');
    assert.deepEqual(contents, [{ uri: 'file:///exact', text: 'static' }]);
    pair.assertClean();
  });
});

/** Counts reads of `session.state` from now on (the server reads it for each subscriber it notifies). */
function countStateReads(session: McpSession): { readonly reads: number } {
  const descriptor = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(session) as object, 'state');
  const getter = descriptor?.get;
  assert.ok(getter !== undefined, 'session.state is a prototype getter');
  const probe = { reads: 0 };
  Object.defineProperty(session, 'state', {
    configurable: true,
    get(this: McpSession) {
      probe.reads++;
      return getter.call(this) as unknown;
    },
  });
  return probe;
}

describe('server resources: subscriptions', () => {
  test('resources - updates go only to subscribed sessions, and stop after unsubscribe', async () => {
    await using h = featureServer();
    h.server.resource({ uri: 'file:///watched', name: 'watched' }, () => 'w');
    h.server.resource({ uri: 'file:///other', name: 'other' }, () => 'o');
    const a = await h.connect();
    const b = await h.connect({ protocolVersion: '2025-03-26' });
    assert.equal(a.client.serverCapabilities?.resources?.subscribe, true);
    const updatesA: ResourceUpdatedParams[] = [];
    const subscription = a.client.subscribe$('file:///watched').subscribe((update) => updatesA.push(update));
    await a.settle();
    assert.equal(a.clientSent('resources/subscribe').length, 1);
    h.server.notifyResourceUpdated('file:///watched');
    h.server.notifyResourceUpdated('file:///other');
    await Promise.all([a.settle(), b.settle()]);
    assert.deepEqual(updatesA, [{ uri: 'file:///watched' }]);
    assert.deepEqual(a.serverSent('notifications/resources/updated').map((m) => m['params']), [{ uri: 'file:///watched' }]);
    assert.equal(b.serverSent('notifications/resources/updated').length, 0, 'the unsubscribed session gets nothing');
    subscription.unsubscribe();
    await a.settle();
    assert.deepEqual(a.clientSent('resources/unsubscribe').map((m) => m['params']), [{ uri: 'file:///watched' }]);
    h.server.notifyResourceUpdated('file:///watched');
    await a.settle();
    assert.equal(a.serverSent('notifications/resources/updated').length, 1, 'nothing after unsubscribe');
    h.assertClean();
  });

  test('resources - two subscribe$ observers of one uri in one client: ending one keeps the other fed', async () => {
    await using pair = await featurePair((server) => server.resource({ uri: 'file:///w', name: 'w' }, () => 'w'));
    const first: ResourceUpdatedParams[] = [];
    const second: ResourceUpdatedParams[] = [];
    const one = pair.client.subscribe$('file:///w').subscribe((update) => first.push(update));
    pair.client.subscribe$('file:///w').subscribe((update) => second.push(update));
    await pair.settle();
    one.unsubscribe();
    await pair.settle();
    pair.server.notifyResourceUpdated('file:///w');
    await pair.settle();
    assert.deepEqual(first, []);
    assert.deepEqual(second, [{ uri: 'file:///w' }]);
    pair.assertClean();
  });

  test('resources - a closed session gets no updates and leaves the server subscriber index', async () => {
    await using h = featureServer();
    h.server.resource({ uri: 'file:///watched', name: 'watched' }, () => 'w');
    const a = await h.connect();
    const b = await h.connect();
    for (const { client } of [a, b]) await client.session.request('resources/subscribe', { uri: 'file:///watched' });
    const probe = countStateReads(a.session);
    h.server.notifyResourceUpdated('file:///watched');
    await a.settle();
    assert.ok(probe.reads > 0, 'positive control: the server looks at a subscribed session when notifying');
    assert.equal(a.serverSent('notifications/resources/updated').length, 1);
    await a.client.close();
    await settle(); // the server hears of the close (over NATS, one message later)
    assert.equal(a.session.state, 'closed');
    assert.equal(h.server.sessions.has(a.session), false);
    assert.equal(h.server.sessions.has(b.session), true);
    const readsAtClose = probe.reads;
    h.server.notifyResourceUpdated('file:///watched');
    await b.settle();
    assert.equal(probe.reads, readsAtClose, 'the closed session is no longer in the subscriber index');
    assert.equal(a.serverSent('notifications/resources/updated').length, 1, 'nothing sent on the closed session');
    assert.deepEqual(a.serverWire.sentAfterClose(), []);
    assert.equal(b.serverSent('notifications/resources/updated').length, 2, 'the other subscriber still gets updates');
    h.assertClean();
  });

  test('resources - a session may hold at most maxSubscriptionsPerSession subscriptions (-32602 past it)', async () => {
    await using pair = await featurePair((server) => server.resource({ uri: 'file:///a', name: 'a' }, () => 'a'), { server: { maxSubscriptionsPerSession: 2 } });
    const subscribe = (uri: string): Promise<JsonObject> => pair.client.session.request('resources/subscribe', { uri });
    await subscribe('file:///a');
    await subscribe('file:///b');
    await subscribe('file:///a'); // already held: not a new one
    assert.match((await wireErrorOf(subscribe('file:///c'), -32602)).message, /at most 2/);
    pair.assertClean();
  });

  test('resources - subscribe on a server without resources: refused locally by the client, -32601 from the server', async () => {
    await using h = featureServer();
    h.server.tool({ name: 't' }, () => 'ok');
    const { client, clientWire } = await h.connect();
    assert.equal(client.serverCapabilities?.resources, undefined);
    const before = clientWire.sent.length;
    const outcome = await new Promise<unknown>((resolve) => client.subscribe$('file:///x').subscribe({ error: resolve, complete: () => resolve('completed') }));
    assert.ok(isLocalError(outcome, 'CapabilityNotNegotiated'), String(outcome));
    assert.match((outcome as Error).message, /resources\.subscribe/);
    assert.equal(clientWire.sent.length, before, 'nothing was sent');
    const raw = h.connectRaw();
    await raw.initialize('2025-06-18');
    for (const method of ['resources/subscribe', 'resources/unsubscribe', 'resources/read', 'resources/list']) {
      const response = await raw.call(method, { uri: 'file:///x' });
      assert.equal(response.error?.code, -32601, method);
      assert.match(response.error?.message ?? '', /resources/);
    }
    h.assertClean();
  });
});
