/**
 * Modern era (2026-07-28): multi round-trip requests (FEATURES #85, #86, #27). A handler's `elicit`, `sample`
 * and `roots` calls become an `input_required` answer (input requests plus sealed state); the client retries
 * with a new id, the same params, the state and its answers, and the handler runs again from the start. The
 * server never sends a request to the client (the oracle, role "server", would flag one).
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { JsonObject } from '../../../core/jsonrpc.ts';
import type { FeatureContext } from '../../../actors/features/feature-context.ts';
import type { CreateMessageResult } from '../../../core/protocol/sampling.ts';
import { ALL_INPUT_CAPABILITIES, META, type ModernPeer, type WireResponse, errorOf, metaOf, modernServer, resultOf, toolText, warmUp } from './modern-peer.ts';

before(warmUp);

const NAME_SCHEMA = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } as const;
const AGE_SCHEMA = { type: 'object', properties: { age: { type: 'integer' } } } as const;
const SAMPLE = { messages: [{ role: 'user', content: { type: 'text', text: 'Summarise' } }], maxTokens: 20 } as const;

/** The text of a sampling answer (one block or several). */
function sampledText(result: CreateMessageResult): string {
  const blocks = Array.isArray(result.content) ? result.content : [result.content];
  return blocks.map((block: { type: string; text?: string }) => (block.type === 'text' ? (block.text ?? '') : '')).join('');
}

const accept = (content: JsonObject): JsonObject => ({ action: 'accept', content });
const sampled = (text: string): JsonObject => ({ role: 'assistant', content: { type: 'text', text }, model: 'spec-model' });

function askName(ctx: FeatureContext, key?: string): ReturnType<FeatureContext['elicit']> {
  return ctx.elicit({ message: 'Your name?', requestedSchema: NAME_SCHEMA }, key === undefined ? {} : { key });
}

/** The input_required result of a response (fails on anything else). */
function inputRequired(response: WireResponse): { inputRequests: Record<string, { method: string; params?: JsonObject }>; requestState: string; result: Record<string, unknown> } {
  const result = resultOf(response);
  assert.equal(result['resultType'], 'input_required', JSON.stringify(result));
  assert.equal(typeof result['requestState'], 'string');
  return { inputRequests: result['inputRequests'] as Record<string, { method: string; params?: JsonObject }>, requestState: result['requestState'] as string, result };
}

/** A retry of tools/call `name` with `state` and `answers` (a fresh id each time). */
function retry(peer: ModernPeer, name: string, state: string | undefined, answers: JsonObject | undefined, capabilities: JsonObject = ALL_INPUT_CAPABILITIES, args: JsonObject = {}): Promise<WireResponse> {
  return peer.request(
    'tools/call',
    { name, arguments: args, ...(state === undefined ? {} : { requestState: state }), ...(answers === undefined ? {} : { inputResponses: answers }) },
    { capabilities },
  );
}

