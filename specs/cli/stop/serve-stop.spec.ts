/**
 * `rxmcp serve` stops on time, on stdio and on Streamable HTTP, each a real process: with nothing in flight it
 * exits 0 within 1 s of SIGTERM; with a call in flight that outlasts `--drain-ms`, the call is answered with an
 * error naming the deadline and the process exits 0 within the drain and 1 s more; the same with clients that
 * never read what it writes; and a second signal ends it at once, by that signal.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, describe, test } from 'node:test';
import { RawMcp, asStream } from '../../support/http-raw-client.ts';
import { PROCESS_MS, REPO_ROOT, killChildren, trackChild, until } from '../../support/interop-processes.ts';
import { rxmcpArgs } from '../../support/rxmcp-command.ts';
import { neverReadingPost } from '../../support/misbehaving-peers.ts';
import { assertStops, initializeMessage, startRxmcp } from './stop-processes.ts';

after(async () => {
  await killChildren();
});

const DRAIN_MS = 1000;
/** The demo's count tool at its maximum: 4 s, longer than the drain. */
const longCount = (id: number): Record<string, unknown> => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'count', arguments: { n: 20 }, _meta: { progressToken: `p${id}` } } });
/** A read of the demo's echo template that answers `bytes` bytes of text. */
const bigRead = (id: number, bytes: number): Record<string, unknown> => ({ jsonrpc: '2.0', id, method: 'resources/read', params: { uri: `demo://echo/${'x'.repeat(bytes)}` } });

/** `serve --stdio` with the handshake done (on its stdin/stdout). */
async function stdioServer(extra: readonly string[] = [], options: { readonly neverReadStdout?: boolean } = {}): Promise<ReturnType<typeof startRxmcp>> {
  const program = startRxmcp(['serve', '--stdio', ...extra], { protocolOnStdout: true, ...options });
  program.send(initializeMessage(0));
  if (options.neverReadStdout !== true) await until(() => program.messages.some((message) => message['id'] === 0), `the initialize answer; it wrote:\n${program.output()}`, PROCESS_MS);
  program.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return program;
}

async function httpServer(extra: readonly string[] = []): Promise<{ readonly program: ReturnType<typeof startRxmcp>; readonly url: string }> {
  const program = startRxmcp(['serve', '--port', '0', ...extra]);
  const url = (await program.waitFor(/listening at (\S+)/, 'the server to listen'))[1] as string;
  return { program, url };
}

