/**
 * The burst that once hung a stdio server: after `initialize`, 10,000 `tools/call` lines in one write to a tool
 * that takes a second, while the client reads. The server used to answer a few thousand refusals, overflow its
 * outbound queue, drop the session silently and sit there: none of the accepted calls answered, `ping` unanswered.
 * Now it stops reading while it cannot write (stdin backpressure), so every id gets exactly one answer, the
 * refusals name the bound, and the session serves again once the load falls; also when the client stops reading
 * for a while in the middle of the burst.
 */
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { RawStdioPeer, killRawPeers } from '../support/raw-stdio-peer.ts';

afterEach(killRawPeers);

const BURST = 10_000;
const CAP = 256;

async function burstAndCheck(peer: RawStdioPeer, options: { readonly stopReadingMs?: number } = {}): Promise<void> {
  await peer.initialize();
  const lines = [JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })];
  for (let id = 1; id <= BURST; id++) lines.push(JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'slow', arguments: { ms: 1000 } } }));
  if (options.stopReadingMs !== undefined) peer.stopReading();
  peer.write(`${lines.join('\n')}\n`);
  if (options.stopReadingMs !== undefined) {
    await new Promise((resolve) => setTimeout(resolve, options.stopReadingMs));
    peer.resumeReading();
  }
  // Every call's id (the handshake's answer is among the answered ids too, so counting them is not enough).
  const answeredAll = (): boolean => {
    const answered = peer.answeredIds();
    for (let id = 1; id <= BURST; id++) if (!answered.has(id)) return false;
    return true;
  };
  await peer.waitFor(answeredAll, 60_000, `answers to all ${BURST} calls`);
  let results = 0;
  let refusals = 0;
  for (let id = 1; id <= BURST; id++) {
    const answers = peer.answersTo(id);
    assert.equal(answers.length, 1, `id ${id} answered exactly once (got ${answers.length})`);
    const answer = answers[0] as { result?: unknown; error?: { code: number; message: string; data?: unknown } };
    if (answer.result !== undefined) results += 1;
    else {
      assert.equal(answer.error?.code, -32603);
      assert.match(answer.error?.message ?? '', /at most 256 at once \(maxIncomingInFlight\)/);
      assert.deepEqual(answer.error?.data, { bound: 'maxIncomingInFlight', value: CAP });
      refusals += 1;
    }
  }
  assert.ok(results >= CAP, `the accepted calls were answered with results: ${results}`);
  assert.equal(results + refusals, BURST);
  assert.deepEqual(peer.unmatched(), [], 'no answer without a request id');
  // The process lives and the session serves again: a ping at once, then a call once the load fell.
  const pinged = Date.now();
  assert.deepEqual((await peer.request('ping', undefined, 5_000))['result'], {});
  assert.ok(Date.now() - pinged < 5_000);
  const after = await peer.request('tools/call', { name: 'slow', arguments: { ms: 10 } }, 10_000);
  assert.deepEqual((after as { result?: { content?: unknown } }).result?.content, [{ type: 'text', text: 'done' }]);
  assert.doesNotMatch(peer.stderr, /session ended/, 'the session was not dropped');
  await peer.endInput();
  assert.deepEqual(await peer.exited, { code: 0, signal: null });
  assert.match(peer.stderr, /burst-server: session ended\n/, 'an orderly end once stdin closed');
}

test('stdio burst - 10,000 calls in one write past the cap of 256: every id answered exactly once, then served again', { timeout: 120_000 }, async () => {
  await burstAndCheck(await RawStdioPeer.spawn());
});

test('stdio burst - the client stops reading for 2 s mid-burst: the server waits instead of dropping the session', { timeout: 120_000 }, async () => {
  await burstAndCheck(await RawStdioPeer.spawn(), { stopReadingMs: 2_000 });
});
