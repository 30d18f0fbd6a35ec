import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { afterEach, test } from 'node:test';
import { firstValueFrom, toArray } from 'rxjs';
import { createStreamDecoder } from '../../../core/codecs/framing.ts';
import { jsonCodec } from '../../../core/codecs/json.ts';
import { isLocalError } from '../../../core/errors.ts';
import type { JsonObject } from '../../../core/jsonrpc.ts';
import type { InboundFrame, TransportStatus } from '../../../core/transport.ts';
import { spawnStdioServer } from '../../../transports/stdio/index.ts';
import { delay, eventually, within } from '../../support/harness.ts';
import { FIXTURE, PROCESS_MS, REPO_ROOT, errorCodeOf, idlessError, killLeftovers, track } from '../../support/stdio-harness.ts';
import { programArgs } from '../../support/spec-program.ts';

afterEach(killLeftovers);

const raw: ChildProcess[] = [];
afterEach(() => {
  for (const child of raw.splice(0)) {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
  }
});

test('stdio - a real server process answers bad input with clear errors and keeps working', async () => {
  const child = spawn(process.execPath, [...programArgs(FIXTURE)], { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  raw.push(child);
  const received: JsonObject[] = [];
  const decoder = createStreamDecoder(jsonCodec, 64 * 1024 * 1024);
  child.stdout.on('data', (chunk: Buffer) => decoder.push(chunk, (item) => item.ok && received.push(item.value as JsonObject)));
  child.stderr.resume();
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const line = (text: string): boolean => child.stdin.write(`${text}\n`);
  line(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } }));
  await eventually(() => received.some((message) => message['id'] === 1), PROCESS_MS, 'the initialize answer');
  line(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  line('garbage, not JSON');
  line(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"${'x'.repeat(10 * 1024 * 1024)}"}}}`);
  line('{"jsonrpc":"2.0","id":3,"method":"tools/call","par');
  line(JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'echo', arguments: { text: 'survived' } } }));
  await eventually(() => received.some((message) => message['id'] === 4), PROCESS_MS, 'the answer after the bad lines');
  assert.deepEqual(received.filter(idlessError).map(errorCodeOf), [-32700, -32600, -32700], 'garbage, oversized, truncated');
  assert.deepEqual(received.find((message) => message['id'] === 4)?.['result'], { content: [{ type: 'text', text: 'survived' }] });
  assert.equal(received.filter((message) => message['id'] === 2 || message['id'] === 3).length, 0, 'unreadable lines have no id to answer');
  child.stdin.end();
  assert.equal(await within(exited, PROCESS_MS, 'the server exit'), 0, 'the server exits with code 0 when its stdin closes');
});

test('stdio - writes to a child that does not read its stdin wait for drain, and close fails the wait', async () => {
  const transport = track(
    await spawnStdioServer({
      command: process.execPath,
      args: ['-e', 'setInterval(() => {}, 60000)'],
      shutdown: { stdinCloseWaitMs: 100, sigtermWaitMs: 1000 },
    }),
  );
  const statuses: TransportStatus[] = [];
  transport.status$.subscribe((status) => statuses.push(status));
  const frame = { payload: { jsonrpc: '2.0' as const, method: 'notifications/message', params: { level: 'info', data: 'q'.repeat(256 * 1024) } } };
  let waiting: void | Promise<void>;
  let sent = 0;
  do {
    waiting = transport.send(frame);
    sent += 1;
  } while (waiting === undefined && sent < 100);
  assert.ok(waiting instanceof Promise, 'the pipe filled up: send returned a promise');
  assert.equal(statuses.at(-1)?.type, 'backpressure');
  let settled = false;
  void waiting.then(() => (settled = true), () => (settled = true));
  await delay(50);
  assert.equal(settled, false, 'the child does not read, so the writer keeps waiting');
  await within(transport.close(), PROCESS_MS, 'close');
  await assert.rejects(waiting, (error: unknown) => isLocalError(error, 'ConnectionClosed'));
  assert.deepEqual(await transport.exited, { code: null, signal: 'SIGTERM' });
  assert.equal(statuses.at(-1)?.type, 'closed');
});

test('stdio - the child gets only the safe environment by default, plus what env names', async () => {
  process.env['RXMCP_STDIO_SPEC_SECRET'] = 'do-not-leak';
  const script = `process.stdout.write(JSON.stringify({ jsonrpc: '2.0', method: 'env', params: process.env }) + '\\n')`;
  const read = async (options: { inheritEnv?: 'all' }): Promise<Record<string, unknown>> => {
    const transport = track(await spawnStdioServer({ command: process.execPath, args: ['-e', script], env: { RXMCP_GIVEN: 'yes' }, ...options }));
    const frames: InboundFrame[] = await within(firstValueFrom(transport.incoming$.pipe(toArray())), PROCESS_MS, 'the child output');
    const first = frames[0];
    assert.equal(first?.type, 'message');
    return ((first?.type === 'message' ? first.payload : undefined) as { params: Record<string, unknown> }).params;
  };
  try {
    const safe = await read({});
    assert.equal(safe['RXMCP_GIVEN'], 'yes');
    assert.equal(safe['PATH'], process.env['PATH']);
    assert.equal(safe['RXMCP_STDIO_SPEC_SECRET'], undefined, 'a variable outside the safe list is not inherited');
    const all = await read({ inheritEnv: 'all' });
    assert.equal(all['RXMCP_STDIO_SPEC_SECRET'], 'do-not-leak', "inheritEnv: 'all' passes everything");
  } finally {
    delete process.env['RXMCP_STDIO_SPEC_SECRET'];
  }
});
