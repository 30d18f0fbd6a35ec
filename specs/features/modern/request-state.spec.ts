/**
 * Modern era (2026-07-28): the `requestState` of multi round-trip requests is attacker-controlled (FEATURES
 * #86). The server refuses (-32602) a state that was forged, edited, expired, or issued for another method,
 * tool or set of arguments; a state sealed by another process holding the same `modern.stateKeys` is taken
 * (a retry may land anywhere), one sealed with another key is not.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { JsonObject } from '../../../core/jsonrpc.ts';
import type { McpServer } from '../../../server/create-server.ts';
import { createStateSealer } from '../../../core/request-state.ts';
import { TestClock } from '../../support/test-clock.ts';
import { ALL_INPUT_CAPABILITIES, type ModernHarness, type ModernPeer, type WireResponse, errorOf, modernServer, resultOf, toolText, warmUp } from './modern-peer.ts';

before(warmUp);

const KEY_A = 'spec-state-key-A-0123456789abcdef0123456789';
const KEY_B = 'spec-state-key-B-0123456789abcdef0123456789';
const SCHEMA = { type: 'object', properties: { name: { type: 'string' } } } as const;
const ANSWER = { 'elicitation-1': { action: 'accept', content: { name: 'Ada' } } };

/** Registers `greet` and `other` (both elicit a name) and a prompt `greet` that does the same. */
function withAskers(harness: ModernHarness): ModernHarness {
  register(harness.server);
  return harness;
}

function register(server: McpServer): void {
  for (const name of ['greet', 'other']) {
    server.tool({ name, inputSchema: { type: 'object', properties: { lang: { type: 'string' }, n: { type: 'integer' } } } }, async (args: JsonObject, ctx) => {
      const answer = await ctx.elicit({ message: 'Name?', requestedSchema: SCHEMA });
      return `${name} ${String(answer.content?.['name'])} ${JSON.stringify(args)}`;
    });
  }
  server.prompt({ name: 'greet' }, async (_args, ctx) => {
    const answer = await ctx.elicit({ message: 'Name?', requestedSchema: SCHEMA });
    return { messages: [{ role: 'user', content: { type: 'text', text: String(answer.content?.['name']) } }] };
  });
}

function call(peer: ModernPeer, name: string, args: JsonObject, state?: unknown, answers: JsonObject = ANSWER): Promise<WireResponse> {
  return peer.request('tools/call', { name, arguments: args, ...(state === undefined ? {} : { requestState: state as string, inputResponses: answers }) }, { capabilities: ALL_INPUT_CAPABILITIES });
}

async function stateOf(peer: ModernPeer, name = 'greet', args: JsonObject = {}): Promise<string> {
  const result = resultOf(await call(peer, name, args));
  assert.equal(result['resultType'], 'input_required');
  return result['requestState'] as string;
}

function refused(response: WireResponse): void {
  assert.match(errorOf(response, -32602).message, /requestState/);
}

