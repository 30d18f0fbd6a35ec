/**
 * `ctx.auth`: the caller's identity reaches tool handlers and interceptors in both eras, from a memory pair given
 * an identity (`serverAuth`), and a frame that names another principal never reaches a bound session.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Subject } from 'rxjs';
import type { AuthInfo } from '../../core/auth.ts';
import type { WirePayload } from '../../core/jsonrpc.ts';
import type { InboundFrame, Transport } from '../../core/transport.ts';
import { eventually } from '../support/harness.ts';
import type { InterceptedRequest } from '../../actors/interceptors.ts';
import { createClient } from '../../client/create-client.ts';
import { createServer } from '../../server/create-server.ts';
import { createMemoryPair } from '../../transports/memory/index.ts';

const ada: AuthInfo = { principal: 'ada', subject: 'ada', clientId: 'app', scopes: ['tools:read'], claims: { sub: 'ada' } };

function whoamiServer(): { server: ReturnType<typeof createServer>; seen: InterceptedRequest[] } {
  const server = createServer({ name: 'ids', version: '1' });
  server.tool({ name: 'whoami' }, (_args, ctx) => JSON.stringify({ principal: ctx.auth?.principal ?? null, scopes: ctx.auth?.scopes ?? null }));
  const seen: InterceptedRequest[] = [];
  server.use((request, next) => {
    seen.push(request);
    return next(request);
  });
  return { server, seen };
}

for (const era of ['legacy', 'modern'] as const) {
  test(`memory, ${era} era: a pair given serverAuth shows the caller to handlers and interceptors`, async () => {
    const { server, seen } = whoamiServer();
    const [clientEnd, serverEnd] = createMemoryPair({ serverAuth: ada });
    server.accept(serverEnd);
    const client = await createClient({ name: 'c', version: '1', era }).connect(clientEnd);
    try {
      const result = await client.callTool('whoami');
      assert.deepEqual(JSON.parse((result.content[0] as { text: string }).text), { principal: 'ada', scopes: ['tools:read'] });
      const call = seen.find((request) => request.method === 'tools/call');
      assert.equal(call?.session.era, era);
      assert.equal(call?.session.auth?.principal, 'ada');
      assert.equal(call?.session.principal, 'ada');
    } finally {
      await client.close();
      await server.close();
    }
  });

  test(`memory, ${era} era: without an identity, ctx.auth is undefined`, async () => {
    const { server } = whoamiServer();
    const [clientEnd, serverEnd] = createMemoryPair();
    server.accept(serverEnd);
    const client = await createClient({ name: 'c', version: '1', era }).connect(clientEnd);
    try {
      const result = await client.callTool('whoami');
      assert.deepEqual(JSON.parse((result.content[0] as { text: string }).text), { principal: null, scopes: null });
    } finally {
      await client.close();
      await server.close();
    }
  });
}

test('a legacy session bound to one principal refuses a frame the medium attributes to another; its own may carry a newer identity', async () => {
  const { server } = whoamiServer();
  const inbound = new Subject<InboundFrame>();
  const sent: WirePayload[] = [];
  const transport: Transport = { kind: 'test', principal: 'ada', auth: ada, incoming$: inbound, send: (frame) => void sent.push(frame.payload), close: async () => inbound.complete() };
  server.accept(transport, { preinitialized: { revision: '2025-06-18', peerCapabilities: {} } });
  const grace: AuthInfo = { principal: 'grace', scopes: [], claims: {} };
  const call = (id: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'whoami' } });
  const refreshed: AuthInfo = { ...ada, scopes: ['tools:read', 'tools:write'] };
  inbound.next({ type: 'message', payload: call('forged'), origin: { principal: 'grace', auth: grace } });
  inbound.next({ type: 'message', payload: call('own'), origin: { principal: 'ada', auth: refreshed } });
  inbound.next({ type: 'message', payload: call('plain') });
  try {
    await eventually(() => sent.length === 3, 2000, 'three answers');
    const byId = new Map(sent.map((payload) => [(payload as { id: string }).id, payload as { result?: { content: Array<{ text: string }> }; error?: { message: string } }]));
    assert.match(byId.get('forged')?.error?.message ?? '', /belongs to another caller/);
    assert.deepEqual(JSON.parse(byId.get('own')?.result?.content[0]?.text ?? 'null'), { principal: 'ada', scopes: ['tools:read', 'tools:write'] });
    assert.deepEqual(JSON.parse(byId.get('plain')?.result?.content[0]?.text ?? 'null'), { principal: 'ada', scopes: ['tools:read'] });
  } finally {
    await server.close();
  }
});
