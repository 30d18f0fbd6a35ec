/**
 * Resource subscriptions through rxmcp/mesh (issue 30 item 2): a caller subscribing to a mesh resource (legacy
 * resources/subscribe, modern subscriptions/listen) is followed on the member that serves it; the member's
 * notifications/resources/updated reaches the caller under the URI the mesh exposes (a prefixed resource, a URI of
 * a template); callers of one URI share one subscription on the member, released by the last one to unsubscribe
 * or close; a URI no member serves is refused. Against a real nats-server, with the rxmcp client in both eras and
 * the official SDK client over Streamable HTTP.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { firstValueFrom, take, timeout } from 'rxjs';
import { createClient } from '../../client/create-client.ts';
import type { ClientSession } from '../../client/session-api.ts';
import { WireError } from '../../core/errors.ts';
import type { JsonObject } from '../../core/jsonrpc.ts';
import type { Mesh } from '../../mesh/index.ts';
import type { McpServer } from '../../server/server-api.ts';
import { type StreamableHttpServer, createStreamableHttpServer } from '../../transports/http/index.ts';
import { createMemoryPair } from '../../transports/memory/memory-transport.ts';
import { type MeshFixture, eventually, meshFixture } from './mesh-fixture.ts';
import { alphaServer, betaServer } from './members.ts';

/** The subscribe and unsubscribe requests a member received, by URI. */
function subscriptionWire(server: McpServer): { subscribes: Map<string, number>; unsubscribes: Map<string, number> } {
  const wire = { subscribes: new Map<string, number>(), unsubscribes: new Map<string, number>() };
  server.messages$.subscribe(({ direction, payload }) => {
    const message = payload as { method?: string; params?: JsonObject };
    if (direction !== 'in') return;
    const uri = message.params?.['uri'];
    if (typeof uri !== 'string') return;
    const book = message.method === 'resources/subscribe' ? wire.subscribes : message.method === 'resources/unsubscribe' ? wire.unsubscribes : undefined;
    book?.set(uri, (book.get(uri) ?? 0) + 1);
  });
  return wire;
}

async function modernCaller(mesh: Mesh): Promise<ClientSession> {
  const [clientEnd, serverEnd] = createMemoryPair();
  mesh.server.accept(serverEnd);
  return createClient({ name: 'modern-caller', version: '1.0.0', era: 'modern' }).connect(clientEnd);
}

/** The next update a session hears of `uri` (fails after `ms`). */
function nextUpdate(caller: ClientSession, uri: string, ms = 5000): { readonly heard: Promise<string>; unsubscribe(): void } {
  let stop: () => void = () => undefined;
  const heard = new Promise<string>((resolve, reject) => {
    const subscription = caller.subscribe$(uri).pipe(take(1), timeout(ms)).subscribe({ next: (update) => resolve(update.uri), error: reject });
    stop = () => subscription.unsubscribe();
  });
  return { heard, unsubscribe: () => stop() };
}

