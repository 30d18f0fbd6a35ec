/**
 * `server.sessions$`: opened once a session's handshake completes (legacy) or it is taken as modern, closed when
 * it ends, with era, revision, transport kind and peer; only what happens while someone observes.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createClient } from '../../client/create-client.ts';
import { createServer } from '../../server/create-server.ts';
import type { ServerSessionEvent } from '../../server/session-events.ts';
import { createMemoryPair } from '../../transports/memory/index.ts';
import { eventually } from '../support/harness.ts';

test('sessions$ reports sessions opening and closing in both eras, from the moment of subscribing', async () => {
  const server = createServer({ name: 'watched', version: '1' });
  const connect = async (era: 'legacy' | 'modern') => {
    const [clientEnd, serverEnd] = createMemoryPair();
    server.accept(serverEnd);
    return createClient({ name: `client-${era}`, version: '2', era }).connect(clientEnd);
  };
  const unobserved = await connect('legacy');
  const events: ServerSessionEvent[] = [];
  const subscription = server.sessions$.subscribe((event) => events.push(event));
  const legacy = await connect('legacy');
  const modern = await connect('modern');
  await eventually(() => events.length === 2, 1000, 'two sessions opened');
  assert.deepEqual(events.map((event) => [event.type, event.era, event.revision, event.transport, event.peerInfo?.name]), [
    ['opened', 'legacy', '2025-11-25', 'memory', 'client-legacy'],
    ['opened', 'modern', '2026-07-28', 'memory', undefined],
  ]);
  await legacy.close();
  await unobserved.close();
  await eventually(() => events.length === 4, 1000, 'two sessions closed');
  assert.deepEqual(events.slice(2).map((event) => [event.type, event.era, event.peerInfo?.name]), [
    ['closed', 'legacy', 'client-legacy'],
    ['closed', 'legacy', 'client-legacy'],
  ]);
  assert.ok(events[2]?.session !== events[3]?.session);
  subscription.unsubscribe();
  await modern.close();
  await server.close();
  assert.equal(events.length, 4, 'nothing after unsubscribing');
});
