/**
 * Sampling from the client's side of the public API: `ctx.sample` in a server tool handler, the client's
 * `sampling` handler, capability gating of `sampling.tools` / `sampling.context` (FEATURES rows 75-78).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ClientRequestContext, SamplingHandler } from '../../actors/features/client-requests.ts';
import type { FeatureContext } from '../../actors/features/feature-context.ts';
import { ErrorCode } from '../../core/error-codes.ts';
import { WireError, isLocalError, isWireError } from '../../core/errors.ts';
import type { CreateMessageParams, CreateMessageResult } from '../../core/protocol/sampling.ts';
import type { Tool } from '../../core/protocol/tools.ts';
import type { LegacyRevision } from '../../core/protocol/versions.ts';
import type { McpServer } from '../../server/create-server.ts';
import { type ClientSetup, clientPair, paramsOf, requestsOf, textOf } from '../support/client-pair.ts';

const answer: CreateMessageResult = { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'test-model-1', stopReason: 'endTurn' };

const weatherTool: Tool = {
  name: 'get_weather',
  description: 'The weather in a city',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

/** A client sampling handler that records what it was asked. */
function recordingSampler(reply: CreateMessageResult = answer): { handler: SamplingHandler; seen: CreateMessageParams[]; contexts: ClientRequestContext[] } {
  const seen: CreateMessageParams[] = [];
  const contexts: ClientRequestContext[] = [];
  return {
    seen,
    contexts,
    handler: (params, context) => {
      seen.push(params);
      contexts.push(context);
      return Promise.resolve(reply);
    },
  };
}

/** Registers `sample`: calls ctx.sample with the params it is given, records what happened, answers with the text. */
function sampleTool(server: McpServer, params: CreateMessageParams, record: { error?: unknown; result?: CreateMessageResult }): void {
  server.tool({ name: 'sample' }, async (_args, ctx: FeatureContext) => {
    try {
      record.result = await ctx.sample(params);
    } catch (error) {
      record.error = error;
      throw error;
    }
    const content = record.result.content;
    const block = Array.isArray(content) ? content[0] : content;
    return `${record.result.model}: ${block?.type === 'text' ? block.text : block?.type}`;
  });
}

const basicParams: CreateMessageParams = {
  messages: [
    { role: 'user', content: { type: 'text', text: 'What is the capital of France?' } },
    { role: 'assistant', content: { type: 'text', text: 'Let me think.' } },
    { role: 'user', content: { type: 'text', text: 'One word, please.' } },
  ],
  maxTokens: 64,
  systemPrompt: 'You are terse.',
  modelPreferences: { hints: [{ name: 'claude-3' }, { name: 'sonnet' }], costPriority: 0.2, speedPriority: 0.5, intelligencePriority: 0.9 },
  temperature: 0.3,
  stopSequences: ['\n\n'],
  metadata: { trace: 'abc' },
  includeContext: 'none',
};

for (const revision of ['2024-11-05', '2025-06-18', '2025-11-25'] as const satisfies readonly LegacyRevision[]) {
  test(`sampling - ctx.sample reaches the client's handler with every field and its result flows back (${revision})`, async () => {
    const sampler = recordingSampler();
    const record: { error?: unknown; result?: CreateMessageResult } = {};
    const pair = await clientPair({ protocolVersion: revision, client: { sampling: sampler.handler }, setup: (server) => sampleTool(server, basicParams, record) });
    assert.deepEqual(pair.serverSession.peerCapabilities, { sampling: {} }, 'a sampling handler declares sampling (without tools)');

    const result = await pair.session.callTool('sample');
    assert.equal(result.isError, undefined);
    assert.equal(textOf(result), 'test-model-1: Paris', 'the tool built its answer from the sampled message');
    assert.deepEqual(record.result, answer, 'ctx.sample resolved with the client result as sent');
    assert.equal(sampler.seen.length, 1);
    assert.deepEqual(sampler.seen[0], basicParams, 'the client handler got messages, maxTokens, systemPrompt, modelPreferences... unchanged');
    assert.equal(sampler.contexts[0]?.signal.aborted, false);
    assert.equal(sampler.contexts[0]?.session.role, 'client', 'the handler context is the client session');

    const [request] = requestsOf(pair.serverSent, 'sampling/createMessage');
    assert.deepEqual(paramsOf(request), basicParams, 'on the wire: exactly the params the handler passed');
    await pair.finish();
  });
}

test('sampling - tools and toolChoice reach a client that declared sampling.tools (2025-11-25), and tool_use comes back', async () => {
  const toolUse: CreateMessageResult = {
    role: 'assistant',
    content: [{ type: 'tool_use', id: 'call-1', name: 'get_weather', input: { city: 'Paris' } }],
    model: 'test-model-1',
    stopReason: 'toolUse',
  };
  const sampler = recordingSampler(toolUse);
  const params: CreateMessageParams = { ...basicParams, tools: [weatherTool], toolChoice: { mode: 'required' } };
  const record: { error?: unknown; result?: CreateMessageResult } = {};
  const pair = await clientPair({
    protocolVersion: '2025-11-25',
    client: { sampling: sampler.handler, samplingTools: true },
    setup: (server) => sampleTool(server, params, record),
  });
  assert.deepEqual(pair.serverSession.peerCapabilities, { sampling: { tools: {} } });

  const result = await pair.session.callTool('sample');
  assert.equal(textOf(result), 'test-model-1: tool_use');
  assert.deepEqual(sampler.seen[0]?.tools, [weatherTool]);
  assert.deepEqual(sampler.seen[0]?.toolChoice, { mode: 'required' });
  assert.deepEqual(record.result, toolUse);
  await pair.finish();
});

