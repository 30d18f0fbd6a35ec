/**
 * The checker and the renderer on hand-made outcomes: each broken promise is reported, and a server that keeps
 * them all passes. (The properties are only as strong as this.)
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { check, outstanding } from './checker.ts';
import { renderScenario } from './script.ts';
import type { Scenario } from './traffic.ts';

const scenario: Scenario = {
  era: 'legacy',
  revision: '2025-11-25',
  prelude: [{ kind: 'premature', method: 'tools/list' }],
  steps: [
    { kind: 'ping' },
    { kind: 'call', tool: 'slow', ms: 50 },
    { kind: 'collide' },
    { kind: 'call', tool: 'throws', ms: 0 },
    { kind: 'cancel', back: 0 },
    { kind: 'orphan-response', error: false },
    { kind: 'wrong-version', version: '1.0' },
  ],
  stopReadingAtEnd: false,
};
const script = renderScenario(scenario);
const result = (id: unknown): unknown => ({ jsonrpc: '2.0', id, result: {} });
const error = (id: unknown, code = -32600, message = 'no'): unknown => ({ jsonrpc: '2.0', id, error: { code, message } });
// premature-1, init, 2 ping, 3 slow (reused once), 4 throws (cancelled), orphan-5, bad-6
const kept = [error('premature-1'), result('init'), result(2), result(3), error(undefined), error('bad-6')];
const reading = { stoppedReading: false, stalledReading: false };

test('checker - a server that keeps every promise passes', () => {
  assert.deepEqual(check(script, { messages: kept, ...reading }), []);
  assert.deepEqual(outstanding(script, kept), []);
});

test('checker - a missing answer while the session stays open is reported', () => {
  const messages = kept.filter((message) => (message as { id?: unknown }).id !== 2);
  assert.deepEqual(outstanding(script, messages).map((entry) => entry.id), [2]);
  assert.match(check(script, { messages, ...reading }).join('\n'), /1 valid requests never answered while the session stayed open, first id 2 \(ping\)/);
});

test('checker - an answer twice, an answer to a response, a result to an invalid frame, an unknown id are reported', () => {
  const violations = check(script, { messages: [...kept, result(2), result('orphan-5'), result(99)], ...reading }).join('\n');
  assert.match(violations, /id 2 \(ping\) was answered 2 times \(at most 1\)/);
  assert.match(violations, /an answer to id "orphan-5" \(response to nothing\), which owed none/);
  assert.match(violations, /an answer to id 99, which was never sent/);
  const invalid = check(script, { messages: [...kept.filter((message) => (message as { id?: unknown }).id !== 'bad-6'), result('bad-6')], ...reading });
  assert.match(invalid.join('\n'), /a result for id "bad-6" \(wrong jsonrpc version\), which was no request/);
});

test('checker - a request that can only succeed may be refused only for the in-flight cap', () => {
  const refused = kept.map((message) => ((message as { id?: unknown }).id === 2 ? error(2, -32601, 'Method not found: ping') : message));
  assert.match(check(script, { messages: refused, ...reading }).join('\n'), /id 2 \(ping\) was refused: -32601/);
  const capped = kept.map((message) => ((message as { id?: unknown }).id === 2 ? error(2, -32603, 'Too many requests in flight (256); retry later') : message));
  assert.deepEqual(check(script, { messages: capped, ...reading }), []);
});

test('checker - a session that ends must say why, and must not end while its client reads', () => {
  const messages = kept.filter((message) => (message as { id?: unknown }).id !== 3);
  assert.deepEqual(check(script, { messages, ended: { reason: 'SlowConsumer: the queue is full' }, stoppedReading: false, stalledReading: true }), []);
  assert.match(check(script, { messages, ended: { reason: undefined }, stoppedReading: false, stalledReading: true }).join('\n'), /ended without a reason the client could see/);
  assert.match(check(script, { messages, ended: { reason: 'SlowConsumer' }, ...reading }).join('\n'), /the session ended although the client read everything all along: SlowConsumer/);
});

test('render - a batch outside 2025-03-26 owes nothing per item; inside it, an answer per request', () => {
  const batch: Scenario = { ...scenario, prelude: [], steps: [{ kind: 'batch', items: [{ kind: 'ping' }, { kind: 'garbage', text: 'x' }] }] };
  const refused = renderScenario(batch);
  assert.equal(refused.ledger.get('number:1')?.owed, 'nothing');
  const served = renderScenario({ ...batch, revision: '2025-03-26' });
  assert.equal(served.ledger.get('number:1')?.owed, 'answer');
  const frames = served.actions.flatMap((action) => (action.type === 'frames' ? action.frames : []));
  assert.deepEqual(JSON.parse(frames.at(-1)?.text ?? ''), [{ jsonrpc: '2.0', id: 1, method: 'ping' }], 'garbage is left out of a batch');
});

test('checker - requests sent before the client closed its input must be answered before the server goes', () => {
  const messages = kept.filter((message) => (message as { id?: unknown }).id !== 2);
  const observed = { messages, ended: { reason: undefined }, stoppedReading: false, stalledReading: false, inputEnded: true };
  assert.match(check(script, observed).join('\n'), /1 requests sent before the client closed its input were never answered \(first id 2 \(ping\)\)/);
  assert.deepEqual(check(script, { ...observed, messages: kept }), [], 'an orderly end after every answer is no violation');
});
