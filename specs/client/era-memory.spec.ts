/**
 * The client remembers which era each peer spoke (by the transport's `remote`): a server known to be legacy is
 * not probed with `server/discover` again on the next connection.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createClient } from '../../client/create-client.ts';
import { createServer } from '../../server/create-server.ts';
import type { Transport } from '../../core/transport.ts';
import { createMemoryPair } from '../../transports/memory/index.ts';
import { spyTransport } from '../support/harness.ts';

function named(transport: Transport, remote: string): Transport {
  return { kind: transport.kind, remote, incoming$: transport.incoming$, send: (frame) => transport.send(frame), close: (reason) => transport.close(reason) };
}

test('era memory - a peer that turned out legacy is not probed again; another peer still is', async () => {
  const server = createServer({ name: 'legacy-only', version: '1', eras: 'legacy' });
  const client = createClient({ name: 'c', version: '1', probeTimeoutMs: 2000 });
  const methodsSent = async (remote: string): Promise<string[]> => {
    const [clientEnd, serverEnd] = createMemoryPair();
    server.accept(serverEnd);
    const spied = spyTransport(clientEnd);
    const session = await client.connect(named(spied.transport, remote));
    assert.equal(session.session.era, 'legacy');
    const methods = spied.log.sent.map((payload) => (payload as { method?: string }).method ?? '');
    await session.close();
    return methods;
  };
  const first = await methodsSent('memory://a');
  assert.equal(first[0], 'server/discover');
  assert.ok(first.includes('initialize'), `the probe was refused, then the handshake ran: ${first.join(', ')}`);
  assert.equal((await methodsSent('memory://a'))[0], 'initialize');
  assert.equal((await methodsSent('memory://b'))[0], 'server/discover');
  await server.close();
});