describe('input rounds: one kind of input', () => {
  test('elicitation: input_required with the request and sealed state, then the retry completes', async () => {
    await using harness = modernServer();
    const rounds: number[] = [];
    harness.server.tool({ name: 'greet' }, async (_args, ctx) => {
      rounds.push(ctx.round);
      const answer = await askName(ctx);
      return `hello ${String(answer.content?.['name'])} (${answer.action})`;
    });
    const peer = harness.connect();
    const first = peer.start('tools/call', { name: 'greet', arguments: {} }, { capabilities: ALL_INPUT_CAPABILITIES });
    const asked = inputRequired(await first.response);
    assert.deepEqual(asked.inputRequests, { 'elicitation-1': { method: 'elicitation/create', params: { message: 'Your name?', requestedSchema: NAME_SCHEMA } } });
    assert.ok(asked.requestState.length > 0);
    assert.ok(metaOf(asked.result)[META.serverInfo] !== undefined, 'serverInfo on input_required results too');
    const second = peer.start('tools/call', { name: 'greet', arguments: {}, requestState: asked.requestState, inputResponses: { 'elicitation-1': accept({ name: 'Ada' }) } }, { capabilities: ALL_INPUT_CAPABILITIES });
    assert.notEqual(second.id, first.id);
    const done = await second.response;
    assert.equal(resultOf(done)['resultType'], 'complete');
    assert.equal(toolText(done), 'hello Ada (accept)');
    assert.deepEqual(rounds, [0, 1]);
    assert.equal(peer.all((message) => 'method' in message && 'id' in message).length, 0, 'the server sent no request');
    harness.assertClean();
  });

  test('a declined elicitation is an answer too', async () => {
    await using harness = modernServer();
    harness.server.tool({ name: 'greet' }, async (_args, ctx) => `action ${(await askName(ctx)).action}`);
    const peer = harness.connect();
    const asked = inputRequired(await retry(peer, 'greet', undefined, undefined));
    assert.equal(toolText(await retry(peer, 'greet', asked.requestState, { 'elicitation-1': { action: 'decline' } })), 'action decline');
    harness.assertClean();
  });

  test('sampling: the createMessage params go out as an input request; the answer reaches the handler', async () => {
    await using harness = modernServer();
    harness.server.tool({ name: 'summarise' }, async (_args, ctx) => {
      const result = await ctx.sample(SAMPLE as never);
      return `model ${result.model}: ${sampledText(result)}`;
    });
    const peer = harness.connect();
    const asked = inputRequired(await retry(peer, 'summarise', undefined, undefined));
    assert.deepEqual(asked.inputRequests, { 'sampling-1': { method: 'sampling/createMessage', params: SAMPLE } });
    assert.equal(toolText(await retry(peer, 'summarise', asked.requestState, { 'sampling-1': sampled('short') })), 'model spec-model: short');
    harness.assertClean();
  });

  test('roots: a roots/list input request without params; the roots reach the handler', async () => {
    await using harness = modernServer();
    harness.server.tool({ name: 'where' }, async (_args, ctx) => (await ctx.roots()).map((root) => root.uri).join(','));
    const peer = harness.connect();
    const asked = inputRequired(await retry(peer, 'where', undefined, undefined));
    assert.deepEqual(asked.inputRequests, { 'roots-1': { method: 'roots/list' } });
    const done = await retry(peer, 'where', asked.requestState, { 'roots-1': { roots: [{ uri: 'file:///a' }, { uri: 'file:///b', name: 'b' }] } });
    assert.equal(toolText(done), 'file:///a,file:///b');
    harness.assertClean();
  });

  test('prompts/get may ask for input as well', async () => {
    await using harness = modernServer();
    harness.server.prompt({ name: 'intro' }, async (_args, ctx) => {
      const answer = await askName(ctx);
      return { messages: [{ role: 'user', content: { type: 'text', text: `I am ${String(answer.content?.['name'])}` } }] };
    });
    const peer = harness.connect();
    const asked = inputRequired(await peer.request('prompts/get', { name: 'intro' }, { capabilities: ALL_INPUT_CAPABILITIES }));
    assert.deepEqual(Object.keys(asked.inputRequests), ['elicitation-1']);
    const done = resultOf(
      await peer.request('prompts/get', { name: 'intro', requestState: asked.requestState, inputResponses: { 'elicitation-1': accept({ name: 'Lin' }) } }, { capabilities: ALL_INPUT_CAPABILITIES }),
    );
    assert.equal(done['resultType'], 'complete');
    assert.deepEqual(done['messages'], [{ role: 'user', content: { type: 'text', text: 'I am Lin' } }]);
    harness.assertClean();
  });

  test('the suspended handler of an input_required answer sees its signal aborted', async () => {
    await using harness = modernServer();
    let signal: AbortSignal | undefined;
    harness.server.tool({ name: 'greet' }, async (_args, ctx) => {
      signal = ctx.signal;
      return `hi ${String((await askName(ctx)).content?.['name'])}`;
    });
    const peer = harness.connect();
    inputRequired(await retry(peer, 'greet', undefined, undefined));
    assert.equal(signal?.aborted, true);
    harness.assertClean();
  });
});

