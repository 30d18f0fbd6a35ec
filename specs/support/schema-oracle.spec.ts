import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defer, Subject } from 'rxjs';
import type { InboundFrame, OutboundFrame, Transport } from '../../core/transport.ts';
import type { JsonRpcMessage, WirePayload } from '../../core/jsonrpc.ts';
import { formatViolations, RESULT_DEFINITIONS, SCHEMA_REVISIONS, validateMessage, withSchemaOracle } from './schema-oracle.ts';
import { loadRevisionSchema } from './schema-registry.ts';

const LEGACY = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;
const MODERN = '2026-07-28';

/** A transport that records what is sent and lets the test push inbound frames; counts subscriptions. */
function fakeTransport() {
  const inbound = new Subject<InboundFrame>();
  const sent: OutboundFrame[] = [];
  let subscriptions = 0;
  const transport: Transport = {
    kind: 'fake',
    incoming$: defer(() => {
      subscriptions += 1;
      return inbound;
    }),
    send: (frame) => {
      sent.push(frame);
    },
    close: async () => inbound.complete(),
  };
  return { transport, sent, receive: (payload: unknown) => inbound.next({ type: 'message', payload }), subscriptions: () => subscriptions };
}

/** Wraps a fake transport, subscribes once (as a session would), and returns helpers. */
function harness(revision?: string) {
  const fake = fakeTransport();
  const { transport, oracle } = withSchemaOracle(fake.transport, revision === undefined ? {} : { revision: () => revision });
  transport.incoming$.subscribe();
  const send = (payload: unknown): void => {
    void transport.send({ payload: payload as WirePayload });
  };
  return { ...fake, transport, oracle, send };
}

const ping = (id: number | string): JsonRpcMessage => ({ jsonrpc: '2.0', id, method: 'ping' });
const empty = (id: number | string) => ({ jsonrpc: '2.0', id, result: {} });
const modernMeta = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} };
const initializeResult = (protocolVersion: string) => ({
  protocolVersion,
  capabilities: { tools: {} },
  serverInfo: { name: 'rxmcp-test', version: '0.0.0' },
});

test('schema oracle - behaviour: valid ping request and response pass in every legacy revision', () => {
  for (const revision of LEGACY) {
    const h = harness(revision);
    h.send(ping(1));
    h.receive(ping('peer-1'));
    h.send(empty('peer-1'));
    assert.equal(h.oracle.checked, 2, revision);
    assert.deepEqual(h.oracle.violations, [], revision);
    h.oracle.assertClean();
  }
});

test('schema oracle - behaviour: 2026-07-28 has no ping; server/discover and its result pass', () => {
  assert.match(validateMessage(MODERN, ping(1)).join('\n'), /method ping does not exist in revision 2026-07-28/);
  const h = harness(MODERN);
  h.send({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: modernMeta } });
  h.receive({ jsonrpc: '2.0', id: 'd', method: 'server/discover', params: { _meta: modernMeta } });
  h.send({
    jsonrpc: '2.0',
    id: 'd',
    result: { resultType: 'complete', supportedVersions: [MODERN], capabilities: {}, cacheScope: 'public', ttlMs: 0 },
  });
  h.oracle.assertClean();
  assert.equal(h.oracle.checked, 2);
});

test('schema oracle - behaviour: an initialize result missing serverInfo fails; a complete one passes', () => {
  for (const revision of LEGACY) {
    const { serverInfo: _dropped, ...withoutServerInfo } = initializeResult(revision);
    const errors = validateMessage(revision, { jsonrpc: '2.0', id: 0, result: withoutServerInfo }, { method: 'initialize' });
    assert.match(errors.join('\n'), /serverInfo/, revision);
    assert.deepEqual(validateMessage(revision, { jsonrpc: '2.0', id: 0, result: initializeResult(revision) }, { method: 'initialize' }), []);
  }
});

