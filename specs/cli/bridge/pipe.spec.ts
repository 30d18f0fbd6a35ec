import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ErrorCode } from '../../../core/error-codes.ts';
import { LocalError } from '../../../core/errors.ts';
import { pipeTransports } from '../../../cli/bridge/pipe.ts';
import { fakeTransport, settle } from './fake-transport.ts';

const call = (id: number, method = 'tools/call') => ({ jsonrpc: '2.0' as const, id, method, params: {} });
const note = (method: string) => ({ jsonrpc: '2.0' as const, method });

describe('bridge pipe', () => {
  test('bridge pipe - message frames cross both ways unchanged, in order', async () => {
    const a = fakeTransport('a');
    const b = fakeTransport('b');
    pipeTransports(a, b);
    a.receive(call(1));
    a.receive(note('notifications/initialized'));
    a.receive([call(2), call(3)]);
    a.receiveFrame({ type: 'message', payload: call(4), exchange: 'reply.4' });
    b.receive({ jsonrpc: '2.0', id: 1, result: {} });
    await settle();
    assert.deepEqual(b.sent, [call(1), note('notifications/initialized'), [call(2), call(3)], call(4)]);
    assert.deepEqual(a.sent, [{ jsonrpc: '2.0', id: 1, result: {} }]);
  });

  test('bridge pipe - it waits for each held send before the next (backpressure), and keeps the order', async () => {
    const a = fakeTransport('a');
    const b = fakeTransport('b');
    b.mode = 'hold';
    pipeTransports(a, b);
    for (let id = 1; id <= 5; id++) a.receive(call(id));
    await settle();
    assert.equal(b.sent.length, 1, 'one send at a time while the receiver holds them');
    while (b.held.length > 0) {
      b.held[0]?.release();
      await settle();
    }
    assert.deepEqual(b.sent, [1, 2, 3, 4, 5].map((id) => call(id)));
    assert.equal(b.maxHeld, 1);
  });

  test('bridge pipe - a full queue refuses: requests get an error answer, other messages are dropped and reported', async () => {
    const a = fakeTransport('a');
    const b = fakeTransport('b');
    b.mode = 'hold';
    const reports: string[] = [];
    pipeTransports(a, b, { maxQueued: 2, names: ['client', 'server'], report: (line) => reports.push(line) });
    a.receive(call(1)); // in flight
    await settle();
    a.receive(call(2));
    a.receive(call(3)); // the queue holds 2 and 3
    a.receive(call(4));
    a.receive(note('notifications/progress'));
    await settle();
    assert.deepEqual(a.sent, [{ jsonrpc: '2.0', id: 4, error: { code: ErrorCode.InternalError, message: 'The bridge could not deliver the request: server is not keeping up (2 messages wait for it)' } }]);
    assert.ok(reports.some((line) => line.includes('dropped a message')), reports.join('\n'));
    while (b.held.length > 0) {
      b.held[0]?.release();
      await settle();
    }
    assert.deepEqual(b.sent, [call(1), call(2), call(3)]);
  });

  test('bridge pipe - a request the receiver refuses, or reports undeliverable, is answered with an error to its sender', async () => {
    const a = fakeTransport('a');
    const b = fakeTransport('b');
    pipeTransports(a, b);
    b.mode = 'refuse';
    a.receive(call(1));
    await settle();
    b.mode = 'take';
    b.receiveFrame({ type: 'undeliverable', payload: call(2), error: new LocalError('PeerUnresponsive', 'nobody answered') });
    b.receiveFrame({ type: 'undeliverable', payload: note('notifications/message'), error: new LocalError('FrameTooLarge', 'too big') });
    await settle();
    assert.deepEqual(a.sent, [
      { jsonrpc: '2.0', id: 1, error: { code: ErrorCode.InternalError, message: 'The bridge could not deliver the request: b refuses' } },
      { jsonrpc: '2.0', id: 2, error: { code: ErrorCode.InternalError, message: 'The bridge could not deliver the request: nobody answered' } },
    ]);
  });

  test('bridge pipe - when one side ends, its last frames reach the other, requests waiting for it are answered, then the other closes', async () => {
    const a = fakeTransport('a');
    const b = fakeTransport('b');
    a.mode = 'hold';
    const pipe = pipeTransports(a, b, { names: ['client', 'server'] });
    b.receive({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'last words' } });
    b.receive({ jsonrpc: '2.0', id: 9, result: {} });
    const exit = new LocalError('ConnectionClosed', 'the server process exited with code 3');
    b.end(exit);
    a.receive(call(10)); // too late: the server is gone
    await settle();
    assert.equal(a.closed, false, 'the client side stays open while the last frames are on their way');
    while (a.held.length > 0) {
      a.held[0]?.release();
      await settle();
    }
    const end = await pipe.done;
    assert.deepEqual(end, { first: 'b', reason: exit });
    assert.equal(a.closed, true);
    assert.equal(a.closeReason, exit, 'the other side is closed with the reason');
    assert.deepEqual(a.sent, [
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'last words' } },
      { jsonrpc: '2.0', id: 9, result: {} },
      { jsonrpc: '2.0', id: 10, error: { code: ErrorCode.InternalError, message: 'The bridge could not deliver the request: server is closed' } },
    ]);
  });

  test('bridge pipe - a send held by an ending receiver is answered before the other side closes', async () => {
    const a = fakeTransport('a');
    const b = fakeTransport('b');
    b.mode = 'hold';
    const pipe = pipeTransports(a, b, { names: ['client', 'server'] });
    a.receive(call(1));
    a.receive(call(2));
    await settle();
    // The server side closes: its held send rejects, the queued one is refused.
    await b.close();
    await pipe.done;
    assert.deepEqual(
      a.sent.map((message) => (message as { id: number }).id).sort(),
      [1, 2],
      JSON.stringify(a.sent),
    );
    assert.equal(a.closed, true);
  });

  test('bridge pipe - close() closes both sides once and settles done', async () => {
    const a = fakeTransport('a');
    const b = fakeTransport('b');
    const pipe = pipeTransports(a, b);
    await Promise.all([pipe.close(), pipe.close()]);
    assert.equal(a.closed && b.closed, true);
    assert.equal((await pipe.done).reason, undefined);
  });

  test('bridge pipe - undecodable frames of the client side get a JSON-RPC error; the other side\'s are only reported', async () => {
    const a = fakeTransport('a');
    const b = fakeTransport('b');
    const reports: string[] = [];
    pipeTransports(a, b, { answerMalformedFrom: 'a', report: (line) => reports.push(line) });
    a.receiveFrame({ type: 'malformed', error: new LocalError('DecodeFailed', 'Unexpected token') });
    a.receiveFrame({ type: 'malformed', error: new LocalError('FrameTooLarge', 'line over 4 MiB') });
    b.receiveFrame({ type: 'malformed', error: new LocalError('DecodeFailed', 'not JSON') });
    await settle();
    assert.deepEqual(a.sent, [
      { jsonrpc: '2.0', error: { code: ErrorCode.ParseError, message: 'Parse error: Unexpected token' } },
      { jsonrpc: '2.0', error: { code: ErrorCode.InvalidRequest, message: 'Invalid request: line over 4 MiB' } },
    ]);
    assert.deepEqual(b.sent, []);
    assert.equal(reports.length, 3);
  });
});