describe('input rounds: several inputs', () => {
  test('inputs asked together (Promise.all) go out in one round, and one retry answers them all', async () => {
    await using harness = modernServer();
    let runs = 0;
    harness.server.tool({ name: 'all' }, async (_args, ctx) => {
      runs++;
      const [name, summary, roots] = await Promise.all([askName(ctx), ctx.sample(SAMPLE as never), ctx.roots()]);
      return `${String(name.content?.['name'])}|${sampledText(summary)}|${roots.length}`;
    });
    const peer = harness.connect();
    const asked = inputRequired(await retry(peer, 'all', undefined, undefined));
    assert.deepEqual(Object.keys(asked.inputRequests).sort(), ['elicitation-1', 'roots-1', 'sampling-1']);
    assert.equal(asked.inputRequests['roots-1']?.method, 'roots/list');
    assert.equal(asked.inputRequests['sampling-1']?.method, 'sampling/createMessage');
    assert.equal(asked.inputRequests['elicitation-1']?.method, 'elicitation/create');
    const done = await retry(peer, 'all', asked.requestState, {
      'elicitation-1': accept({ name: 'Bo' }),
      'sampling-1': sampled('sum'),
      'roots-1': { roots: [{ uri: 'file:///r' }] },
    });
    assert.equal(toolText(done), 'Bo|sum|1');
    assert.equal(runs, 2);
    harness.assertClean();
  });

  test('default keys number each kind in call order: elicitation-1, elicitation-2, sampling-1', async () => {
    await using harness = modernServer();
    harness.server.tool({ name: 'two' }, async (_args, ctx) => {
      await Promise.all([askName(ctx), ctx.elicit({ message: 'Age?', requestedSchema: AGE_SCHEMA }), ctx.sample(SAMPLE as never)]);
      return 'never';
    });
    const peer = harness.connect();
    const asked = inputRequired(await retry(peer, 'two', undefined, undefined));
    assert.deepEqual(Object.keys(asked.inputRequests).sort(), ['elicitation-1', 'elicitation-2', 'sampling-1']);
    assert.equal(asked.inputRequests['elicitation-1']?.params?.['message'], 'Your name?');
    assert.equal(asked.inputRequests['elicitation-2']?.params?.['message'], 'Age?');
    harness.assertClean();
  });

  test('custom keys name the input requests, and answers are read back by those keys', async () => {
    await using harness = modernServer();
    harness.server.tool({ name: 'keyed' }, async (_args, ctx) => {
      const [name, summary] = await Promise.all([askName(ctx, 'user-name'), ctx.sample(SAMPLE as never, { key: 'summary' })]);
      return `${String(name.content?.['name'])}/${sampledText(summary)}`;
    });
    const peer = harness.connect();
    const asked = inputRequired(await retry(peer, 'keyed', undefined, undefined));
    assert.deepEqual(Object.keys(asked.inputRequests).sort(), ['summary', 'user-name']);
    // Answers under the default keys do not count.
    const wrongKeys = inputRequired(await retry(peer, 'keyed', asked.requestState, { 'elicitation-1': accept({ name: 'X' }), 'sampling-1': sampled('x') }));
    assert.deepEqual(Object.keys(wrongKeys.inputRequests).sort(), ['summary', 'user-name']);
    const done = await retry(peer, 'keyed', wrongKeys.requestState, { 'user-name': accept({ name: 'Kim' }), summary: sampled('s') });
    assert.equal(toolText(done), 'Kim/s');
    harness.assertClean();
  });

  test('sequential inputs take several rounds, each with a new requestState; earlier answers travel in the state', async () => {
    await using harness = modernServer();
    const rounds: number[] = [];
    harness.server.tool({ name: 'form' }, async (_args, ctx) => {
      rounds.push(ctx.round);
      const name = await askName(ctx);
      const age = await ctx.elicit({ message: 'Age?', requestedSchema: AGE_SCHEMA });
      const roots = await ctx.roots();
      return `${String(name.content?.['name'])} ${String(age.content?.['age'])} ${roots.length}`;
    });
    const peer = harness.connect();
    const first = inputRequired(await retry(peer, 'form', undefined, undefined));
    assert.deepEqual(Object.keys(first.inputRequests), ['elicitation-1']);
    const second = inputRequired(await retry(peer, 'form', first.requestState, { 'elicitation-1': accept({ name: 'Eve' }) }));
    assert.deepEqual(Object.keys(second.inputRequests), ['elicitation-2']);
    assert.notEqual(second.requestState, first.requestState);
    // Only the new answer is sent: the first one comes back from the state.
    const third = inputRequired(await retry(peer, 'form', second.requestState, { 'elicitation-2': accept({ age: 41 }) }));
    assert.deepEqual(third.inputRequests, { 'roots-1': { method: 'roots/list' } });
    assert.notEqual(third.requestState, second.requestState);
    const done = await retry(peer, 'form', third.requestState, { 'roots-1': { roots: [] } });
    assert.equal(toolText(done), 'Eve 41 0');
    assert.deepEqual(rounds, [0, 1, 2, 3]);
    harness.assertClean();
  });

  test('an answer sealed in an earlier round cannot be changed by a later retry', async () => {
    await using harness = modernServer();
    harness.server.tool({ name: 'form' }, async (_args, ctx) => {
      const name = await askName(ctx);
      const age = await ctx.elicit({ message: 'Age?', requestedSchema: AGE_SCHEMA });
      return `${String(name.content?.['name'])} ${String(age.content?.['age'])}`;
    });
    const peer = harness.connect();
    const first = inputRequired(await retry(peer, 'form', undefined, undefined));
    const second = inputRequired(await retry(peer, 'form', first.requestState, { 'elicitation-1': accept({ name: 'Eve' }) }));
    const done = await retry(peer, 'form', second.requestState, { 'elicitation-1': accept({ name: 'Mallory' }), 'elicitation-2': accept({ age: 7 }) });
    assert.equal(toolText(done), 'Eve 7');
    harness.assertClean();
  });
});