describe('mesh - resource subscriptions', () => {
  let fixture: MeshFixture;
  let mesh: Mesh;
  let alpha: McpServer;
  let beta: McpServer;
  let alphaWire: ReturnType<typeof subscriptionWire>;
  let betaWire: ReturnType<typeof subscriptionWire>;

  before(async () => {
    fixture = await meshFixture();
    alpha = alphaServer();
    beta = betaServer();
    alphaWire = subscriptionWire(alpha);
    betaWire = subscriptionWire(beta);
    const members = [await fixture.serveMember('alpha', alpha), await fixture.serveMember('beta', beta)];
    mesh = await fixture.mesh();
    mesh.start();
    fixture.members$.next(members.map((served) => served.member));
    await eventually(() => mesh.members.filter((member) => member.up).length === 2, 5000, 'both members up');
  });

  after(async () => {
    await fixture[Symbol.asyncDispose]();
  });

  test('legacy: the member is subscribed, and its update reaches the caller under the mesh\'s URI', async () => {
    const caller = await fixture.caller(mesh);
    assert.equal(caller.serverCapabilities?.resources?.subscribe, true);
    // memo://shared collides: the mesh serves alpha's as mesh://alpha/memo://shared.
    const exposed = 'mesh://alpha/memo://shared';
    const updates: string[] = [];
    const subscription = caller.subscribe$(exposed).subscribe((update) => updates.push(update.uri));
    await eventually(() => (alphaWire.subscribes.get('memo://shared') ?? 0) > 0, 5000, 'alpha to be subscribed');
    assert.equal(betaWire.subscribes.get('memo://shared'), undefined, 'beta serves its own memo://shared: it is not subscribed');
    // The member counts the subscribe before the caller hears it accepted, and an update before that is not the
    // caller's: notified again until one arrives (beta's, of its own memo://shared, never may).
    await eventually(async () => {
      beta.notifyResourceUpdated('memo://shared');
      alpha.notifyResourceUpdated('memo://shared');
      await new Promise((resolve) => setTimeout(resolve, 20));
      return updates.length > 0;
    }, 5000, 'the update to reach the caller');
    assert.ok(updates.every((uri) => uri === exposed), `only alpha's updates, under the mesh's URI: ${updates.join(', ')}`);
    subscription.unsubscribe();
    await eventually(() => (alphaWire.unsubscribes.get('memo://shared') ?? 0) === 1, 5000, 'alpha to be unsubscribed');
  });

  test('legacy: a URI of a template is followed as the member\'s own URI', async () => {
    const caller = await fixture.caller(mesh);
    const update = nextUpdate(caller, 'memo://alpha/days/monday');
    await eventually(() => (alphaWire.subscribes.get('memo://alpha/days/monday') ?? 0) > 0, 5000, 'alpha to be subscribed');
    // Notified until heard: the member counts the subscribe before the caller hears it accepted (see above).
    let heard: string | undefined;
    void update.heard.then((uri) => (heard = uri), () => undefined);
    await eventually(async () => {
      alpha.notifyResourceUpdated('memo://alpha/days/monday');
      await new Promise((resolve) => setTimeout(resolve, 20));
      return heard !== undefined;
    }, 5000, 'the update to reach the caller');
    assert.equal(heard, 'memo://alpha/days/monday');
    update.unsubscribe();
  });

  test('legacy: callers share one subscription on the member, released by the last to leave or close', async () => {
    const uri = 'memo://alpha/notes';
    const first = await fixture.caller(mesh);
    const second = await fixture.caller(mesh);
    const heardFirst: string[] = [];
    const heardSecond: string[] = [];
    const one = first.subscribe$(uri).subscribe((update) => heardFirst.push(update.uri));
    await eventually(() => (alphaWire.subscribes.get(uri) ?? 0) > 0, 5000, 'alpha to be subscribed');
    // Wait for the first subscription to settle, then count what the second adds on the member: nothing.
    await eventually(async () => {
      alpha.notifyResourceUpdated(uri);
      await new Promise((resolve) => setTimeout(resolve, 20));
      return heardFirst.length > 0;
    }, 5000, 'the first caller to hear');
    const subscribed = alphaWire.subscribes.get(uri);
    const two = second.subscribe$(uri).subscribe((update) => heardSecond.push(update.uri));
    await eventually(async () => {
      alpha.notifyResourceUpdated(uri);
      await new Promise((resolve) => setTimeout(resolve, 20));
      return heardSecond.length > 0;
    }, 5000, 'the second caller to hear');
    assert.equal(alphaWire.subscribes.get(uri), subscribed, 'the second caller shares the member subscription');
    one.unsubscribe();
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(alphaWire.unsubscribes.get(uri), undefined, 'still held by the second caller');
    // The second caller's session ends without unsubscribing: its holding goes with it.
    await second.close();
    two.unsubscribe();
    await eventually(() => alphaWire.unsubscribes.get(uri) === 1, 5000, 'alpha to be unsubscribed once');
  });

  test('legacy: a URI no member serves is refused', async () => {
    const caller = await fixture.caller(mesh);
    await assert.rejects(firstValueFrom(caller.subscribe$('memo://nowhere').pipe(timeout(5000))), (error: unknown) => error instanceof WireError && error.code === -32002);
  });

  test('modern: a listen naming a mesh URI follows it on the member; its end releases it', async () => {
    const caller = await modernCaller(mesh);
    const uri = 'mesh://beta/memo://shared';
    const before = betaWire.unsubscribes.get('memo://shared') ?? 0;
    const heard: { readonly method: string; readonly params: JsonObject }[] = [];
    const listen = caller.listen$({ resourceSubscriptions: [uri, 'memo://nowhere'] }).subscribe((notification) => heard.push(notification));
    await eventually(() => heard.length > 0, 5000, 'the acknowledgement');
    const [ack] = heard;
    assert.equal(ack?.method, 'notifications/subscriptions/acknowledged');
    assert.deepEqual((ack?.params['notifications'] as JsonObject)['resourceSubscriptions'], [uri], 'a URI no member serves is not agreed');
    assert.ok((betaWire.subscribes.get('memo://shared') ?? 0) > 0, 'acknowledged once beta accepted');
    beta.notifyResourceUpdated('memo://shared');
    await eventually(() => heard.some((notification) => notification.method === 'notifications/resources/updated'), 5000, 'the update on the listen');
    const update = heard.find((notification) => notification.method === 'notifications/resources/updated');
    assert.equal(update?.params['uri'], uri);
    listen.unsubscribe();
    await eventually(() => (betaWire.unsubscribes.get('memo://shared') ?? 0) > before, 5000, 'beta to be unsubscribed');
  });

  test('official SDK client (Streamable HTTP): subscribes through the mesh and hears the member\'s update', async () => {
    const http: StreamableHttpServer = createStreamableHttpServer({ server: mesh.server });
    const { url } = await http.listen(0);
    const client = new Client({ name: 'sdk-caller', version: '1.0.0' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      const updates: string[] = [];
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
        updates.push(notification.params.uri);
      });
      await client.subscribeResource({ uri: 'memo://alpha/days/tuesday' });
      await eventually(async () => {
        alpha.notifyResourceUpdated('memo://alpha/days/tuesday');
        await new Promise((resolve) => setTimeout(resolve, 30));
        return updates.length > 0;
      }, 5000, 'the SDK client to hear the update');
      assert.equal(updates[0], 'memo://alpha/days/tuesday');
      await client.unsubscribeResource({ uri: 'memo://alpha/days/tuesday' });
      await eventually(() => alphaWire.unsubscribes.get('memo://alpha/days/tuesday') === 1, 5000, 'alpha to be unsubscribed');
    } finally {
      await client.close();
      await http.close();
    }
  });
});

