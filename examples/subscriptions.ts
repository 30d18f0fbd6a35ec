/**
 * Subscriptions: what a client hears without asking again.
 *
 * - `subscribe$(uri)` sends `resources/subscribe`; every `server.notifyResourceUpdated(uri)` reaches it, and
 *   unsubscribing sends `resources/unsubscribe`.
 * - `listChanged$` tells which list changed when the server adds or removes a tool, resource or prompt.
 * - `logs$` carries the log messages of the handlers serving this client's requests (`ctx.log`), at or above
 *   the level the client chose with `setLogLevel`.
 *
 * The same code works in both protocol eras; here the client speaks the modern one (2026-07-28), which it picks
 * by default when the server offers it, so updates and list changes arrive on a `subscriptions/listen` stream
 * that is open while someone observes them. (`server.log(...)`, a broadcast, reaches legacy-era sessions only:
 * modern-era clients have no session to receive it.)
 *
 * Run: node subscriptions.js (after tsc), exits 0 when every assertion holds.
 */
import assert from 'node:assert/strict';
import { createClient, createServer } from 'rxmcp';
import { createMemoryPair } from 'rxmcp/testing';
import { firstValueFrom, take, toArray } from 'rxjs';

const server = createServer({ name: 'weather', version: '1.0.0' });
let forecast = 'sunny';
server.resource({ uri: 'weather://today', name: 'today', mimeType: 'text/plain' }, () => forecast);
server.tool({ name: 'forecast' }, (_args, ctx) => {
  ctx.log('info', 'not sent: below the level the client chose');
  ctx.log('error', { station: 'north', status: 'offline' });
  return forecast;
});

const client = createClient({ name: 'watcher', version: '1.0.0' });
const [clientEnd, serverEnd] = createMemoryPair();
server.accept(serverEnd);
const session = await client.connect(clientEnd);
assert.equal(session.session.era, 'modern');

// Resource updates: two changes seen, then the subscription ends (take(2) unsubscribes).
const updates = firstValueFrom(session.subscribe$('weather://today').pipe(take(2), toArray()));
await session.readResource('weather://today'); // the subscribe request has been answered before this one
forecast = 'rain';
server.notifyResourceUpdated('weather://today');
forecast = 'snow';
server.notifyResourceUpdated('weather://today');
assert.deepEqual((await updates).map((update) => update.uri), ['weather://today', 'weather://today']);
const now = await session.readResource('weather://today');
assert.deepEqual(now.contents, [{ uri: 'weather://today', mimeType: 'text/plain', text: 'snow' }]);

// List changes: registering a tool, then removing it.
const changes = firstValueFrom(session.listChanged$.pipe(take(2), toArray()));
const registration = server.tool({ name: 'alerts' }, () => 'none');
assert.deepEqual((await session.listTools()).map((tool) => tool.name), ['forecast', 'alerts']);
registration.remove();
assert.deepEqual(await changes, ['tools', 'tools']);
assert.deepEqual((await session.listTools()).map((tool) => tool.name), ['forecast']);

// Logging: only messages at or above the level the client set.
await session.setLogLevel('warning');
const logs = firstValueFrom(session.logs$.pipe(take(1)));
await session.callTool('forecast');
const log = await logs;
assert.equal(log.level, 'error');
assert.deepEqual(log.data, { station: 'north', status: 'offline' });

await session.close();
await server.close();
console.log('subscriptions: ok');