describe('input rounds: incomplete, extra and invalid answers', () => {
  test('a retry without the answer is answered with input_required again', async () => {
    await using harness = modernServer();
    harness.server.tool({ name: 'greet' }, async (_args, ctx) => `hi ${String((await askName(ctx)).content?.['name'])}`);
    const peer = harness.connect();
    const first = inputRequired(await retry(peer, 'greet', undefined, undefined));
    const noAnswers = inputRequired(await retry(peer, 'greet', first.requestState, {}));
    assert.deepEqual(noAnswers.inputRequests, first.inputRequests);
    const noResponsesMember = inputRequired(await retry(peer, 'greet', noAnswers.requestState, undefined));
    assert.deepEqual(noResponsesMember.inputRequests, first.inputRequests);
    assert.equal(toolText(await retry(peer, 'greet', noResponsesMember.requestState, { 'elicitation-1': accept({ name: 'Al' }) })), 'hi Al');
    harness.assertClean();
  });

  test('of two inputs asked together, the one left unanswered is asked again alone', async () => {
    await using harness = modernServer();
    harness.server.tool({ name: 'both' }, async (_args, ctx) => {
      const [name, roots] = await Promise.all([askName(ctx), ctx.roots()]);
      return `${String(name.content?.['name'])} ${roots.length}`;
    });
    const peer = harness.connect();
    const first = inputRequired(await retry(peer, 'both', undefined, undefined));
    const second = inputRequired(await retry(peer, 'both', first.requestState, { 'roots-1': { roots: [{ uri: 'file:///x' }] } }));
    assert.deepEqual(Object.keys(second.inputRequests), ['elicitation-1']);
    assert.equal(toolText(await retry(peer, 'both', second.requestState, { 'elicitation-1': accept({ name: 'Jo' }) })), 'Jo 1');
    harness.assertClean();
  });

  test('answers under keys the server did not ask for are ignored', async () => {
    await using harness = modernServer();
    harness.server.tool({ name: 'greet' }, async (_args, ctx) => `hi ${String((await askName(ctx)).content?.['name'])}`);
    const peer = harness.connect();
    const first = inputRequired(await retry(peer, 'greet', undefined, undefined));
    const done = await retry(peer, 'greet', first.requestState, {
      'elicitation-1': accept({ name: 'Al' }),
      'elicitation-9': accept({ name: 'Zed' }),
      unrelated: { anything: true },
    });
    assert.equal(toolText(done), 'hi Al');
    harness.assertClean();
  });

  test('an answer that does not have the shape of its result is not taken: input_required again', async () => {
    await using harness = modernServer();
    harness.server.tool({ name: 'all' }, async (_args, ctx) => {
      const [name, summary, roots] = await Promise.all([askName(ctx), ctx.sample(SAMPLE as never), ctx.roots()]);
      return `${String(name.content?.['name'])} ${summary.model} ${roots.length}`;
    });
    const peer = harness.connect();
    const first = inputRequired(await retry(peer, 'all', undefined, undefined));
    const bad = inputRequired(
      await retry(peer, 'all', first.requestState, {
        'elicitation-1': { action: 'maybe' },
        'sampling-1': { role: 'assistant', content: { type: 'text', text: 'no model' } },
        'roots-1': { roots: [{ name: 'no uri' }] },
      }),
    );
    assert.deepEqual(Object.keys(bad.inputRequests).sort(), ['elicitation-1', 'roots-1', 'sampling-1']);
    const scalar = inputRequired(await retry(peer, 'all', bad.requestState, { 'elicitation-1': 'accept', 'sampling-1': null, 'roots-1': [] }));
    assert.deepEqual(Object.keys(scalar.inputRequests).sort(), ['elicitation-1', 'roots-1', 'sampling-1']);
    harness.assertClean();
  });

  test('inputResponses that is not an object is -32602', async () => {
    await using harness = modernServer();
    harness.server.tool({ name: 'greet' }, async (_args, ctx) => `hi ${String((await askName(ctx)).content?.['name'])}`);
    const peer = harness.connect();
    const first = inputRequired(await retry(peer, 'greet', undefined, undefined));
    for (const inputResponses of [null, [], 'answers', 3]) {
      const response = await peer.request('tools/call', { name: 'greet', arguments: {}, requestState: first.requestState, inputResponses }, { capabilities: ALL_INPUT_CAPABILITIES });
      assert.match(errorOf(response, -32602).message, /inputResponses/, JSON.stringify(inputResponses));
    }
    harness.assertClean();
  });
});

