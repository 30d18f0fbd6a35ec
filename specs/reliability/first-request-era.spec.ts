/**
 * A dual-era stdio server takes the era of a connection from its first *valid* request. Lines that fail to decode,
 * messages that are not requests, and requests valid in neither era get their error and decide nothing: the client
 * can still open a legacy session with `initialize`, or speak 2026-07-28 with a valid envelope. (A garbage first
 * request once made the connection modern, so the `initialize` after it was "Method not found", and so was `ping`.)
 * Real child processes, raw lines.
 */
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { RawStdioPeer, killRawPeers } from '../support/raw-stdio-peer.ts';

afterEach(killRawPeers);

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw-peer', version: '1.0.0' },
};

/** First lines that must decide nothing, each with the error code it gets (undefined: no answer at all). */
const STUMBLES: ReadonlyArray<{ readonly line: string; readonly code: number | undefined; readonly what: string }> = [
  { line: 'garbage', code: -32700, what: 'a line that is not JSON' },
  { line: '{"foo":1}', code: -32600, what: 'JSON that is not JSON-RPC' },
  { line: '[]', code: -32600, what: 'an empty batch' },
  { line: '{"jsonrpc":"2.0","id":7,"result":{}}', code: undefined, what: 'a response to nothing' },
  { line: '{"jsonrpc":"2.0","method":"notifications/whatever"}', code: undefined, what: 'a notification' },
  { line: '{"jsonrpc":"2.0","id":"first","method":"tools/list"}', code: -32602, what: 'a request without an envelope' },
  { line: '{"jsonrpc":"2.0","id":"first","method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}', code: -32602, what: 'a request with a broken envelope' },
  { line: '{"jsonrpc":"2.0","id":"first","method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}', code: -32022, what: 'a request claiming a version the server does not speak' },
];

for (const stumble of STUMBLES) {
  test(`stdio era - ${stumble.what} first decides nothing: initialize then opens a legacy session`, { timeout: 30_000 }, async () => {
    const peer = await RawStdioPeer.spawn();
    peer.write(`${stumble.line}\n`);
    const initialized = await peer.initialize();
    assert.equal((initialized['result'] as { protocolVersion?: string }).protocolVersion, '2025-06-18');
    peer.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    assert.deepEqual((await peer.request('ping', undefined, 5_000))['result'], {});
    const listed = await peer.request('tools/list', {}, 5_000);
    assert.ok('result' in listed, `tools/list in the legacy session: ${JSON.stringify(listed)}`);
    const stumbleAnswers = [...peer.unmatched(), ...peer.answersTo('first'), ...peer.answersTo(7)];
    if (stumble.code === undefined) assert.deepEqual(stumbleAnswers, [], 'nothing answers a non-request');
    else {
      assert.equal(stumbleAnswers.length, 1, `the stumble got exactly one answer: ${JSON.stringify(stumbleAnswers)}`);
      assert.equal((stumbleAnswers[0]?.['error'] as { code?: number } | undefined)?.code, stumble.code);
    }
    await peer.endInput();
    assert.deepEqual(await peer.exited, { code: 0, signal: null });
  });
}

test('stdio era - a request valid in neither era says how to open either, and a valid modern request then decides modern', { timeout: 30_000 }, async () => {
  const peer = await RawStdioPeer.spawn();
  // The first answer waits for the child to start (tsx compiles it on the fly).
  const refused = await peer.request('tools/list', undefined, 20_000);
  const error = refused['error'] as { code: number; message: string };
  assert.equal(error.code, -32602);
  assert.match(error.message, /_meta/);
  assert.match(error.message, /initialize/, 'a legacy client learns it should initialize');
  const listed = await peer.request('tools/list', { _meta: MODERN_META }, 5_000);
  assert.ok('result' in listed, `a valid modern request is served: ${JSON.stringify(listed)}`);
  // Now the connection speaks 2026-07-28, which has no initialize.
  const late = await peer.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } }, 5_000);
  assert.equal((late['error'] as { code?: number } | undefined)?.code, -32601);
  await peer.endInput();
  assert.deepEqual(await peer.exited, { code: 0, signal: null });
});
