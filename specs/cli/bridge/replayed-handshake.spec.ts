import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { InboundFrame } from '../../../core/transport.ts';
import { LocalError } from '../../../core/errors.ts';
import { REPLAYED_INITIALIZE_ID, replayHandshake } from '../../../cli/bridge/replayed-handshake.ts';
import { fakeTransport, settle } from './fake-transport.ts';

const agreed = {
  revision: '2025-06-18' as const,
  peerCapabilities: { roots: { listChanged: true }, sampling: {} },
  peerInfo: { name: 'desktop-client', version: '3.1.0' },
};
const call = { jsonrpc: '2.0' as const, id: 7, method: 'tools/call', params: { name: 'echo' } };

function start(options: Parameters<typeof replayHandshake>[2] = {}) {
  const child = fakeTransport('child');
  const replayed = replayHandshake(child, agreed, options);
  const seen: InboundFrame[] = [];
  let ended: 'complete' | Error | undefined;
  replayed.incoming$.subscribe({ next: (frame) => seen.push(frame), complete: () => (ended = 'complete'), error: (error: Error) => (ended = error) });
  return { child, replayed, seen, ended: () => ended };
}

describe('bridge: replaying the handshake of a session taken over', () => {
  test('replayed handshake - initialize with the agreed revision, capabilities and client info, its answer kept back, then initialized, then the client traffic', async () => {
    const { child, replayed, seen } = start();
    const sending = Promise.resolve(replayed.send({ payload: call }));
    await settle();
    assert.deepEqual(child.sent, [
      { jsonrpc: '2.0', id: REPLAYED_INITIALIZE_ID, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: agreed.peerCapabilities, clientInfo: agreed.peerInfo } },
    ]);
    child.receive({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'starting' } });
    child.receive({ jsonrpc: '2.0', id: REPLAYED_INITIALIZE_ID, result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 's', version: '1' } } });
    await sending;
    assert.deepEqual(child.sent.slice(1), [{ jsonrpc: '2.0', method: 'notifications/initialized' }, call]);
    assert.deepEqual(seen.map((frame) => frame.type === 'message' && (frame.payload as { method?: string }).method), ['notifications/message'], 'only the server\'s own message passed');
    assert.equal(replayed.send({ payload: call }), undefined, 'once ready, sends go straight through');
  });

  test('replayed handshake - a refused initialize fails every waiting send and stops the process', async () => {
    const { child, replayed } = start();
    const sending = Promise.resolve(replayed.send({ payload: call }));
    await settle();
    child.receive({ jsonrpc: '2.0', id: REPLAYED_INITIALIZE_ID, error: { code: -32602, message: 'Unsupported protocol version' } });
    await assert.rejects(sending, /refused the replayed initialize: Unsupported protocol version/);
    assert.equal(child.closed, true);
    await assert.rejects(Promise.resolve(replayed.send({ payload: call })), /refused the replayed initialize/);
  });

  test('replayed handshake - an answer with another revision fails it', async () => {
    const { child, replayed } = start();
    const sending = Promise.resolve(replayed.send({ payload: call }));
    await settle();
    child.receive({ jsonrpc: '2.0', id: REPLAYED_INITIALIZE_ID, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 's', version: '1' } } });
    await assert.rejects(sending, (error: unknown) => error instanceof LocalError && error.code === 'UnsupportedVersion' && /but the session runs 2025-06-18/.test(error.message));
    assert.equal(child.closed, true);
  });

  test('replayed handshake - silence past timeoutMs fails it', async () => {
    const { child, replayed } = start({ timeoutMs: 30 });
    await assert.rejects(Promise.resolve(replayed.send({ payload: call })), (error: unknown) => error instanceof LocalError && error.code === 'PeerUnresponsive');
    assert.equal(child.closed, true);
  });

  test('replayed handshake - a process that exits first fails it, and the failure of its initialize never reaches the client', async () => {
    const { child, replayed, seen, ended } = start();
    const sending = Promise.resolve(replayed.send({ payload: call }));
    await settle();
    child.receiveFrame({ type: 'undeliverable', payload: child.sent[0] as typeof call, error: new LocalError('ConnectionClosed', 'exited with code 1') });
    child.end(new LocalError('ConnectionClosed', 'exited with code 1'));
    await assert.rejects(sending, /did not reach the new server process: exited with code 1/);
    assert.deepEqual(seen, []);
    assert.notEqual(ended(), undefined, 'the session learns the process is gone');
  });
});