test('schema oracle - behaviour: the oracle learns the negotiated revision from an initialize result', () => {
  const h = harness(); // no revision function
  h.send({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
  });
  h.receive({ jsonrpc: '2.0', id: 0, result: initializeResult('2025-03-26') });
  h.send([ping(1), ping(2)]); // batches are legal only because 2025-03-26 was learned
  h.oracle.assertClean();
  h.send({ jsonrpc: '2.0', id: 3, method: 'server/discover', params: { _meta: modernMeta } });
  assert.equal(h.oracle.violations.length, 1);
  assert.equal(h.oracle.violations[0]?.revision, '2025-03-26');
});

test('schema oracle - behaviour: id null fails in every revision', () => {
  for (const revision of [...LEGACY, MODERN]) {
    const error = { code: -32600, message: 'Invalid Request' };
    assert.notDeepEqual(validateMessage(revision, { jsonrpc: '2.0', id: null, error }), [], revision);
    assert.notDeepEqual(validateMessage(revision, { jsonrpc: '2.0', id: null, method: 'tools/list' }), [], revision);
  }
});

test('schema oracle - behaviour: a tools/call result whose content item has an unknown type fails', () => {
  const content = [{ type: 'hologram', text: 'hi' }];
  for (const revision of LEGACY) {
    const h = harness(revision);
    h.receive({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'echo', arguments: {} } });
    h.send({ jsonrpc: '2.0', id: 7, result: { content } });
    assert.equal(h.oracle.violations.length, 1, revision);
    assert.match(h.oracle.violations[0]?.errors ?? '', /result\(CallToolResult\)\/content\/0/, revision);
    assert.throws(() => h.oracle.assertClean(), /CallToolResult/);
    assert.deepEqual(validateMessage(revision, { jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'hi' }] } }, { method: 'tools/call' }), []);
  }
  const modern = { jsonrpc: '2.0', id: 7, result: { resultType: 'complete', content } };
  assert.notDeepEqual(validateMessage(MODERN, modern, { method: 'tools/call' }), []);
});

test('schema oracle - behaviour: batches exist in 2025-03-26 only', () => {
  const batchResponse = [empty(1), { jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'Method not found' } }];
  assert.deepEqual(validateMessage('2025-03-26', batchResponse), []);
  assert.deepEqual(validateMessage('2025-03-26', [ping(1), { jsonrpc: '2.0', method: 'notifications/initialized' }]), []);
  for (const revision of ['2024-11-05', '2025-06-18', '2025-11-25', MODERN]) {
    assert.match(validateMessage(revision, batchResponse).join('\n'), /batches do not exist/, revision);
  }
  const h = harness('2025-06-18');
  h.send([ping(1)]);
  assert.equal(h.oracle.violations.length, 1);
  assert.equal(h.sent.length, 1, 'the frame is still delegated');
  // Elements are validated one by one, and a mixed batch is refused.
  assert.match(validateMessage('2025-03-26', [ping(1), { jsonrpc: '2.0', id: 2, method: 'nope' }]).join('\n'), /\[1\] method nope/);
  assert.match(validateMessage('2025-03-26', [ping(1), empty(2)]).join('\n'), /mix/);
});

test('schema oracle - behaviour: an unknown method fails, per revision', () => {
  assert.match(validateMessage('2025-06-18', { jsonrpc: '2.0', id: 1, method: 'tools/frobnicate' }).join(), /method tools\/frobnicate does not exist in revision 2025-06-18/);
  assert.match(validateMessage('2025-03-26', { jsonrpc: '2.0', id: 1, method: 'elicitation/create', params: {} }).join(), /does not exist/);
  assert.match(validateMessage('2025-06-18', { jsonrpc: '2.0', id: 1, method: 'tasks/list' }).join(), /does not exist/);
  assert.match(validateMessage(MODERN, { jsonrpc: '2.0', id: 1, method: 'sampling/createMessage', params: {} }).join(), /does not exist/);
  assert.match(validateMessage('2025-11-25', { jsonrpc: '2.0', method: 'notifications/initialized', id: 4 }).join(), /notification .* with an id/);
  assert.match(validateMessage('2099-01-01', ping(1)).join(), /no schema for revision 2099-01-01/);
  const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
  assert.match(validateMessage('2025-06-18', list, { role: 'server' }).join(), /a server may not send tools\/list/);
  assert.deepEqual(validateMessage('2025-06-18', list, { role: 'client' }), []);
});

