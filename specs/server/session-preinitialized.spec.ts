import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Subject } from 'rxjs';
import { LocalError, isLocalError } from '../../core/errors.ts';
import type { InboundFrame, OutboundFrame, Transport } from '../../core/transport.ts';
import { createSessionAcceptor } from '../../server/session-acceptor.ts';
import { withSchemaOracle } from '../support/schema-oracle.ts';

/** A transport that keeps what the session sends and lets the test push frames in. */
function scriptedTransport(): { transport: Transport; inbound: Subject<InboundFrame>; sent: OutboundFrame[] } {
  const inbound = new Subject<InboundFrame>();
  const sent: OutboundFrame[] = [];
  const transport: Transport = {
    kind: 'scripted',
    incoming$: inbound.asObservable(),
    send: (frame) => void sent.push(frame),
    close: async () => inbound.complete(),
  };
  return { transport, inbound, sent };
}

test('session - a preinitialized server session operates at once with the given revision and peer capabilities', async () => {
  const { transport, inbound, sent } = scriptedTransport();
  const wrapped = withSchemaOracle(transport, { revision: () => '2025-06-18' });
  const session = createSessionAcceptor({ serverInfo: { name: 's', version: '1' }, capabilities: { tools: {} } }).accept(wrapped.transport, {
    preinitialized: { revision: '2025-06-18', peerCapabilities: {} },
  });
  assert.equal(session.state, 'operating');
  assert.equal(session.revision, '2025-06-18');
  inbound.next({ type: 'message', payload: { jsonrpc: '2.0', id: 1, method: 'ping' } });
  assert.deepEqual(sent.map((frame) => frame.payload), [{ jsonrpc: '2.0', id: 1, result: {} }]);
  // The client declared nothing: a request needing a capability is refused locally, nothing is sent.
  await assert.rejects(session.request('sampling/createMessage', { messages: [], maxTokens: 1 }), (error: unknown) => isLocalError(error, 'CapabilityNotNegotiated'));
  assert.equal(sent.length, 1);
  await session.close();
  wrapped.oracle.assertClean();
});

test('session - an undeliverable frame fails the request it carried with the transport error, at once', async () => {
  const { transport, inbound, sent } = scriptedTransport();
  const session = createSessionAcceptor({ serverInfo: { name: 's', version: '1' }, capabilities: {} }).accept(transport, {
    preinitialized: { revision: '2025-11-25', peerCapabilities: { roots: {} } },
  });
  const outcome = session.request('roots/list').catch((error: unknown) => error);
  assert.equal(sent.length, 1, 'the request went to the transport');
  const refusal = new LocalError('TransportFailed', 'This connection cannot carry server requests');
  inbound.next({ type: 'undeliverable', payload: sent[0]?.payload ?? [], error: refusal });
  assert.equal(await outcome, refusal);
  assert.equal((session as unknown as { outgoing: Map<unknown, unknown> }).outgoing.size, 0);
  await session.close();
});
