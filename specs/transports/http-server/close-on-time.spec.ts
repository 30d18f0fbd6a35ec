/**
 * `createStreamableHttpServer(...).close({ drainMs })` ends on time over real sockets: within 1 s with nothing
 * in flight (sessions and their GET streams open), within `drainMs` and 1 s more with a call outlasting the
 * drain (answered with the error naming the deadline), and the same with clients that never read what they
 * are sent (megabytes of log messages each); once it resolved, the port takes no connection.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { performance } from 'node:perf_hooks';
import { describe, test } from 'node:test';
import { RawMcp, asStream } from '../../support/http-raw-client.ts';
import { neverReadingPost } from '../../support/misbehaving-peers.ts';
import { serve } from './fixtures.ts';

const DRAIN_MS = 1000;

async function timedClose(close: Promise<void>): Promise<number> {
  const started = performance.now();
  await close;
  return performance.now() - started;
}

/** Whether something accepts TCP connections at `url`'s port. */
function accepts(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port: Number(new URL(url).port) });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('http server: close() ends on time', () => {
  test('nothing in flight, two sessions with their GET streams open: within 1 s', async (t) => {
    await using served = await serve();
    const sessions = [new RawMcp(served.url), new RawMcp(served.url)];
    const streams = [];
    for (const mcp of sessions) {
      await mcp.initialize();
      streams.push(asStream(await mcp.get()));
    }
    const ms = await timedClose(served.http.close({ drainMs: 10_000 }));
    t.diagnostic(`closed in ${Math.round(ms)} ms`);
    assert.ok(ms < 1000, `closed in ${Math.round(ms)} ms`);
    for (const stream of streams) assert.equal(await stream.done, 'ended');
    assert.equal(await accepts(served.url), false, 'nothing listens any more');
  });

  test('a call outlasting drainMs: answered with the deadline error, within the drain + 1 s', async (t) => {
    await using served = await serve();
    const mcp = new RawMcp(served.url);
    await mcp.initialize();
    const call = asStream(await mcp.post({ jsonrpc: '2.0', id: mcp.id(), method: 'tools/call', params: { name: 'wait', arguments: { key: 'never' } } }));
    await served.gates.started('never');
    const ms = await timedClose(served.http.close({ drainMs: DRAIN_MS }));
    t.diagnostic(`closed in ${Math.round(ms)} ms`);
    assert.ok(ms < DRAIN_MS + 1000, `closed in ${Math.round(ms)} ms`);
    assert.match(JSON.stringify(await mcp.responseOf(call)), /"error".*1000 ms/);
  });

  test('clients that never read (10 MB of log messages each, unread): within the drain + 1 s', async (t) => {
    await using served = await serve();
    const mcp = new RawMcp(served.url);
    await mcp.initialize();
    const flood = (id: number): Record<string, unknown> => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'flood', arguments: { count: 100, size: 100_000 } } });
    const stuck = await Promise.all([1, 2, 3].map((id) => neverReadingPost(served.url, mcp.sessionHeaders(), flood(100 + id))));
    // The messages are made at once: give them a moment to fill the sockets' buffers.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const ms = await timedClose(served.http.close({ drainMs: DRAIN_MS }));
    t.diagnostic(`closed in ${Math.round(ms)} ms`);
    assert.ok(ms < DRAIN_MS + 1000, `closed in ${Math.round(ms)} ms`);
    assert.equal(await accepts(served.url), false, 'nothing listens any more');
    for (const client of stuck) client.close();
  });
});
