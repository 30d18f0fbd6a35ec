import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { firstValueFrom, last } from 'rxjs';
import { isLocalError } from '../../../core/errors.ts';
import { spawnStdioServer } from '../../../transports/stdio/index.ts';
import { rejectionOf } from '../../support/client-pair.ts';
import { eventually, within } from '../../support/harness.ts';
import { PROCESS_MS, connectFixture, killLeftovers } from '../../support/stdio-harness.ts';

afterEach(killLeftovers);

const shortWaits = { stdinCloseWaitMs: 200, sigtermWaitMs: 200 };

test('stdio - close: a server that exits when its stdin closes is never signalled', async () => {
  const { transport, session, oracle } = await connectFixture('normal', { shutdown: { stdinCloseWaitMs: 5000, sigtermWaitMs: 5000 } });
  const started = Date.now();
  await within(session.close(), PROCESS_MS, 'close');
  assert.deepEqual(await transport.exited, { code: 0, signal: null });
  assert.ok(Date.now() - started < 5000, 'close did not sit out the stdin-close wait');
  await transport.close(); // idempotent, and the child is gone already
  oracle.assertClean();
});

test('stdio - close: a server that ignores its stdin closing gets SIGTERM after the wait', async () => {
  const { transport, session, oracle, stderr } = await connectFixture('linger', { shutdown: shortWaits });
  const started = Date.now();
  await within(session.close(), PROCESS_MS, 'close');
  const elapsed = Date.now() - started;
  assert.deepEqual(await transport.exited, { code: null, signal: 'SIGTERM' }, 'close resolved after the child exited');
  assert.ok(elapsed >= 190, `SIGTERM came only after the stdin-close wait (${elapsed} ms)`);
  await eventually(() => stderr.includes('fixture: stdin closed (orderly)'), PROCESS_MS, 'the server saw its stdin close');
  oracle.assertClean();
});

test('stdio - close: a server that ignores SIGTERM gets SIGKILL after the second wait', async () => {
  const { transport, session, oracle, stderr } = await connectFixture('stubborn', { shutdown: shortWaits });
  const started = Date.now();
  await within(session.close(), PROCESS_MS, 'close');
  const elapsed = Date.now() - started;
  assert.deepEqual(await transport.exited, { code: null, signal: 'SIGKILL' });
  assert.ok(elapsed >= 390, `SIGKILL came only after both waits (${elapsed} ms)`);
  await eventually(() => stderr.includes('stubborn: ignoring SIGTERM'), PROCESS_MS, 'the child received SIGTERM first');
  oracle.assertClean();
});

test('stdio - a server dying mid-request fails every pending request with ConnectionClosed naming the exit code', async () => {
  const { transport, session, oracle } = await connectFixture();
  const statuses = firstValueFrom(transport.status$.pipe(last()));
  const hanging = session.callTool('hang');
  const started = Date.now();
  const crashed = await within(rejectionOf(session.callTool('crash')), PROCESS_MS, 'the crashing call');
  const other = await within(rejectionOf(hanging), 1000, 'the other pending call');
  assert.ok(Date.now() - started < 3000, 'the failure came without waiting for a timeout');
  for (const error of [crashed, other]) {
    assert.ok(isLocalError(error, 'ConnectionClosed'), `a ConnectionClosed LocalError, got ${String(error)}`);
    assert.match(error.message, /^the server process ".*" \(pid \d+\) exited with code 3$/);
  }
  assert.deepEqual(await transport.exited, { code: 3, signal: null });
  const closed = await statuses;
  assert.equal(closed.type, 'closed');
  assert.match((closed.type === 'closed' ? closed.reason?.message : undefined) ?? '', /exited with code 3/, 'the closed status carries the reason');
  await eventually(() => session.session.state === 'closed', 1000, 'the client session closed');
  const reason = await session.session.closed;
  assert.match(String(reason?.message), /exited with code 3/, 'the session close reason is the exit');
  await rejectionOf(session.callTool('echo', { text: 'too late' }));
  oracle.assertClean();
});

test('stdio - a server killed from outside fails the pending request naming the signal', async () => {
  const { transport, session, oracle } = await connectFixture();
  const hanging = session.callTool('hang');
  await session.listTools();
  process.kill(transport.pid, 'SIGKILL');
  const error = await within(rejectionOf(hanging), PROCESS_MS, 'the pending call');
  assert.ok(isLocalError(error, 'ConnectionClosed'));
  assert.match(error.message, /was killed by SIGKILL$/);
  oracle.assertClean();
});

test('stdio - a command that does not exist rejects clearly and at once', async () => {
  const error = await within(rejectionOf(spawnStdioServer({ command: 'rxmcp-no-such-command-for-stdio-spec' })), 5000, 'spawn');
  assert.ok(isLocalError(error, 'TransportFailed'), `a TransportFailed LocalError, got ${String(error)}`);
  assert.equal(error.message, 'could not start rxmcp-no-such-command-for-stdio-spec: ENOENT');
});

test('stdio - after close, send rejects with ConnectionClosed and incoming$ is complete', async () => {
  const { transport, session, oracle } = await connectFixture();
  await session.close();
  await assert.rejects(Promise.resolve(transport.send({ payload: { jsonrpc: '2.0', method: 'notifications/initialized' } })), (error: unknown) =>
    isLocalError(error, 'ConnectionClosed'),
  );
  assert.deepEqual(await firstValueFrom(transport.status$), { type: 'closed' }, 'a late status$ subscriber sees the closed state');
  oracle.assertClean();
});