describe('input rounds: capabilities the request did not declare are -32021', () => {
  const cases: Array<{ readonly title: string; readonly declared: JsonObject; readonly required: JsonObject; readonly ask: (ctx: FeatureContext) => Promise<unknown> }> = [
    { title: 'form elicitation without elicitation', declared: { roots: {} }, required: { elicitation: {} }, ask: (ctx) => askName(ctx) },
    {
      title: 'URL elicitation with form-only elicitation',
      declared: { elicitation: {} },
      required: { elicitation: { url: {} } },
      ask: (ctx) => ctx.elicit({ mode: 'url', message: 'Sign in', url: 'https://example.com/login' } as never),
    },
    { title: 'sampling without sampling', declared: { elicitation: {} }, required: { sampling: {} }, ask: (ctx) => ctx.sample(SAMPLE as never) },
    {
      title: 'sampling with tools without sampling.tools',
      declared: { sampling: {} },
      required: { sampling: { tools: {} } },
      ask: (ctx) => ctx.sample({ ...SAMPLE, tools: [{ name: 't', inputSchema: { type: 'object' } }] } as never),
    },
    { title: 'roots without roots', declared: { sampling: {} }, required: { roots: {} }, ask: (ctx) => ctx.roots() },
  ];
  for (const { title, declared, required, ask } of cases) {
    test(title, async () => {
      await using harness = modernServer();
      harness.server.tool({ name: 'needs' }, async (_args, ctx) => (await ask(ctx), 'unreachable'));
      const peer = harness.connect();
      const error = errorOf(await retry(peer, 'needs', undefined, undefined, declared), -32021);
      assert.deepEqual(error.data, { requiredCapabilities: required });
      await peer.expectNone((message) => message['result'] !== undefined, 20);
      harness.assertClean();
    });
  }

  test('an earlier request that declared the capability does not count for this one', async () => {
    await using harness = modernServer();
    harness.server.tool({ name: 'greet' }, async (_args, ctx) => `hi ${String((await askName(ctx)).content?.['name'])}`);
    const peer = harness.connect();
    const first = inputRequired(await retry(peer, 'greet', undefined, undefined, { elicitation: {} }));
    const error = errorOf(await retry(peer, 'greet', first.requestState, { 'elicitation-1': accept({ name: 'Al' }) }, {}), -32021);
    assert.deepEqual(error.data, { requiredCapabilities: { elicitation: {} } });
    harness.assertClean();
  });

  test('one undeclared need among several asked together fails the whole request with -32021', async () => {
    await using harness = modernServer();
    harness.server.tool({ name: 'mixed' }, async (_args, ctx) => (await Promise.all([askName(ctx), ctx.roots()]), 'unreachable'));
    const peer = harness.connect();
    const response = await retry(peer, 'mixed', undefined, undefined, { elicitation: {} });
    assert.deepEqual(errorOf(response, -32021).data, { requiredCapabilities: { roots: {} } });
    await peer.expectNone((message) => message['id'] === response.id, 20);
    harness.assertClean();
  });
});

