/**
 * Bad input on a live server session, fed by a hand-written client over a JSON byte pair. After each case the
 * same session must still answer ping and tools/list, and an independent session pair in the same process must
 * keep working. Every session transport is checked by the schema oracle.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { SessionDiagnostic } from '../../actors/session-context.ts';
import type { JsonObject } from '../../core/jsonrpc.ts';
import {
  type RawClientHarness,
  type RawClientOptions,
  type SessionPair,
  type WireResponse,
  createPair,
  deferred,
  eventually,
  handlers,
  isIdlessError,
  isRecord,
  isResponse,
  isResponseTo,
  rawClient,
  within,
} from '../support/harness.ts';

const TOOLS = { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] };

function toolsServer(extra: Parameters<typeof handlers>[0] = {}, notifications: Parameters<typeof handlers>[1] = {}): NonNullable<RawClientOptions['server']> {
  return { capabilities: { tools: {} }, handlers: handlers({ 'tools/list': () => TOOLS, ...extra }, notifications) };
}

/** A server session fed JSON bytes by a raw client; initialized unless `version` is null. */
async function live(version: string | null = '2025-11-25', options: RawClientOptions = {}): Promise<RawClientHarness> {
  const h = rawClient({ bytes: true, server: toolsServer(), ...options });
  if (version !== null) await h.initialize(version);
  return h;
}

let checks = 0;
let bystander: SessionPair;

/** The same session still serves, and so does an independent pair. */
async function stillServing(h: RawClientHarness): Promise<void> {
  const n = ++checks;
  assert.deepEqual((await h.peer.call(`ping-${n}`, 'ping')).result, {});
  if (h.session.state === 'operating') assert.deepEqual((await h.peer.call(`list-${n}`, 'tools/list')).result, TOOLS);
  assert.deepEqual(await within(bystander.client.request('tools/list')), TOOLS);
  await within(bystander.server.ping());
}

async function idlessError(h: RawClientHarness): Promise<WireResponse> {
  return (await h.peer.nextMessage(isIdlessError)) as WireResponse;
}

function collect(h: RawClientHarness): SessionDiagnostic[] {
  const seen: SessionDiagnostic[] = [];
  h.session.diagnostics$.subscribe((diagnostic) => seen.push(diagnostic));
  return seen;
}