describe('request state: integrity', () => {
  test('a state edited anywhere (version, key id, body, tag) is -32602', async () => {
    await using harness = withAskers(modernServer());
    const peer = harness.connect();
    const state = await stateOf(peer);
    const parts = state.split('.');
    assert.equal(parts.length, 4);
    const [version, keyId, body, tag] = parts as [string, string, string, string];
    const flip = (text: string, at: number): string => text.slice(0, at) + (text[at] === 'A' ? 'B' : 'A') + text.slice(at + 1);
    // The body is readable JSON: claim a later round with a forged answer, keeping the old tag.
    const decoded = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { payload: JsonObject };
    const forgedBody = Buffer.from(JSON.stringify({ ...decoded, payload: { answers: ANSWER, round: 5 } }), 'utf8').toString('base64url');
    for (const edited of [
      ['rxs2', keyId, body, tag].join('.'),
      [version, flip(keyId, 0), body, tag].join('.'),
      [version, keyId, flip(body, 5), tag].join('.'),
      [version, keyId, forgedBody, tag].join('.'),
      [version, keyId, body, flip(tag, 3)].join('.'),
      `${state}x`,
      state.slice(0, -1),
    ]) {
      refused(await call(peer, 'greet', {}, edited, {}));
    }
    // The genuine state still works.
    assert.equal(toolText(await call(peer, 'greet', {}, state)), 'greet Ada {}');
    harness.assertClean();
  });

  test('forged states are -32602: garbage, empty, non-strings, and a well-formed state sealed with an unknown key', async () => {
    await using harness = withAskers(modernServer({ modern: { stateKeys: [KEY_A] } }));
    const peer = harness.connect();
    const outsider = createStateSealer({ keys: [KEY_B] });
    const forged = outsider.seal({ answers: ANSWER, round: 1 }, { purpose: 'tools/call\u0000greet\u0000' });
    for (const state of ['garbage', '', 'rxs1...', 42, { round: 1 }, ['x'], null, true, forged]) {
      refused(await call(peer, 'greet', {}, state));
    }
    harness.assertClean();
  });

  test('a refused state never runs the handler', async () => {
    await using harness = modernServer();
    let runs = 0;
    harness.server.tool({ name: 'count' }, async (_args, ctx) => {
      runs++;
      await ctx.roots();
      return 'done';
    });
    const peer = harness.connect();
    refused(await call(peer, 'count', {}, 'not-a-state', {}));
    assert.equal(runs, 0);
    harness.assertClean();
  });
});

describe('request state: binding to the request', () => {
  test('a state replayed on another tool is -32602', async () => {
    await using harness = withAskers(modernServer());
    const peer = harness.connect();
    const state = await stateOf(peer, 'greet');
    refused(await call(peer, 'other', {}, state));
    harness.assertClean();
  });

  test('a state replayed on another method with the same name is -32602', async () => {
    await using harness = withAskers(modernServer());
    const peer = harness.connect();
    const state = await stateOf(peer, 'greet');
    refused(await peer.request('prompts/get', { name: 'greet', requestState: state, inputResponses: ANSWER }, { capabilities: ALL_INPUT_CAPABILITIES }));
    harness.assertClean();
  });

  test('a state replayed with other arguments is -32602 (added, removed or changed)', async () => {
    await using harness = withAskers(modernServer());
    const peer = harness.connect();
    const state = await stateOf(peer, 'greet', { lang: 'en', n: 1 });
    refused(await call(peer, 'greet', { lang: 'fr', n: 1 }, state));
    refused(await call(peer, 'greet', { lang: 'en' }, state));
    refused(await call(peer, 'greet', { lang: 'en', n: 1, extra: true }, state));
    refused(await call(peer, 'greet', { lang: 'en', n: '1' }, state));
    assert.equal(toolText(await call(peer, 'greet', { lang: 'en', n: 1 }, state)), 'greet Ada {"lang":"en","n":1}');
    harness.assertClean();
  });

  test('the same arguments written in another key order are the same request', async () => {
    await using harness = withAskers(modernServer());
    const peer = harness.connect();
    const state = await stateOf(peer, 'greet', { lang: 'en', n: 1 });
    assert.equal(toolText(await call(peer, 'greet', { n: 1, lang: 'en' }, state)), 'greet Ada {"n":1,"lang":"en"}');
    harness.assertClean();
  });

  test('a resources/read state is bound to its URI', async () => {
    await using harness = modernServer();
    harness.server.resourceTemplate({ uriTemplate: 'memo://docs/{id}', name: 'doc' }, async (uri, _vars, ctx) => `${uri} ${(await ctx.roots()).length}`);
    const peer = harness.connect();
    const asked = resultOf(await peer.request('resources/read', { uri: 'memo://docs/1' }, { capabilities: ALL_INPUT_CAPABILITIES }));
    const state = asked['requestState'] as string;
    const answers = { 'roots-1': { roots: [] } };
    refused(await peer.request('resources/read', { uri: 'memo://docs/2', requestState: state, inputResponses: answers }, { capabilities: ALL_INPUT_CAPABILITIES }));
    const done = resultOf(await peer.request('resources/read', { uri: 'memo://docs/1', requestState: state, inputResponses: answers }, { capabilities: ALL_INPUT_CAPABILITIES }));
    assert.deepEqual(done['contents'], [{ uri: 'memo://docs/1', text: 'memo://docs/1 0' }]);
    harness.assertClean();
  });
});

