/**
 * Changes cross processes: two real server processes serve one name; a client is connected to process A (it
 * was the only one when the client connected), and the changes are made on process B. A modern
 * `subscriptions/listen` served by A hears B's tools list change and B's resource update; a legacy session on
 * A hears `notifications/tools/list_changed` (and the resource update it subscribed to). Each change is told
 * once: a change applied from another process is not sent around again.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Subscription } from 'rxjs';
import type { ListChange } from '../../../client/session-api.ts';
import { type NatsServerProcess, startNatsServer } from '../../support/nats-server.ts';
import { type NatsClient, type ServerProcess, connectClient, describeOutcome, natsConnection, sleep, startServerProcess, stopAll, timedCall, until } from './nats-processes.ts';

const NAME = 'fanout';
const SILENCE_MS = 1500;
const URI = 'test://status';
/** How long a change may take to reach the other process and its client. */
const CHANGE_MS = 5000;

let nats: NatsServerProcess;
let connection: NatsConnection;
const clients: NatsClient[] = [];
const subscriptions: Subscription[] = [];

describe('NATS: changes made on one process reach the clients of another', { timeout: 60_000 }, () => {
  before(async () => {
    nats = await startNatsServer();
  });

  after(async () => {
    for (const subscription of subscriptions) subscription.unsubscribe();
    await Promise.allSettled(clients.map((client) => client.session.close()));
    await connection?.close().catch(() => undefined);
    await stopAll();
    await nats.dispose();
  });

  test('a modern listen and a legacy session on A hear the tool and resource changes made on B', { timeout: 50_000 }, async (t) => {
    const a: ServerProcess = await startServerProcess(nats.url, NAME);
    connection = await natsConnection(nats.url, 'fanout-clients');

    // Modern: a listen opened while A is the only process, so A serves it.
    const modern = await connectClient(connection, NAME, 'modern', SILENCE_MS);
    clients.push(modern);
    const heard: { readonly method: string; readonly params: Record<string, unknown> }[] = [];
    let listenEnded: unknown;
    subscriptions.push(
      modern.session.listen$({ toolsListChanged: true, resourceSubscriptions: [URI] }).subscribe({
        next: (notification) => void heard.push(notification),
        error: (error: unknown) => void (listenEnded = error),
        complete: () => void (listenEnded = 'complete'),
      }),
    );
    await until(() => heard.some((n) => n.method === 'notifications/subscriptions/acknowledged'), 'the listen is acknowledged', CHANGE_MS);
    const agreed = heard[0]?.params['notifications'] as { toolsListChanged?: boolean; resourceSubscriptions?: string[] } | undefined;
    assert.equal(agreed?.toolsListChanged, true, 'A honours the tools list filter');
    assert.deepEqual(agreed?.resourceSubscriptions, [URI], 'A honours the resource subscription');

    // Legacy: a session initialized while A is the only process, so A owns it.
    const legacy = await connectClient(connection, NAME, 'legacy', SILENCE_MS);
    clients.push(legacy);
    const owner = await timedCall(legacy.session, 'whoami', {}, 5000);
    assert.ok(owner.ok && owner.pid === a.pid, `the legacy session is on A: ${describeOutcome(owner)}`);
    const listChanges: ListChange[] = [];
    const updates: string[] = [];
    subscriptions.push(legacy.session.listChanged$.subscribe((change) => void listChanges.push(change)));
    subscriptions.push(legacy.session.subscribe$(URI).subscribe((update) => void updates.push(update.uri)));
    // subscribe$ sends resources/subscribe; a round trip on the session after it means A has it.
    assert.ok((await timedCall(legacy.session, 'whoami', {}, 5000)).ok);

    // B joins; the modern client's requests now reach both (so B really serves the same name).
    const b: ServerProcess = await startServerProcess(nats.url, NAME);
    const answeredBy = new Set<number>();
    for (let i = 0; i < 100 && !answeredBy.has(b.pid); i++) {
      const outcome = await timedCall(modern.session, 'whoami', {}, 5000);
      assert.ok(outcome.ok, describeOutcome(outcome));
      answeredBy.add(outcome.pid);
    }
    assert.ok(answeredBy.has(b.pid), 'B serves the name too');
    const before = heard.length;

    // A tool added on B.
    await b.command('add-tool added-on-b');
    await until(() => heard.some((n) => n.method === 'notifications/tools/list_changed'), "A's listen hears B's tools list change", CHANGE_MS);
    await until(() => listChanges.includes('tools'), "the legacy session on A hears B's tools list change", CHANGE_MS);

    // A resource updated on B.
    await b.command(`resource-updated ${URI}`);
    await until(() => heard.some((n) => n.method === 'notifications/resources/updated'), "A's listen hears B's resource update", CHANGE_MS);
    await until(() => updates.includes(URI), "the legacy session on A hears B's resource update", CHANGE_MS);

    // Each change once (nothing echoes between the processes), and the listen is still open.
    await sleep(500);
    const told = heard.slice(before).map((n) => n.method);
    t.diagnostic(`listen heard after B joined: ${told.join(', ')}; legacy heard ${listChanges.join(', ')} and updates of ${updates.join(', ')}`);
    assert.deepEqual(told, ['notifications/tools/list_changed', 'notifications/resources/updated'], 'the listen heard each change once');
    assert.deepEqual(
      heard.filter((n) => n.method === 'notifications/resources/updated').map((n) => n.params['uri']),
      [URI],
      'the update names the resource',
    );
    assert.deepEqual(listChanges, ['tools'], 'the legacy session heard the list change once');
    assert.deepEqual(updates, [URI], 'the legacy session heard the update once');
    assert.equal(listenEnded, undefined, 'the listen is still open');
    // Still the same legacy session on A.
    const still = await timedCall(legacy.session, 'whoami', {}, 5000);
    assert.ok(still.ok && still.pid === a.pid, `the legacy session is still on A: ${describeOutcome(still)}`);
  });
});