describe('bad input', () => {
  before(async () => {
    bystander = await createPair({ server: toolsServer() });
  });

  after(async () => {
    bystander.assertClean();
    await bystander.close();
  });

  test('bad input - malformed JSON bytes get -32700 without an id', async () => {
    await using h = await live();
    const diagnostics = collect(h);
    h.peer.sendBytes('{"jsonrpc":"2.0","id":1,"method":');
    const response = await idlessError(h);
    assert.equal(response.error?.code, -32700);
    assert.match(response.error?.message ?? '', /Parse error/);
    assert.ok(diagnostics.some((diagnostic) => diagnostic.type === 'malformed-frame'));
    await stillServing(h);
    h.oracle.assertClean();
  });

  test('bad input - a JSON value that is not an object gets -32600 without an id', async () => {
    await using h = await live();
    for (const value of [42, 'x', null, true]) {
      h.peer.send(value);
      const response = await idlessError(h);
      assert.equal(response.error?.code, -32600, JSON.stringify(value));
      assert.match(response.error?.message ?? '', /must be a JSON object/);
    }
    await stillServing(h);
    h.oracle.assertClean();
  });

  test('bad input - a missing or wrong jsonrpc member gets -32600 for the readable id', async () => {
    await using h = await live();
    h.peer.send({ id: 'no-version', method: 'ping' });
    h.peer.send({ jsonrpc: '1.0', id: 'old-version', method: 'ping' });
    for (const id of ['no-version', 'old-version']) {
      const response = (await h.peer.nextMessage(isResponseTo(id))) as WireResponse;
      assert.equal(response.error?.code, -32600, id);
      assert.match(response.error?.message ?? '', /"jsonrpc"/, id);
      assert.equal(response.result, undefined, id);
    }
    await stillServing(h);
    h.oracle.assertClean();
  });

  test('bad input - an id that is null, an object or a fraction gets -32600 without an id', async () => {
    await using h = await live();
    for (const id of [null, {}, 1.5]) {
      h.peer.send({ jsonrpc: '2.0', id, method: 'ping' });
      const response = await idlessError(h);
      assert.equal(response.error?.code, -32600, JSON.stringify(id));
      assert.match(response.error?.message ?? '', /id must be a string or an integer/);
    }
    await h.peer.expectNone((message) => isResponse(message) && 'result' in message, 20);
    await stillServing(h);
    h.oracle.assertClean();
  });

  test('bad input - an unknown method gets -32601 naming it', async () => {
    await using h = await live();
    const response = await h.peer.call('unknown', 'does/not/exist', {});
    assert.equal(response.error?.code, -32601);
    assert.match(response.error?.message ?? '', /does\/not\/exist/);
    await stillServing(h);
    h.oracle.assertClean();
  });

  test('bad input - params that are not an object get -32600', async () => {
    await using h = await live();
    for (const [id, params] of [['array', [1, 2]], ['string', 'x']] as const) {
      h.peer.send({ jsonrpc: '2.0', id, method: 'tools/list', params });
      const response = (await h.peer.nextMessage(isResponseTo(id))) as WireResponse;
      assert.equal(response.error?.code, -32600, id);
      assert.match(response.error?.message ?? '', /"params" member must be an object/, id);
    }
    await stillServing(h);
    h.oracle.assertClean();
  });

  test('bad input - a response carrying both result and error is refused without a crash', async () => {
    await using h = await live();
    const diagnostics = collect(h);
    h.peer.send({ jsonrpc: '2.0', id: 'both', result: {}, error: { code: -32603, message: 'both' } });
    const response = await idlessError(h);
    assert.equal(response.error?.code, -32600);
    assert.match(response.error?.message ?? '', /both "result" and "error"/);
    assert.ok(diagnostics.some((diagnostic) => diagnostic.type === 'invalid-message' && /both/.test(diagnostic.detail)));
    await stillServing(h);
    h.oracle.assertClean();
  });

  test('bad input - a broken response is never answered with its id (that id names one of our requests)', async () => {
    const started = deferred();
    const release = deferred();
    const server = toolsServer({
      'tools/call': async () => {
        started.resolve();
        await release.promise;
        return { content: [{ type: 'text', text: 'done' }] };
      },
    });
    await using h = rawClient({ bytes: true, server });
    await h.initialize('2025-11-25', { capabilities: { roots: {} } });
    const roots = h.session.request('roots/list');
    const rootsRequest = await h.peer.nextMessage((message) => isRecord(message) && message['method'] === 'roots/list');
    const id = isRecord(rootsRequest) ? (rootsRequest['id'] as string | number) : -1;
    // The client uses the same id for its own request: legal, the two directions have separate id spaces.
    h.peer.request(id, 'tools/call', { name: 'slow', arguments: {} });
    await within(started.promise);
    h.peer.send({ jsonrpc: '2.0', id, result: { roots: [] }, error: { code: -32603, message: 'both' } });
    h.peer.send({ jsonrpc: '2.0', id, error: 'not an error object' });
    for (let i = 0; i < 2; i++) assert.equal((await idlessError(h)).error?.code, -32600);
    assert.equal(h.peer.received.some(isResponseTo(id)), false, 'no response answers the running tools/call early');
    release.resolve();
    const answer = (await h.peer.nextMessage(isResponseTo(id))) as WireResponse;
    assert.deepEqual(answer.result, { content: [{ type: 'text', text: 'done' }] });
    // The broken responses did not settle the server's roots/list; a proper one does.
    h.peer.respond(id, { roots: [] });
    assert.deepEqual(await within(roots), { roots: [] });
    await stillServing(h);
    h.oracle.assertClean();
  });

  test('bad input - an oversized message gets -32600 naming the limit', async () => {
    await using h = await live('2025-11-25', { maxMessageBytes: 1024 });
    h.peer.send({ jsonrpc: '2.0', id: 'big', method: 'ping', params: { _meta: { padding: 'x'.repeat(2000) } } });
    const response = await idlessError(h);
    assert.equal(response.error?.code, -32600);
    assert.match(response.error?.message ?? '', /1024 bytes/);
    assert.equal(h.peer.received.some(isResponseTo('big')), false);
    await stillServing(h);
    h.oracle.assertClean();
  });

  test('bad input - a request before initialize gets -32600 and the session can still be initialized', async () => {
    await using h = await live(null);
    const early = await h.peer.call('early', 'tools/list');
    assert.equal(early.error?.code, -32600);
    assert.match(early.error?.message ?? '', /not initialized/);
    await stillServing(h);
    await h.initialize();
    await stillServing(h);
    h.oracle.assertClean();
  });

  test('bad input - a batch under 2025-06-18 gets -32600 (batches)', async () => {
    await using h = await live('2025-06-18');
    h.peer.send([{ jsonrpc: '2.0', id: 'b1', method: 'ping' }, { jsonrpc: '2.0', id: 'b2', method: 'ping' }]);
    const response = await idlessError(h);
    assert.equal(response.error?.code, -32600);
    assert.match(response.error?.message ?? '', /batches/);
    assert.equal(h.peer.received.some((message) => Array.isArray(message) || isResponseTo('b1')(message)), false);
    await stillServing(h);
    h.oracle.assertClean();
  });

  test('bad input - a batch under 2025-03-26 gets one array with a result per request', async () => {
    const notified = deferred();
    await using h = rawClient({ bytes: true, server: toolsServer({}, { 'notifications/roots/list_changed': () => notified.resolve() }) });
    await h.initialize('2025-03-26', { capabilities: { roots: { listChanged: true } } });
    h.peer.send([
      { jsonrpc: '2.0', id: 'b1', method: 'ping' },
      { jsonrpc: '2.0', id: 'b2', method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
    ]);
    const batch = await h.peer.nextMessage(Array.isArray);
    assert.ok(Array.isArray(batch));
    const byId = new Map(batch.filter(isRecord).map((entry) => [entry['id'], entry['result']]));
    assert.equal(batch.length, 2);
    assert.deepEqual(byId, new Map([['b1', {}], ['b2', {}]]));
    await within(notified.promise);
    await stillServing(h);
    h.oracle.assertClean();
  });

  test('bad input - an empty batch under 2025-03-26 gets -32600', async () => {
    await using h = await live('2025-03-26');
    h.peer.send([]);
    const response = await idlessError(h);
    assert.equal(response.error?.code, -32600);
    assert.match(response.error?.message ?? '', /empty batch/);
    await stillServing(h);
    h.oracle.assertClean();
  });

  test('bad input - a duplicate id while the first request runs gets -32600 and the first still completes', async () => {
    const started = deferred();
    const release = deferred();
    const server = toolsServer({
      'tools/call': async () => {
        started.resolve();
        await release.promise;
        return { content: [{ type: 'text', text: 'first' }] };
      },
    });
    await using h = await live('2025-11-25', { server });
    h.peer.request('dup', 'tools/call', { name: 'slow', arguments: {} });
    await within(started.promise);
    h.peer.request('dup', 'tools/call', { name: 'slow', arguments: {} });
    // The refusal must not carry the id: the requester would take it as the answer to the running request.
    const refusal = await idlessError(h);
    assert.equal(refusal.error?.code, -32600);
    assert.match(refusal.error?.message ?? '', /"dup" is already in use/);
    assert.equal(h.peer.received.some(isResponseTo('dup')), false);
    release.resolve();
    const first = (await h.peer.nextMessage((message) => isResponse(message) && 'result' in message)) as WireResponse;
    assert.equal(first.id, 'dup');
    assert.deepEqual(first.result, { content: [{ type: 'text', text: 'first' }] });
    assert.equal(h.peer.received.filter(isResponseTo('dup')).length, 1, 'exactly one response carries the id');
    await stillServing(h);
    h.oracle.assertClean();
  });

  test('bad input - a progressToken that is an object gets -32602', async () => {
    let calls = 0;
    const server = toolsServer({
      'tools/call': () => {
        calls++;
        return { content: [] };
      },
    });
    await using h = await live('2025-11-25', { server });
    const params: JsonObject = { name: 'echo', arguments: {}, _meta: { progressToken: { nested: true } } };
    const response = await h.peer.call('token', 'tools/call', params);
    assert.equal(response.error?.code, -32602);
    assert.match(response.error?.message ?? '', /progressToken/);
    assert.equal(calls, 0);
    await stillServing(h);
    h.oracle.assertClean();
  });

  test('bad input - a late response and progress for an unknown token are dropped and reported on diagnostics$', async () => {
    await using h = await live();
    const diagnostics = collect(h);
    const sentBefore = h.wire.sent.length;
    h.peer.send({ jsonrpc: '2.0', id: 999, result: {} });
    h.peer.send({ jsonrpc: '2.0', id: 998, error: { code: -32603, message: 'late failure' } });
    h.peer.notify('notifications/progress', { progressToken: 'nobody', progress: 1 });
    await eventually(() => diagnostics.length >= 3, 200, 'three diagnostics');
    assert.deepEqual(diagnostics.map((diagnostic) => diagnostic.type), ['dropped-response', 'dropped-response', 'dropped-progress']);
    assert.match(diagnostics[0]?.detail ?? '', /999/);
    assert.match(diagnostics[1]?.detail ?? '', /998/);
    assert.match(diagnostics[2]?.detail ?? '', /nobody/);
    await h.peer.expectNone(() => true, 20);
    assert.equal(h.wire.sent.length, sentBefore, 'nothing answers a dropped message');
    await stillServing(h);
    h.oracle.assertClean();
  });
});