describe('request state: expiry', () => {
  test('a state is refused once modern.stateTtlMs has passed on the session clock, and taken just before', async () => {
    const clock = new TestClock(1_000_000);
    await using harness = withAskers(modernServer({ session: { clock }, modern: { stateTtlMs: 1000 } }));
    const peer = harness.connect();
    const fresh = await stateOf(peer);
    clock.advance(999);
    assert.equal(toolText(await call(peer, 'greet', {}, fresh)), 'greet Ada {}');
    const stale = await stateOf(peer);
    clock.advance(1000);
    refused(await call(peer, 'greet', {}, stale));
    harness.assertClean();
  });

  test('the default lifetime is ten minutes', async () => {
    const clock = new TestClock(0);
    await using harness = withAskers(modernServer({ session: { clock } }));
    const peer = harness.connect();
    const early = await stateOf(peer);
    clock.advance(10 * 60_000 - 1);
    assert.equal(toolText(await call(peer, 'greet', {}, early)), 'greet Ada {}');
    const late = await stateOf(peer);
    clock.advance(10 * 60_000);
    refused(await call(peer, 'greet', {}, late));
    harness.assertClean();
  });
});

describe('request state: across processes', () => {
  test('a state sealed by another server with the same stateKeys continues there', async () => {
    await using first = withAskers(modernServer({ modern: { stateKeys: [KEY_A] } }));
    await using second = withAskers(modernServer({ modern: { stateKeys: [KEY_A] } }));
    const state = await stateOf(first.connect(), 'greet', { lang: 'en' });
    const elsewhere = second.connect();
    assert.equal(toolText(await call(elsewhere, 'greet', { lang: 'en' }, state)), 'greet Ada {"lang":"en"}');
    first.assertClean();
    second.assertClean();
  });

  test('earlier answers sealed by one server are honoured by the other', async () => {
    await using first = modernServer({ modern: { stateKeys: [KEY_A] } });
    await using second = modernServer({ modern: { stateKeys: [KEY_A] } });
    for (const server of [first.server, second.server]) {
      server.tool({ name: 'two' }, async (_args, ctx) => {
        const a = await ctx.elicit({ message: 'A?', requestedSchema: SCHEMA });
        const b = await ctx.elicit({ message: 'B?', requestedSchema: SCHEMA });
        return `${String(a.content?.['name'])}+${String(b.content?.['name'])}`;
      });
    }
    const one = first.connect();
    const start = resultOf(await call(one, 'two', {}))['requestState'];
    const middle = resultOf(await call(one, 'two', {}, start, { 'elicitation-1': { action: 'accept', content: { name: 'x' } } }));
    assert.deepEqual(Object.keys(middle['inputRequests'] as JsonObject), ['elicitation-2']);
    const done = await call(second.connect(), 'two', {}, middle['requestState'], { 'elicitation-2': { action: 'accept', content: { name: 'y' } } });
    assert.equal(toolText(done), 'x+y');
    first.assertClean();
    second.assertClean();
  });

  test('a server with another key refuses the state; one that still lists the old key (rotation) takes it', async () => {
    await using first = withAskers(modernServer({ modern: { stateKeys: [KEY_A] } }));
    await using stranger = withAskers(modernServer({ modern: { stateKeys: [KEY_B] } }));
    await using rotated = withAskers(modernServer({ modern: { stateKeys: [KEY_B, KEY_A] } }));
    const state = await stateOf(first.connect());
    refused(await call(stranger.connect(), 'greet', {}, state));
    assert.equal(toolText(await call(rotated.connect(), 'greet', {}, state)), 'greet Ada {}');
    first.assertClean();
    stranger.assertClean();
    rotated.assertClean();
  });

  test('without stateKeys each server has a key of its own', async () => {
    await using first = withAskers(modernServer());
    await using second = withAskers(modernServer());
    const state = await stateOf(first.connect());
    refused(await call(second.connect(), 'greet', {}, state));
    first.assertClean();
    second.assertClean();
  });
});