test('schema oracle - behaviour: an id-less parse error passes in every revision; a malformed one does not', () => {
  for (const revision of [...LEGACY, MODERN]) {
    assert.deepEqual(validateMessage(revision, { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' } }), [], revision);
    assert.notDeepEqual(validateMessage(revision, { jsonrpc: '2.0', error: { code: 'x', message: 'Parse error' } }), [], revision);
  }
});

test('schema oracle - behaviour: results are matched to the request they answer', () => {
  const h = harness('2025-11-25');
  h.send(empty(99)); // answers nothing
  h.receive({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
  h.send({ jsonrpc: '2.0', id: 1, result: { tools: [] } });
  h.send({ jsonrpc: '2.0', id: 1, result: { tools: [] } }); // a second answer
  h.receive({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
  h.send(empty(2)); // the wrong result shape for tools/list
  assert.deepEqual(h.oracle.violations.map((v) => (v.message as { id: number }).id), [99, 1, 2]);
  assert.match(formatViolations(h.oracle.violations), /ListToolsResult/);
  // Task-augmented requests may be answered with CreateTaskResult (2025-11-25).
  h.receive({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'slow', task: { ttl: 1000 } } });
  const task = { taskId: 't1', status: 'working', createdAt: '2025-01-01T00:00:00Z', lastUpdatedAt: '2025-01-01T00:00:00Z', ttl: 1000 };
  h.send({ jsonrpc: '2.0', id: 3, result: { task } });
  assert.equal(h.oracle.violations.length, 3, formatViolations(h.oracle.violations));
});

test('schema oracle - behaviour: 2026-07-28 accepts InputRequiredResult only where the schema allows it', () => {
  const inputRequired = { resultType: 'input_required', inputRequests: { r1: { method: 'roots/list' } } };
  assert.deepEqual(validateMessage(MODERN, { jsonrpc: '2.0', id: 1, result: inputRequired }, { method: 'tools/call' }), []);
  assert.match(validateMessage(MODERN, { jsonrpc: '2.0', id: 1, result: inputRequired }, { method: 'tools/list' }).join(), /may not be answered with an InputRequiredResult/);
  const missingResultType = { jsonrpc: '2.0', id: 1, result: { content: [] } };
  assert.notDeepEqual(validateMessage(MODERN, missingResultType, { method: 'tools/call' }), []);
});

test('schema oracle - behaviour: the method to result table resolves to specific definitions', () => {
  for (const revision of SCHEMA_REVISIONS) {
    const schema = loadRevisionSchema(revision);
    for (const [method, wire] of schema.methods) {
      if (wire.kind !== 'request') continue;
      const expected = RESULT_DEFINITIONS[method];
      assert.ok(expected !== undefined, `${method} (${revision}) is missing from RESULT_DEFINITIONS`);
      assert.equal(schema.resultDefinition(method), expected, `${method} in ${revision}`);
    }
  }
  assert.deepEqual([...loadRevisionSchema(MODERN).methods.keys()].filter((m) => loadRevisionSchema(MODERN).acceptsInputRequired(m)).sort(), [
    'prompts/get',
    'resources/read',
    'tools/call',
  ]);
});

test('schema oracle - behaviour: assertClean throws when nothing was checked; the wrapper delegates', async () => {
  const h = harness();
  assert.throws(() => h.oracle.assertClean(), /no message was checked/);
  assert.equal(h.subscriptions(), 1, 'incoming$ is mapped through, not subscribed by the oracle');
  assert.equal(h.transport.kind, 'fake');
  h.send({ not: 'json-rpc' });
  assert.equal(h.sent.length, 1);
  assert.throws(() => h.oracle.assertClean(), /1 of 1 sent messages/);
  await h.transport.close();
});
