/**
 * Keep-alive comments on request streams: a stream that waits for its answer keeps its connection alive with
 * comments every `keepAliveMs`; a stream the session answers while it opens (a synchronous handler, the usual
 * case) never arms the timer it would cancel at once. A stream that says nothing yet still has its headers sent
 * (the node adapter flushes them on the next turn of the event loop).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TimerHandle } from '../../../core/clock.ts';
import { createServer } from '../../../server/create-server.ts';
import { createStreamableHttpServer } from '../../../transports/http/index.ts';
import { RawMcp, asStream } from '../../support/http-raw-client.ts';
import { TestClock } from '../../support/test-clock.ts';
import { answers, nextMessage, resultText, serve } from './fixtures.ts';

const KEEP_ALIVE_MS = 5000;

test('keep-alive: streams answered while they open arm no timer; a stream that waits keeps alive until its answer', async () => {
  const clock = new TestClock(Date.now());
  let armed = 0;
  const setInterval = clock.setInterval.bind(clock);
  clock.setInterval = (callback: () => void, ms: number): TimerHandle => {
    if (ms === KEEP_ALIVE_MS) armed++;
    return setInterval(callback, ms);
  };
  await using served = await serve({ clock, sse: { keepAliveMs: KEEP_ALIVE_MS } });
  const mcp = new RawMcp(served.url);
  await mcp.initialize('2025-11-25');

  const echoId = mcp.id();
  const echo = asStream(await mcp.post({ jsonrpc: '2.0', id: echoId, method: 'tools/call', params: { name: 'echo', arguments: { text: 'now' } } }));
  assert.equal(resultText(await nextMessage(echo, answers(echoId))), 'echo: now');
  assert.equal(await echo.done, 'ended');
  assert.equal(armed, 0, 'the initialize and echo streams were answered while they opened: no keep-alive timer');

  const waitId = mcp.id();
  const wait = asStream(await mcp.post({ jsonrpc: '2.0', id: waitId, method: 'tools/call', params: { name: 'wait', arguments: { key: 'k' } } }));
  await wait.next((event) => event.data.includes('waiting'));
  assert.equal(armed, 1, 'a stream waiting for its answer keeps alive');
  const pending = clock.pending;
  served.gates.open('k');
  assert.equal(resultText(await nextMessage(wait, answers(waitId))), 'done k');
  assert.equal(await wait.done, 'ended');
  assert.equal(clock.pending, pending - 1, 'its timer went with the stream');
  mcp.assertClean();
});

test('a request stream that stays quiet (no priming, nothing said yet) gets its headers at once, not with its first event', async () => {
  const clock = new TestClock(Date.now());
  let finish = (): void => undefined;
  const server = createServer({ name: 'quiet', version: '1' });
  server.tool({ name: 'quiet' }, () => new Promise<string>((resolve) => (finish = () => resolve('said at last'))));
  const http = createStreamableHttpServer({ server, clock, sse: { keepAliveMs: KEEP_ALIVE_MS } });
  const { url } = await http.listen();
  try {
    const mcp = new RawMcp(url);
    await mcp.initialize('2025-06-18');
    const id = mcp.id();
    const opened = mcp.post({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'quiet', arguments: {} } });
    // The keep-alive clock never moves: only the flush of the headers can answer the POST before the tool does.
    const first = await Promise.race([opened.then(() => 'headers'), new Promise<string>((resolve) => setTimeout(() => resolve('nothing within 5 s'), 5000))]);
    assert.equal(first, 'headers');
    const stream = asStream(await opened);
    assert.equal(stream.status, 200);
    assert.equal(stream.events.length, 0, 'nothing was said yet');
    finish();
    assert.equal(resultText(await nextMessage(stream, answers(id))), 'said at last');
  } finally {
    await http.close();
    await server.close();
  }
});
