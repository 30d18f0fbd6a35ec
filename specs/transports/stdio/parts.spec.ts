import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { firstValueFrom, toArray } from 'rxjs';
import { LocalError } from '../../../core/errors.ts';
import { childEnvironment } from '../../../transports/stdio/child-env.ts';
import { PendingRequests } from '../../../transports/stdio/pending-requests.ts';
import { stderrLines } from '../../../transports/stdio/stderr-lines.ts';

test('stdio - env policy: safe list, all, none, explicit names; env wins; shell functions are dropped', () => {
  const parent = { PATH: '/bin', HOME: '/home/me', AWS_SECRET_ACCESS_KEY: 'secret', SHELL: '() { evil; }', EXTRA: 'x' };
  assert.deepEqual(childEnvironment('safe', { HOME: '/tmp' }, parent), { PATH: '/bin', HOME: '/tmp' });
  assert.deepEqual(childEnvironment('all', {}, parent), parent);
  assert.deepEqual(childEnvironment('none', { ONLY: '1' }, parent), { ONLY: '1' });
  assert.deepEqual(childEnvironment(['EXTRA', 'MISSING'], {}, parent), { EXTRA: 'x' });
});

test('stdio - pending requests: answered and cancelled requests are forgotten, the rest fail with the exit', () => {
  const pending = new PendingRequests(3);
  pending.sent({ jsonrpc: '2.0', id: 1, method: 'tools/call' });
  pending.sent([{ jsonrpc: '2.0', id: 2, method: 'tools/list' }, { jsonrpc: '2.0', id: 'x', method: 'ping' }]);
  pending.sent({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2 } });
  pending.sent({ jsonrpc: '2.0', id: 9, result: {} }); // our answer to the peer: not a request of ours
  pending.received({ jsonrpc: '2.0', id: 'x', result: {} });
  pending.received({ jsonrpc: '2.0', id: 1, method: 'roots/list' }); // a peer request reusing id 1
  assert.equal(pending.size, 1);
  const error = new LocalError('ConnectionClosed', 'exited with code 3');
  assert.deepEqual(pending.failAll(error), [{ type: 'undeliverable', payload: { jsonrpc: '2.0', id: 1, method: 'tools/call' }, error }]);
  assert.equal(pending.size, 0);
  for (let id = 0; id < 10; id++) pending.sent({ jsonrpc: '2.0', id, method: 'ping' });
  assert.equal(pending.size, 3, 'bounded: the oldest are forgotten');
});

test('stdio - stderr lines: split on newlines across chunks, CRLF trimmed, multi-byte characters intact, long lines cut', async () => {
  const stream = new PassThrough();
  const lines = stderrLines(stream, 8);
  const euro = Buffer.from('€');
  stream.write('one\r\ntw');
  stream.write(Buffer.concat([Buffer.from('o '), euro.subarray(0, 1)]));
  stream.write(Buffer.concat([euro.subarray(1), Buffer.from('\n0123456789abc')]));
  stream.end('\nlast');
  assert.deepEqual(await firstValueFrom(lines.pipe(toArray())), ['one', 'two €', '01234567', '89abc', 'last']);
});