describe('input rounds: URL-mode elicitation', () => {
  test(
    'a URL-mode input request carries only the 2026-07-28 fields (message, mode, url) and is stable across rounds',
    async () => {
      await using harness = modernServer();
      harness.server.tool({ name: 'login' }, async (_args, ctx) => {
        const answer = await ctx.elicit({ mode: 'url', message: 'Sign in', url: 'https://example.com/login' } as never);
        return answer.action;
      });
      const peer = harness.connect();
      const first = inputRequired(await retry(peer, 'login', undefined, undefined));
      assert.deepEqual(first.inputRequests, { 'elicitation-1': { method: 'elicitation/create', params: { mode: 'url', message: 'Sign in', url: 'https://example.com/login' } } });
      const again = inputRequired(await retry(peer, 'login', first.requestState, {}));
      assert.deepEqual(again.inputRequests, first.inputRequests);
      harness.assertClean();
    },
  );

  test('a URL-mode elicitation completes with an accept answer', async () => {
    await using harness = modernServer();
    harness.server.tool({ name: 'login' }, async (_args, ctx) => (await ctx.elicit({ mode: 'url', message: 'Sign in', url: 'https://example.com/login' } as never)).action);
    const peer = harness.connect();
    const first = inputRequired(await retry(peer, 'login', undefined, undefined));
    assert.equal(first.inputRequests['elicitation-1']?.params?.['mode'], 'url');
    assert.equal(toolText(await retry(peer, 'login', first.requestState, { 'elicitation-1': { action: 'accept' } })), 'accept');
    harness.assertClean();
  });
});
