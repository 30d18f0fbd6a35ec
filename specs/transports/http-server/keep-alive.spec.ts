/**
 * Keep-alive comments on request streams: a stream that waits for its answer keeps its connection alive with
 * comments every `keepAliveMs`; a stream the session answers while it opens (a synchronous handler, the usual
 * case) never arms the timer it would cancel at once.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TimerHandle } from '../../../core/clock.ts';
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