describe('mesh - resource subscriptions across a member going down and coming back', () => {
  let fixture: MeshFixture;

  after(async () => {
    await fixture[Symbol.asyncDispose]();
  });

  test('a member that comes back is subscribed again to what callers still follow', async () => {
    fixture = await meshFixture();
    const first = await fixture.serveMember('alpha', alphaServer());
    const mesh = await fixture.mesh();
    mesh.start();
    fixture.members$.next([first.member]);
    await fixture.event((event) => event.type === 'joined');
    const caller = await fixture.caller(mesh);
    const updates: string[] = [];
    const subscription = caller.subscribe$('memo://alpha/notes').subscribe((update) => updates.push(update.uri));
    try {
      await eventually(() => mesh.members[0]?.up === true && updates.length === 0, 5000, 'subscribed');
      await new Promise((resolve) => setTimeout(resolve, 100));
      // The member's process ends; another takes its place under the same binding.
      await first.serving.close('end', { drainMs: 0 });
      await fixture.event((event) => event.type === 'down');
      const again = alphaServer();
      const wire = subscriptionWire(again);
      await fixture.serveMember('alpha', again);
      await eventually(() => (wire.subscribes.get('memo://alpha/notes') ?? 0) > 0, 5000, 'the new process to be subscribed');
      await eventually(async () => {
        again.notifyResourceUpdated('memo://alpha/notes');
        await new Promise((resolve) => setTimeout(resolve, 20));
        return updates.length > 0;
      }, 5000, 'its update to reach the caller');
      assert.equal(updates[0], 'memo://alpha/notes');
    } finally {
      subscription.unsubscribe();
    }
  });
});
