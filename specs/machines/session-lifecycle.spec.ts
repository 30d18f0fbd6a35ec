/**
 * The legacy session lifecycle as a peer sees it on the wire: the server driven by a hand-written client,
 * the client connecting to a hand-written server. Every session transport is checked by the schema oracle.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isLocalError, isWireError } from '../../core/errors.ts';
import type { JsonObject, RequestId } from '../../core/jsonrpc.ts';
import {
  type JsonRecord,
  createPair,
  clientInfo,
  deferred,
  delay,
  handlers,
  isRecord,
  isRequestFor,
  isResponseTo,
  rawClient,
  rawServer,
  within,
} from '../support/harness.ts';

const toolsServer = (call: Parameters<typeof handlers>[0] = {}) => ({
  capabilities: { tools: {} },
  handlers: handlers({ 'tools/list': () => ({ tools: [] }), ...call }),
});

const textResult = (text: string): JsonObject => ({ content: [{ type: 'text', text }] });

describe('server lifecycle', () => {
  test('server lifecycle - ping before initialize is answered', async () => {
    await using h = rawClient();
    const response = await h.peer.call('early-ping', 'ping');
    assert.deepEqual(response.result, {});
    assert.equal(h.session.state, 'awaitingInitialize');
    h.oracle.assertClean();
  });

  test('server lifecycle - a request before initialize gets -32600 (not initialized) and a later initialize works', async () => {
    await using h = rawClient({ server: toolsServer() });
    const early = await h.peer.call(1, 'tools/list');
    assert.equal(early.error?.code, -32600);
    assert.match(early.error?.message ?? '', /not initialized/);
    assert.equal(h.session.state, 'awaitingInitialize');
    const init = await h.initialize();
    assert.equal(init.result?.['protocolVersion'], '2025-11-25');
    const later = await h.peer.call(2, 'tools/list');
    assert.deepEqual(later.result, { tools: [] });
    assert.equal(h.session.state, 'operating');
    h.oracle.assertClean();
  });

  test('server lifecycle - a second initialize gets -32600', async () => {
    await using h = rawClient();
    await h.initialize();
    const again = await h.peer.call('again', 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo });
    assert.equal(again.error?.code, -32600);
    assert.match(again.error?.message ?? '', /already initialized/);
    assert.equal(h.session.state, 'operating');
    h.oracle.assertClean();
  });

  test('server lifecycle - initialize with bad params gets -32602 and the session keeps awaiting initialize', async () => {
    await using h = rawClient();
    const bad: ReadonlyArray<readonly [string, JsonObject, RegExp]> = [
      ['no clientInfo', { protocolVersion: '2025-11-25', capabilities: {} }, /clientInfo/],
      ['numeric version', { protocolVersion: 20251125, capabilities: {}, clientInfo }, /protocolVersion/],
      ['capabilities array', { protocolVersion: '2025-11-25', capabilities: [], clientInfo }, /capabilities/],
      ['capabilities string', { protocolVersion: '2025-11-25', capabilities: 'all', clientInfo }, /capabilities/],
    ];
    for (const [label, params, why] of bad) {
      const response = await h.peer.call(`bad-${label}`, 'initialize', params);
      assert.equal(response.error?.code, -32602, label);
      assert.match(response.error?.message ?? '', why, label);
      assert.equal(h.session.state, 'awaitingInitialize', label);
      assert.equal(h.session.revision, undefined, label);
    }
    const good = await h.initialize('2025-06-18');
    assert.equal(good.result?.['protocolVersion'], '2025-06-18');
    h.oracle.assertClean();
  });

  test('server lifecycle - an unknown version is answered with 2025-11-25, a supported older one is echoed', async () => {
    for (const [requested, answered] of [['2099-01-01', '2025-11-25'], ['2025-03-26', '2025-03-26']] as const) {
      await using h = rawClient();
      const response = await h.initialize(requested);
      assert.equal(response.result?.['protocolVersion'], answered, requested);
      assert.equal(h.session.revision, answered, requested);
      h.oracle.assertClean();
    }
  });

  test('server lifecycle - a cancel notification naming the initialize id is ignored', async () => {
    await using h = rawClient();
    h.peer.request('init', 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo });
    h.peer.notify('notifications/cancelled', { requestId: 'init', reason: 'changed my mind' });
    const response = (await h.peer.nextMessage(isResponseTo('init'))) as JsonRecord;
    assert.equal(isRecord(response['result']) ? response['result']['protocolVersion'] : undefined, '2025-11-25');
    assert.equal(h.session.state, 'awaitingInitialized');
    h.peer.notify('notifications/initialized');
    assert.deepEqual((await h.peer.call('after', 'ping')).result, {});
    assert.equal(h.session.state, 'operating');
    h.oracle.assertClean();
  });

  test('server lifecycle - requests from a handler before notifications/initialized are deferred until it arrives', async () => {
    await using h = rawClient({
      server: toolsServer({
        'tools/call': async (_params, context) => textResult(JSON.stringify(await context.request('roots/list'))),
      }),
    });
    await h.initialize('2025-11-25', { capabilities: { roots: {} }, sendInitialized: false });
    assert.equal(h.session.state, 'awaitingInitialized');
    h.peer.request('call-1', 'tools/call', { name: 'roots', arguments: {} });
    await h.peer.expectNone(isRequestFor('roots/list'), 50);
    h.peer.notify('notifications/initialized');
    const rootsRequest = (await h.peer.nextMessage(isRequestFor('roots/list'))) as JsonRecord;
    h.peer.respond(rootsRequest['id'] as RequestId, { roots: [] });
    const result = await h.peer.nextMessage(isResponseTo('call-1'));
    assert.deepEqual(isRecord(result) ? result['result'] : undefined, textResult('{"roots":[]}'));
    h.oracle.assertClean();
  });

  test('server lifecycle - after close nothing is sent', async () => {
    const started = deferred();
    const release = deferred();
    await using h = rawClient({
      server: toolsServer({
        'tools/call': async () => {
          started.resolve();
          await release.promise;
          return textResult('too late');
        },
      }),
    });
    await h.initialize();
    h.peer.request('slow', 'tools/call', { name: 'slow', arguments: {} });
    await within(started.promise);
    await h.session.close();
    assert.equal(h.session.state, 'closed');
    await within(h.peer.closed);
    release.resolve();
    assert.throws(() => h.session.notify('notifications/tools/list_changed'), (error) => isLocalError(error, 'ConnectionClosed'));
    await assert.rejects(h.session.request('roots/list'), (error) => isLocalError(error, 'ConnectionClosed'));
    await delay(20);
    assert.deepEqual(h.wire.sentAfterClose(), []);
    // Its one answer went before the close: the shutdown error, not the handler's late result.
    const answers = h.peer.received.filter(isResponseTo('slow'));
    assert.equal(answers.length, 1);
    assert.match(JSON.stringify(answers[0]), /The server shut down before tools\/call/);
    h.oracle.assertClean();
  });

  test('server lifecycle - close aborts running handlers (answering them with a shutdown error) and fails pending outgoing requests with ConnectionClosed', async () => {
    const handlerSignal = deferred<AbortSignal>();
    const rootsAsked = deferred<AbortSignal>();
    await using pair = await createPair({
      server: toolsServer({
        'tools/call': (_params, context) => {
          handlerSignal.resolve(context.signal);
          return new Promise<JsonObject>(() => undefined);
        },
      }),
      client: {
        capabilities: { roots: {} },
        handlers: handlers({
          'roots/list': (_params, context) => {
            rootsAsked.resolve(context.signal);
            return new Promise<JsonObject>(() => undefined);
          },
        }),
      },
    });
    const callFails = assert.rejects(pair.client.request('tools/call', { name: 'hang', arguments: {} }), (error) =>
      isWireError(error) && error.code === -32603 && /^The server shut down before tools\/call \(request \d+\) finished/.test(error.message),
    );
    const signal = await within(handlerSignal.promise);
    const rootsFails = assert.rejects(pair.server.request('roots/list'), (error) => isLocalError(error, 'ConnectionClosed'));
    const clientHandlerSignal = await within(rootsAsked.promise);
    assert.equal(signal.aborted, false);
    await pair.server.close();
    assert.equal(signal.aborted, true);
    assert.ok(isLocalError(signal.reason, 'ConnectionClosed'), `reason: ${String(signal.reason)}`);
    await within(rootsFails);
    await within(callFails);
    await within(pair.client.closed);
    assert.equal(clientHandlerSignal.aborted, true);
    assert.deepEqual(pair.serverWire.sentAfterClose(), []);
    pair.assertClean();
  });

  test('server lifecycle - close({ drainMs }) lets a running handler finish and delivers its response', async () => {
    const started = deferred<AbortSignal>();
    await using pair = await createPair({
      server: toolsServer({
        'tools/call': async (_params, context) => {
          started.resolve(context.signal);
          await delay(30);
          return textResult('drained');
        },
      }),
    });
    const call = pair.client.request('tools/call', { name: 'slow', arguments: {} });
    const signal = await within(started.promise);
    const begin = Date.now();
    // The clock's timers are unref'd (they never keep the process alive); `within` holds the event loop open.
    await within(pair.server.close({ drainMs: 400 }), 450, 'close({ drainMs })');
    assert.ok(Date.now() - begin < 350, 'close waited for the handler, not for the whole drain time');
    assert.deepEqual(await within(call), textResult('drained'));
    assert.equal(signal.aborted, false);
    assert.equal(pair.server.state, 'closed');
    pair.assertClean();
  });
});

describe('client lifecycle', () => {
  test('client lifecycle - an unsupported protocolVersion in the initialize result rejects with UnsupportedVersion and closes', async () => {
    await using h = rawServer();
    await h.answerInitialize({ protocolVersion: '1999-01-01' });
    await assert.rejects(h.connecting, (error) => isLocalError(error, 'UnsupportedVersion') && /1999-01-01/.test(error.message));
    await within(h.peer.closed);
    assert.equal(h.peer.received.some((message) => isRecord(message) && message['method'] === 'notifications/initialized'), false);
    assert.deepEqual(h.wire.sentAfterClose(), []);
    h.oracle.assertClean();
  });

  test('client lifecycle - an invalid initialize result rejects with ProtocolViolation and closes', async () => {
    await using h = rawServer();
    const request = await h.initializeRequest();
    h.peer.respond(request['id'] as RequestId, { protocolVersion: '2025-11-25', capabilities: {} });
    await assert.rejects(h.connecting, (error) => isLocalError(error, 'ProtocolViolation') && /serverInfo/.test(error.message));
    await within(h.peer.closed);
    assert.equal(h.peer.received.length, 1, 'only the initialize request was sent');
    h.oracle.assertClean();
  });

  test('client lifecycle - before the handshake only ping is served; other server requests get -32600', async () => {
    let rootsCalls = 0;
    await using h = rawServer({
      client: {
        capabilities: { roots: {} },
        handlers: handlers({
          'roots/list': () => {
            rootsCalls++;
            return { roots: [] };
          },
        }),
      },
    });
    await h.initializeRequest();
    const early = await h.peer.call('s-1', 'roots/list');
    assert.equal(early.error?.code, -32600);
    assert.match(early.error?.message ?? '', /not initialized/);
    assert.deepEqual((await h.peer.call('s-2', 'ping')).result, {});
    assert.equal(rootsCalls, 0);
    await h.answerInitialize();
    const session = await within(h.connecting);
    assert.equal(session.state, 'operating');
    await h.peer.nextMessage((message) => isRecord(message) && message['method'] === 'notifications/initialized');
    assert.deepEqual((await h.peer.call('s-3', 'roots/list')).result, { roots: [] });
    assert.equal(rootsCalls, 1);
    h.oracle.assertClean();
  });
});