describe('rxmcp serve stops on time', { timeout: 120_000 }, () => {
  test('stdio, nothing in flight: exit 0 within 1 s of SIGTERM', async (t) => {
    const program = await stdioServer();
    t.diagnostic(`exited ${Math.round(await assertStops(program, 1000))} ms after SIGTERM`);
  });

  test('stdio, a call outlasting --drain-ms: it is answered with the deadline error, exit 0 within the drain + 1 s', async (t) => {
    const program = await stdioServer(['--drain-ms', String(DRAIN_MS)]);
    program.send(longCount(1));
    await until(() => program.messages.some((message) => message['method'] === 'notifications/progress'), 'the call running', PROCESS_MS);
    t.diagnostic(`exited ${Math.round(await assertStops(program, DRAIN_MS + 1000))} ms after SIGTERM`);
    const answer = program.messages.find((message) => message['id'] === 1);
    assert.match(JSON.stringify(answer?.['error']), /shut down|deadline|1000 ms/i, `an error naming the deadline: ${JSON.stringify(answer)}`);
  });

  test('stdio, a client that never reads stdout (megabytes of answers unread): exit within the drain + 1 s', async (t) => {
    const program = await stdioServer(['--drain-ms', String(DRAIN_MS), '--verbose'], { neverReadStdout: true });
    for (let id = 1; id <= 40; id++) program.send(bigRead(id, 100_000));
    // Each request is logged on stderr once it is done. Two 100 kB answers fill the pipe: the server then stops
    // reading stdin (backpressure), with its answers stuck behind a pipe no one empties.
    await until(() => (program.output().match(/"method":"resources\/read"/g) ?? []).length >= 2, 'the reads served', PROCESS_MS);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const ms = await assertStops(program, DRAIN_MS + 1000);
    t.diagnostic(`exited ${Math.round(ms)} ms after SIGTERM`);
  });

  test('stdio, stdin ended with a 1 MB answer read slowly: the reader gets all of it before the process exits 0', async (t) => {
    const child = spawn(process.execPath, rxmcpArgs('serve', '--stdio'), { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    trackChild(child.pid, 'rxmcp serve --stdio');
    const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
    child.stdin.write(`${JSON.stringify(initializeMessage(0))}\n${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n${JSON.stringify(bigRead(1, 1_000_000))}\n`);
    child.stdin.end();
    // One chunk every 50 ms: about three seconds for the 2 MB answer, long after the session closed. (Once the
    // process exits, Node hands over what is left at once.)
    let read = '';
    const started = Date.now();
    child.stdout.on('data', (chunk: Buffer) => {
      read += chunk.toString();
      child.stdout.pause();
      setTimeout(() => child.stdout.resume(), 50);
    });
    assert.deepEqual(await closed, { code: 0, signal: null });
    const answer = JSON.parse(read.split('\n').find((line) => line.includes('"id":1,')) ?? '{}') as Record<string, unknown>;
    assert.ok(JSON.stringify(answer).length > 1_000_000, 'the whole answer arrived');
    t.diagnostic(`read in ${Date.now() - started} ms`);
  });

  test('HTTP, nothing in flight (a session and its GET stream open): exit 0 within 1 s of SIGTERM', async (t) => {
    const { program, url } = await httpServer();
    const mcp = new RawMcp(url);
    await mcp.initialize();
    const standalone = asStream(await mcp.get());
    t.diagnostic(`exited ${Math.round(await assertStops(program, 1000))} ms after SIGTERM`);
    assert.equal(await standalone.done, 'ended', 'the GET stream was ended by the server');
    assert.match(program.output(), /stopped/);
  });

  test('HTTP, a call outlasting --drain-ms: it is answered with the deadline error, exit 0 within the drain + 1 s', async (t) => {
    const { program, url } = await httpServer(['--drain-ms', String(DRAIN_MS)]);
    const mcp = new RawMcp(url);
    await mcp.initialize();
    const call = asStream(await mcp.post(longCount(mcp.id())));
    await call.next((event) => event.data.includes('notifications/progress'), 5000);
    t.diagnostic(`exited ${Math.round(await assertStops(program, DRAIN_MS + 1000))} ms after SIGTERM`);
    assert.match(JSON.stringify(await mcp.responseOf(call)), /shut down|deadline|1000 ms/i);
  });

  test('HTTP, clients that never read their answers (megabytes each): exit within the drain + 1 s', async (t) => {
    const { program, url } = await httpServer(['--drain-ms', String(DRAIN_MS)]);
    const mcp = new RawMcp(url);
    // 2025-03-26 takes a batch in one POST: eight 1 MB answers on one stream no one reads.
    await mcp.initialize('2025-03-26');
    const batch = Array.from({ length: 8 }, (_, index) => bigRead(100 + index, 1_000_000));
    const stuck = await Promise.all([1, 2, 3].map(() => neverReadingPost(url, mcp.sessionHeaders(), batch)));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    t.diagnostic(`exited ${Math.round(await assertStops(program, DRAIN_MS + 1000))} ms after SIGTERM`);
    for (const client of stuck) client.close();
  });

  test('a second SIGTERM while the drain runs ends the process at once, by SIGTERM', async (t) => {
    const { program, url } = await httpServer();
    const mcp = new RawMcp(url);
    await mcp.initialize();
    const call = asStream(await mcp.post(longCount(mcp.id())));
    await call.next((event) => event.data.includes('notifications/progress'), 5000);
    program.child.kill('SIGTERM');
    await program.waitFor(/stopping \(SIGTERM\)/, 'the graceful stop to start', 5000);
    t.diagnostic(`exited ${Math.round(await assertStops(program, 1000, { code: null, signal: 'SIGTERM' }))} ms after the second SIGTERM`);
  });
});
