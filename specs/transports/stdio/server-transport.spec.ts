import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { isLocalError } from '../../../core/errors.ts';
import type { SessionAcceptorPort, TransportStatus } from '../../../core/transport.ts';
import { createServer } from '../../../server/create-server.ts';
import { consoleGuarded, serveStdio, createStdioServerTransport } from '../../../transports/stdio/index.ts';
import { textOf } from '../../support/client-pair.ts';
import { delay, eventually, within } from '../../support/harness.ts';
import { type SchemaOracle, withSchemaOracle } from '../../support/schema-oracle.ts';
import { errorCodeOf, idlessError, rawStdioPeer } from '../../support/stdio-harness.ts';

const echoCall = (id: number, text: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'echo', arguments: { text } },
});

test('stdio - server: garbage, truncated JSON and a 10 MB line get clear errors, and the server keeps working', async () => {
  const peer = rawStdioPeer();
  await peer.handshake();
  let from = peer.received.length;
  peer.write('this is not json\n');
  const garbage = await peer.next(idlessError, from);
  assert.equal(errorCodeOf(garbage), -32700, 'garbage is a parse error');

  from = peer.received.length;
  peer.write('{"jsonrpc":"2.0","id":7,"method":"tools/ca\n');
  const truncated = await peer.next(idlessError, from);
  assert.equal(errorCodeOf(truncated), -32700, 'a truncated message is a parse error');
  assert.match(String((truncated['error'] as { message?: unknown }).message), /^Parse error: malformed JSON/);

  from = peer.received.length;
  peer.write(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"pad":"${'x'.repeat(10 * 1024 * 1024)}"}}\n`);
  const huge = await peer.next(idlessError, from);
  assert.equal(errorCodeOf(huge), -32600, 'an oversized line is an invalid request');
  assert.match(String((huge['error'] as { message?: unknown }).message), /exceeds the frame limit of 4194304 bytes/);

  from = peer.received.length;
  peer.write(`${JSON.stringify(echoCall(9, 'crlf'))}\r\n\n\n`);
  peer.send(echoCall(10, 'still working'));
  const crlf = await peer.next((message) => message['id'] === 9, from);
  const answer = await peer.next((message) => message['id'] === 10, from);
  assert.equal(textOf(crlf['result'] as { content: unknown[] }), 'crlf', 'CRLF line ends and blank lines are accepted');
  assert.equal(textOf(answer['result'] as { content: unknown[] }), 'still working');
  assert.equal(peer.session.state, 'operating');
  await peer.session.close();
  peer.oracle.assertClean();
});

test('stdio - server: a truncated last message at EOF is answered, then the session closes', async () => {
  const peer = rawStdioPeer();
  await peer.handshake();
  const from = peer.received.length;
  peer.write('{"jsonrpc":"2.0","id":3,"meth');
  peer.stdin.end();
  const parseError = await peer.next(idlessError, from);
  assert.equal(errorCodeOf(parseError), -32700);
  assert.equal(await within(peer.transport.closed, 1000, 'the transport end'), undefined, 'an orderly end: stdin EOF');
  await eventually(() => peer.session.state === 'closed', 1000, 'the session closed');
  peer.oracle.assertClean();
});

test('stdio - server: a line over a configured limit is refused without being buffered', async () => {
  const peer = rawStdioPeer(1024);
  await peer.handshake();
  const from = peer.received.length;
  for (let i = 0; i < 64; i++) peer.write('y'.repeat(1024)); // one 64 KiB line, arriving in pieces
  peer.write('\n');
  const tooLarge = await peer.next(idlessError, from);
  assert.equal(errorCodeOf(tooLarge), -32600);
  assert.ok(peer.transport.ended === false);
  peer.send(echoCall(1, 'after'));
  await peer.next((message) => message['id'] === 1, from);
  assert.equal(peer.received.filter(idlessError).length, 1, 'the oversized line was reported once');
  await peer.session.close();
  peer.oracle.assertClean();
});

/** A `createServer` server whose accepted transports go through the schema oracle. */
function checkedAcceptor(oracles: SchemaOracle[]): SessionAcceptorPort {
  const server = createServer({ name: 'stdio-spec-server', version: '1.0.0' });
  return {
    // serveStdio never asks for a preinitialized session: stdio always carries a handshake.
    accept(transport) {
      const checked = withSchemaOracle(transport, { role: 'server' });
      oracles.push(checked.oracle);
      return server.accept(checked.transport);
    },
  };
}

test('stdio - server: serveStdio resolves once stdin ends and the session is closed', async () => {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  stdout.resume();
  const oracles: SchemaOracle[] = [];
  const running = serveStdio(checkedAcceptor(oracles), { stdin, stdout, guardConsole: false });
  stdin.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
  await delay(10);
  let resolved = false;
  void running.then(() => (resolved = true));
  await delay(10);
  assert.equal(resolved, false, 'still serving while stdin is open');
  stdin.end();
  assert.equal(await within(running, 1000, 'serveStdio'), undefined);
  for (const oracle of oracles) oracle.assertClean();
});

test('stdio - server: aborting the signal of serveStdio closes the session', async () => {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  stdout.resume();
  const abort = new AbortController();
  const oracles: SchemaOracle[] = [];
  const running = serveStdio(checkedAcceptor(oracles), { stdin, stdout, guardConsole: false, signal: abort.signal });
  stdin.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
  await delay(10);
  abort.abort();
  await within(running, 1000, 'serveStdio');
  assert.equal(stdin.isPaused(), true, 'stdin is paused: it no longer holds the process');
  for (const oracle of oracles) oracle.assertClean();
});

test('stdio - server: the console guard sends console output to stderr while open, and is undone on close', async () => {
  const original = console.log;
  const stdout = new PassThrough();
  const written: string[] = [];
  stdout.on('data', (chunk: Buffer) => written.push(chunk.toString()));
  const stderrWrite = process.stderr.write;
  const toStderr: string[] = [];
  const transport = createStdioServerTransport({ stdin: new PassThrough(), stdout, guardConsole: true });
  const second = createStdioServerTransport({ stdin: new PassThrough(), stdout: new PassThrough(), guardConsole: true });
  try {
    process.stderr.write = ((chunk: string | Uint8Array) => toStderr.push(String(chunk)) > 0) as typeof process.stderr.write;
    console.log('guarded %s', 'log');
    console.table([{ a: 1 }]);
    console.dir({ dir: true });
  } finally {
    process.stderr.write = stderrWrite;
  }
  assert.equal(consoleGuarded(), true);
  assert.ok(toStderr.join('').includes('guarded log'), 'console.log went to stderr');
  assert.ok(toStderr.join('').includes('dir: true'), 'console.dir went to stderr');
  await transport.close();
  assert.equal(consoleGuarded(), true, 'still held by the second transport');
  await second.close();
  assert.equal(consoleGuarded(), false);
  assert.equal(console.log, original, 'console.log is restored');
  assert.deepEqual(written, [], 'nothing reached the protocol stream');
});

test('stdio - server: send honours stdout backpressure and reports it', async () => {
  const stdout = new PassThrough({ highWaterMark: 64 });
  const transport = createStdioServerTransport({ stdin: new PassThrough(), stdout, guardConsole: false });
  const statuses: TransportStatus[] = [];
  transport.status$.subscribe((status) => statuses.push(status));
  const frame = { payload: { jsonrpc: '2.0' as const, method: 'notifications/message', params: { level: 'info', data: 'z'.repeat(100) } } };
  const waiting = transport.send(frame);
  assert.ok(waiting instanceof Promise, 'a reader that does not read makes send return a promise');
  let drained = false;
  void waiting.then(() => (drained = true));
  await delay(10);
  assert.equal(drained, false, 'nobody reads, so the writer keeps waiting');
  stdout.resume();
  await within(waiting, 1000, 'drain');
  assert.deepEqual(statuses.map((status) => status.type), ['open', 'backpressure', 'drained']);
  const stuck = new PassThrough({ highWaterMark: 16 });
  const other = createStdioServerTransport({ stdin: new PassThrough(), stdout: stuck, guardConsole: false });
  const pending = other.send(frame);
  assert.ok(pending instanceof Promise);
  await other.close();
  await assert.rejects(pending, (error: unknown) => isLocalError(error, 'ConnectionClosed'), 'closing fails a pending drain');
  await transport.close();
});

test('stdio - server: a broken stdout (EPIPE) ends the transport with ConnectionClosed', async () => {
  const peer = rawStdioPeer();
  await peer.handshake();
  peer.stdout.destroy(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
  const reason = await within(peer.transport.closed, 1000, 'the transport end');
  assert.ok(isLocalError(reason, 'ConnectionClosed'));
  assert.equal(reason.message, 'stdout failed: EPIPE');
  await eventually(() => peer.session.state === 'closed', 1000, 'the session closed');
  await assert.rejects(Promise.resolve(peer.transport.send({ payload: { jsonrpc: '2.0', method: 'notifications/initialized' } })), (error: unknown) => isLocalError(error, 'ConnectionClosed'));
  peer.oracle.assertClean();
});