/** A refused sample: the handler saw a LocalError, the tool answered isError, nothing reached the client. */
async function assertRefusedLocally(client: ClientSetup, revision: LegacyRevision, params: CreateMessageParams, missing: string): Promise<void> {
  const sampler = recordingSampler();
  const record: { error?: unknown; result?: CreateMessageResult } = {};
  const pair = await clientPair({ protocolVersion: revision, client: { ...client, ...(client.sampling === undefined ? {} : { sampling: sampler.handler }) }, setup: (server) => sampleTool(server, params, record) });

  const result = await pair.session.callTool('sample');
  assert.ok(isLocalError(record.error, 'CapabilityNotNegotiated'), `the handler got CapabilityNotNegotiated, got ${String(record.error)}`);
  assert.match((record.error as Error).message, new RegExp(missing.replace('.', '\\.')), 'the error names the missing capability');
  assert.equal(result.isError, true, 'the tool turned the refusal into an isError result');
  assert.match(textOf(result), new RegExp(missing.replace('.', '\\.')), 'the model can read which capability is missing');
  assert.equal(sampler.seen.length, 0, 'the client handler never ran');
  assert.deepEqual(requestsOf(pair.serverSent, 'sampling/createMessage'), [], 'the request was never sent');
  await pair.finish();
}

test('sampling - tools without sampling.tools are refused locally with CapabilityNotNegotiated', async () => {
  await assertRefusedLocally({ sampling: answerNow }, '2025-11-25', { ...basicParams, tools: [weatherTool] }, 'sampling.tools');
});

test('sampling - toolChoice alone without sampling.tools is refused locally too', async () => {
  await assertRefusedLocally({ sampling: answerNow }, '2025-11-25', { ...basicParams, toolChoice: { mode: 'auto' } }, 'sampling.tools');
});

test('sampling - tools under 2025-06-18 are refused locally even when the client claims sampling.tools (tool use is 2025-11-25)', async () => {
  await assertRefusedLocally({ sampling: answerNow, samplingTools: true }, '2025-06-18', { ...basicParams, tools: [weatherTool], toolChoice: { mode: 'auto' } }, 'sampling.tools');
});

test('sampling - includeContext thisServer/allServers needs sampling.context', async () => {
  await assertRefusedLocally({ sampling: answerNow }, '2025-11-25', { ...basicParams, includeContext: 'thisServer' }, 'sampling.context');
  await assertRefusedLocally({ sampling: answerNow }, '2025-11-25', { ...basicParams, includeContext: 'allServers' }, 'sampling.context');
});

test('sampling - a client without a sampling handler does not declare sampling, so ctx.sample is refused', async () => {
  await assertRefusedLocally({}, '2025-11-25', basicParams, 'sampling');
});

test('sampling - a client that rejects with WireError(-1) reaches the server handler as a WireError with code -1', async () => {
  let seen: unknown;
  const pair = await clientPair({
    protocolVersion: '2025-11-25',
    client: { sampling: () => Promise.reject(new WireError(-1, 'User rejected sampling request')) },
    setup: (server) =>
      server.tool({ name: 'sample' }, async (_args, ctx) => {
        try {
          await ctx.sample(basicParams);
          return 'unexpected';
        } catch (error) {
          seen = error;
          return { content: [{ type: 'text', text: 'the user said no' }], isError: true };
        }
      }),
  });

  const result = await pair.session.callTool('sample');
  assert.ok(isWireError(seen), `the handler got a WireError, got ${String(seen)}`);
  assert.equal(seen.code, -1);
  assert.equal(seen.message, 'User rejected sampling request');
  assert.deepEqual(result, { content: [{ type: 'text', text: 'the user said no' }], isError: true });
  const [request] = requestsOf(pair.serverSent, 'sampling/createMessage');
  const [answered] = pair.clientSent.filter((message) => message['id'] === request?.['id'] && message['method'] === undefined);
  assert.deepEqual(answered?.['error'], { code: -1, message: 'User rejected sampling request' }, 'the client answered with the error it was given');
  await pair.finish();
});

test('sampling - a client handler that throws something else answers -32603 and the server handler sees a WireError', async () => {
  let seen: unknown;
  const pair = await clientPair({
    protocolVersion: '2025-11-25',
    client: { sampling: () => { throw new Error('model offline'); } },
    setup: (server) =>
      server.tool({ name: 'sample' }, async (_args, ctx) => {
        await ctx.sample(basicParams).catch((error: unknown) => (seen = error));
        return 'done';
      }),
  });
  await pair.session.callTool('sample');
  assert.ok(isWireError(seen));
  assert.equal(seen.code, -32603);
  assert.equal(seen.message, 'model offline');
  await pair.finish();
});

test('sampling - a malformed result from the client sampling handler is refused before it is sent', async () => {
  let seen: unknown;
  const pair = await clientPair({
    protocolVersion: '2025-11-25',
    // Typed as a result, but missing `model`: the client must not send it, the server must not trust it.
    client: { sampling: () => ({ role: 'assistant', content: { type: 'text', text: 'x' } }) as unknown as CreateMessageResult },
    setup: (server) =>
      server.tool({ name: 'sample' }, async (_args, ctx) => {
        await ctx.sample(basicParams).catch((error: unknown) => (seen = error));
        return 'done';
      }),
  });
  await pair.session.callTool('sample');
  assert.ok(isWireError(seen), `got ${String(seen)}`);
  assert.equal(seen.code, ErrorCode.InternalError);
  assert.equal(seen.origin, 'peer');
  assert.match(seen.message, /malformed result/);
  await pair.finish();
});

function answerNow(): CreateMessageResult {
  return answer;
}
