/**
 * `ctx.client` on the handler context: what the client declared, in both eras (the legacy session's
 * capabilities from `initialize`, the modern request's `_meta` capabilities), so a handler can fall back.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createClient } from '../../client/create-client.ts';
import { createServer } from '../../server/create-server.ts';
import { createMemoryPair } from '../../transports/memory/index.ts';

function declaringServer() {
  const server = createServer({ name: 'declaration-spec', version: '0.0.0' });
  server.tool({ name: 'who', description: 'What the client declared' }, (_args, ctx) => ({
    structuredContent: {
      elicitation: ctx.client.supports('elicitation'),
      form: ctx.client.supports('elicitation.form'),
      url: ctx.client.supports('elicitation.url'),
      sampling: ctx.client.supports('sampling'),
      samplingTools: ctx.client.supports('sampling.tools'),
      roots: ctx.client.supports('roots'),
      name: ctx.client.info?.name ?? null,
    },
  }));
  return server;
}

for (const era of ['legacy', 'modern'] as const) {
  test(`ctx.client (${era} era) - a client declaring elicitation (form) and roots, without sampling, is seen as such`, async () => {
    const server = declaringServer();
    const [clientEnd, serverEnd] = createMemoryPair();
    server.accept(serverEnd);
    const client = createClient({ name: 'declaring-client', version: '1.0.0', era, elicitation: { form: () => ({ action: 'decline' }) }, roots: [] });
    const session = await client.connect(clientEnd);
    assert.equal(session.session.era, era);
    const result = await session.callTool('who');
    assert.deepEqual(result.structuredContent, { elicitation: true, form: true, url: false, sampling: false, samplingTools: false, roots: true, name: 'declaring-client' });
    await session.close();
  });

  test(`ctx.client (${era} era) - a client declaring nothing supports nothing`, async () => {
    const server = declaringServer();
    const [clientEnd, serverEnd] = createMemoryPair();
    server.accept(serverEnd);
    const session = await createClient({ name: 'bare-client', version: '1.0.0', era }).connect(clientEnd);
    const result = await session.callTool('who');
    assert.deepEqual(result.structuredContent, { elicitation: false, form: false, url: false, sampling: false, samplingTools: false, roots: false, name: 'bare-client' });
    await session.close();
  });
}

test('ctx.client - `elicitation: {}` (2025-06-18, before modes) is the form mode; url only when declared', async () => {
  const server = declaringServer();
  const [clientEnd, serverEnd] = createMemoryPair();
  server.accept(serverEnd);
  const client = createClient({ name: 'url-client', version: '1.0.0', era: 'legacy', elicitation: { url: () => ({ action: 'decline' }) }, sampling: () => ({ role: 'assistant', content: { type: 'text', text: '' }, model: 'm' }), samplingTools: true });
  const session = await client.connect(clientEnd);
  const result = await session.callTool('who');
  assert.deepEqual(result.structuredContent, { elicitation: true, form: false, url: true, sampling: true, samplingTools: true, roots: false, name: 'url-client' });
  await session.close();
  const [bareEnd, bareServerEnd] = createMemoryPair();
  server.accept(bareServerEnd);
  const legacyShape = await createClient({ name: 'old-client', version: '1.0.0', era: 'legacy', capabilities: { elicitation: {} } }).connect(bareEnd);
  assert.deepEqual((await legacyShape.callTool('who')).structuredContent, { elicitation: true, form: true, url: false, sampling: false, samplingTools: false, roots: false, name: 'old-client' });
  await legacyShape.close();
});
