/**
 * Capability and revision enforcement, both ways: outbound the session refuses locally and sends nothing;
 * inbound it answers -32601 before any handler runs. Every session transport is checked by the schema oracle.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isLocalError } from '../../core/errors.ts';
import type { JsonObject } from '../../core/jsonrpc.ts';
import { type JsonRecord, createPair, deferred, handlers, rawClient, rawServer, within } from '../support/harness.ts';

const urlElicitation: JsonObject = { mode: 'url', message: 'Sign in', url: 'https://example.com/login', elicitationId: 'e-1' };
const formElicitation: JsonObject = { mode: 'form', message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } };

describe('capability enforcement', () => {
  test('capabilities - client resources/subscribe without the server declaring resources.subscribe fails locally and sends nothing', async () => {
    await using pair = await createPair({ server: { capabilities: { resources: {} } } });
    const sentBefore = pair.clientWire.sent.length;
    await assert.rejects(
      pair.client.request('resources/subscribe', { uri: 'file:///a.txt' }),
      (error) => isLocalError(error, 'CapabilityNotNegotiated') && /resources\.subscribe/.test(error.message),
    );
    assert.equal(pair.clientWire.sent.length, sentBefore);
    pair.assertClean();
  });

  test('capabilities - a raw client sending resources/subscribe anyway gets -32601 and no handler runs', async () => {
    let calls = 0;
    await using h = rawClient({
      server: {
        capabilities: { resources: {} },
        handlers: handlers({
          'resources/subscribe': () => {
            calls++;
            return {};
          },
        }),
      },
    });
    await h.initialize();
    const response = await h.peer.call('sub-1', 'resources/subscribe', { uri: 'file:///a.txt' });
    assert.equal(response.error?.code, -32601);
    assert.match(response.error?.message ?? '', /resources\/subscribe.*resources\.subscribe/);
    assert.equal(calls, 0);
    h.oracle.assertClean();
  });

  test('capabilities - server sampling/createMessage to a client without sampling fails locally', async () => {
    await using pair = await createPair();
    const sentBefore = pair.serverWire.sent.length;
    await assert.rejects(
      pair.server.request('sampling/createMessage', { messages: [], maxTokens: 16 }),
      (error) => isLocalError(error, 'CapabilityNotNegotiated') && /sampling/.test(error.message),
    );
    assert.equal(pair.serverWire.sent.length, sentBefore);
    pair.assertClean();
  });

  test('capabilities - elicitation/create in url mode to a form-only client fails locally; form mode goes through', async () => {
    let calls = 0;
    await using pair = await createPair({
      client: {
        capabilities: { elicitation: { form: {} } },
        handlers: handlers({
          'elicitation/create': () => {
            calls++;
            return { action: 'decline' };
          },
        }),
      },
    });
    const sentBefore = pair.serverWire.sent.length;
    await assert.rejects(
      pair.server.request('elicitation/create', urlElicitation),
      (error) => isLocalError(error, 'CapabilityNotNegotiated') && /elicitation\.url/.test(error.message),
    );
    assert.equal(pair.serverWire.sent.length, sentBefore);
    assert.deepEqual(await within(pair.server.request('elicitation/create', formElicitation)), { action: 'decline' });
    assert.equal(calls, 1);
    pair.assertClean();
  });

  test('capabilities - elicitation/create under 2025-03-26 is MethodNotInRevision outbound', async () => {
    await using pair = await createPair({ client: { protocolVersion: '2025-03-26', capabilities: {} } });
    assert.equal(pair.server.revision, '2025-03-26');
    const sentBefore = pair.serverWire.sent.length;
    await assert.rejects(
      pair.server.request('elicitation/create', formElicitation),
      (error) => isLocalError(error, 'MethodNotInRevision') && /2025-03-26/.test(error.message),
    );
    assert.equal(pair.serverWire.sent.length, sentBefore);
    pair.assertClean();
  });

  test('capabilities - elicitation/create under 2025-03-26 gets -32601 inbound and no handler runs', async () => {
    let calls = 0;
    await using h = rawServer({
      client: {
        protocolVersion: '2025-03-26',
        handlers: handlers({
          'elicitation/create': () => {
            calls++;
            return { action: 'decline' };
          },
        }),
      },
    });
    await h.answerInitialize({ protocolVersion: '2025-03-26' });
    const session = await within(h.connecting);
    assert.equal(session.revision, '2025-03-26');
    const response = await h.peer.call('e-1', 'elicitation/create', formElicitation);
    assert.equal(response.error?.code, -32601);
    assert.match(response.error?.message ?? '', /elicitation\/create.*2025-03-26/);
    assert.equal(calls, 0);
    h.oracle.assertClean();
  });

  test('capabilities - notify(tools/list_changed) without tools.listChanged throws; with it the client receives it', async () => {
    await using without = await createPair({ server: { capabilities: { tools: {} } } });
    const sentBefore = without.serverWire.sent.length;
    assert.throws(
      () => without.server.notify('notifications/tools/list_changed'),
      (error) => isLocalError(error, 'CapabilityNotNegotiated') && /tools\.listChanged/.test(error.message),
    );
    assert.equal(without.serverWire.sent.length, sentBefore);

    const received = deferred<JsonRecord | undefined>();
    await using withIt = await createPair({
      server: { capabilities: { tools: { listChanged: true } } },
      client: { handlers: handlers({}, { 'notifications/tools/list_changed': (params) => received.resolve(params) }) },
    });
    withIt.server.notify('notifications/tools/list_changed');
    assert.equal(await within(received.promise), undefined);
    without.assertClean();
    withIt.assertClean();
  });

  test('capabilities - a raw client calling tools/call on a server without tools gets -32601 naming the capability', async () => {
    let calls = 0;
    await using h = rawClient({
      server: {
        capabilities: {},
        handlers: handlers({
          'tools/call': () => {
            calls++;
            return { content: [] };
          },
        }),
      },
    });
    await h.initialize();
    const response = await h.peer.call(7, 'tools/call', { name: 'x', arguments: {} });
    assert.equal(response.error?.code, -32601);
    assert.match(response.error?.message ?? '', /"tools"/);
    assert.equal(calls, 0);
    h.oracle.assertClean();
  });
});
