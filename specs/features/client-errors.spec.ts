import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WireError } from '../../core/errors.ts';
import type { CreateMessageParams } from '../../core/protocol/sampling.ts';
import { createClient } from '../../client/create-client.ts';
import { clientPair, requestsOf, textOf } from '../support/client-pair.ts';

const params: CreateMessageParams = { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 };

test('tools - an error the client sent back, escaping the tool, is an isError result and not a protocol error', async () => {
  const pair = await clientPair({
    protocolVersion: '2025-11-25',
    client: { sampling: () => Promise.reject(new WireError(-1, 'User rejected sampling')) },
    setup: (server) => server.tool({ name: 'sample' }, async (_args, ctx) => (await ctx.sample(params)).model),
  });
  const result = await pair.session.callTool('sample');
  assert.equal(result.isError, true, 'reported to the model as the tool failing');
  assert.match(textOf(result), /User rejected sampling/);
  await pair.finish();
});

test('tools - a WireError the handler raises itself stays a JSON-RPC error', async () => {
  const pair = await clientPair({
    protocolVersion: '2025-11-25',
    setup: (server) => server.tool({ name: 'refuse' }, () => {
      throw new WireError(-32602, 'Invalid params: no');
    }),
  });
  await assert.rejects(pair.session.callTool('refuse'), (error: unknown) => error instanceof WireError && error.code === -32602 && error.origin === 'peer');
  await pair.finish();
});

test('roots - roots that are not file:// URIs are refused when the client is created and when they change', () => {
  assert.throws(() => createClient({ era: 'legacy', name: 'c', version: '1', roots: [{ uri: 'https://example.com/repo' }] }), /not a file:\/\/ URI/);
  const client = createClient({ era: 'legacy', name: 'c', version: '1', roots: [{ uri: 'file:///work' }] });
  assert.throws(() => client.setRoots([{ uri: 'ftp://host/x' }]), /not a file:\/\/ URI/);
});

test('roots - a roots function returning a non-file URI makes roots/list fail instead of sending it', async () => {
  let seen: unknown;
  const pair = await clientPair({
    protocolVersion: '2025-11-25',
    client: { roots: () => [{ uri: 'https://example.com' }] },
    setup: (server) => server.tool({ name: 'roots' }, async (_args, ctx) => {
      await ctx.roots().catch((error: unknown) => (seen = error));
      return 'done';
    }),
  });
  await pair.session.callTool('roots');
  assert.ok(seen instanceof WireError && /not a file:\/\/ URI/.test(seen.message), `got ${String(seen)}`);
  await pair.finish();
});

test('sampling - includeContext thisServer needs sampling.context only from 2025-11-25', async () => {
  for (const [revision, expectSent] of [['2025-06-18', true], ['2025-11-25', false]] as const) {
    let outcome = '';
    const pair = await clientPair({
      protocolVersion: revision,
      client: { sampling: () => ({ role: 'assistant', content: { type: 'text', text: 'ok' }, model: 'm' }) },
      setup: (server) => server.tool({ name: 'context' }, async (_args, ctx) => {
        outcome = await ctx.sample({ ...params, includeContext: 'thisServer' }).then((r) => r.model, (error: unknown) => String(error));
        return outcome;
      }),
    });
    await pair.session.callTool('context');
    assert.equal(requestsOf(pair.serverSent, 'sampling/createMessage').length, expectSent ? 1 : 0, revision);
    if (!expectSent) assert.match(outcome, /sampling\.context/);
    await pair.finish();
  }
});
