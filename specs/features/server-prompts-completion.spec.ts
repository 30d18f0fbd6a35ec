/**
 * Server prompts and completion (FEATURES rows 41, 65-68, 96-100): prompt arguments and their errors, every
 * message content kind, and `completion/complete` for prompt arguments and template variables.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ContentBlock, PromptMessage } from '../../core/protocol/index.ts';
import { featurePair, wireErrorOf } from '../support/feature-pair.ts';

const png = Buffer.from('png').toString('base64');

describe('server prompts', () => {
  test('prompts - listed with arguments; get passes the arguments and returns the messages', async () => {
    const seen: Array<Readonly<Record<string, string>>> = [];
    await using pair = await featurePair((server) =>
      server.prompt(
        {
          name: 'review',
          title: 'Code review',
          description: 'Reviews code',
          icons: [{ src: 'data:image/png;base64,AAAA', mimeType: 'image/png' }],
          arguments: [
            { name: 'code', title: 'Code', description: 'What to review', required: true },
            { name: 'style', required: false },
          ],
        },
        (args) => {
          seen.push(args);
          return `Review this ${args['style'] ?? 'plain'} code: ${args['code']}`;
        },
      ),
    );
    assert.deepEqual(await pair.client.listPrompts(), [
      {
        name: 'review',
        title: 'Code review',
        description: 'Reviews code',
        icons: [{ src: 'data:image/png;base64,AAAA', mimeType: 'image/png' }],
        arguments: [
          { name: 'code', title: 'Code', description: 'What to review', required: true },
          { name: 'style', required: false },
        ],
      },
    ]);
    const result = await pair.client.getPrompt('review', { code: 'x = 1', style: 'terse' });
    assert.deepEqual(result, { description: 'Reviews code', messages: [{ role: 'user', content: { type: 'text', text: 'Review this terse code: x = 1' } }] });
    assert.deepEqual(seen, [{ code: 'x = 1', style: 'terse' }]);
    pair.assertClean();
  });

  test('prompts - a missing required argument and an unknown prompt are -32602; the getter does not run', async () => {
    let calls = 0;
    await using pair = await featurePair((server) =>
      server.prompt({ name: 'p', arguments: [{ name: 'a', required: true }, { name: 'b', required: true }, { name: 'c' }] }, () => (calls++, 'x')),
    );
    const missing = await wireErrorOf(pair.client.getPrompt('p', { b: '1' }), -32602);
    assert.match(missing.message, /"a"/);
    assert.doesNotMatch(missing.message, /"b"|"c"/);
    assert.match((await wireErrorOf(pair.client.getPrompt('p'), -32602)).message, /"a", "b"/);
    assert.match((await wireErrorOf(pair.client.getPrompt('nope'), -32602)).message, /unknown prompt "nope"/);
    assert.equal(calls, 0);
    assert.equal((await pair.client.getPrompt('p', { a: '1', b: '2' })).messages.length, 1);
    pair.assertClean();
  });

  test('prompts - messages carry every content kind, embedded text and blob resources included', async () => {
    const contents: ContentBlock[] = [
      { type: 'text', text: 'look at this', annotations: { audience: ['assistant'], priority: 1 } },
      { type: 'image', data: png, mimeType: 'image/png' },
      { type: 'audio', data: png, mimeType: 'audio/wav' },
      { type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'A' } },
      { type: 'resource', resource: { uri: 'file:///a.bin', blob: png } },
      { type: 'resource_link', uri: 'file:///b.txt', name: 'b', description: 'linked' },
    ];
    const messages: PromptMessage[] = contents.map((content, index) => ({ role: index % 2 === 0 ? 'user' : 'assistant', content }));
    await using pair = await featurePair((server) => server.prompt({ name: 'all' }, () => messages), { protocolVersion: '2025-11-25' });
    assert.deepEqual(await pair.client.getPrompt('all'), { messages });
    pair.assertClean();
  });

  test('prompts - a resource_link message sent to a 2025-03-26 client is valid in that revision', async () => {
    const link: PromptMessage = { role: 'user', content: { type: 'resource_link', uri: 'file:///b.txt', name: 'b' } };
    await using pair = await featurePair((server) => server.prompt({ name: 'link' }, () => [link]), { protocolVersion: '2025-03-26' });
    const { messages } = await pair.client.getPrompt('link');
    pair.assertClean();
    assert.ok(messages.every((message) => message.content.type !== 'resource_link'));
  });

  test('prompts - a getter may resolve to a full result; a value that is neither messages nor a string is -32603', async () => {
    await using pair = await featurePair((server) => {
      server.prompt({ name: 'full' }, async () => ({ description: 'own', messages: [{ role: 'assistant', content: { type: 'text', text: 'hi' } }] }));
      server.prompt({ name: 'broken' }, () => 42 as unknown as string);
    });
    assert.deepEqual(await pair.client.getPrompt('full'), { description: 'own', messages: [{ role: 'assistant', content: { type: 'text', text: 'hi' } }] });
    assert.match((await wireErrorOf(pair.client.getPrompt('broken'), -32603)).message, /neither messages nor a string/);
    pair.assertClean();
  });
});

describe('server completion', () => {
  test('completion - prompt arguments are completed with context.arguments passed to the completer', async () => {
    const calls: Array<{ value: string; context: Readonly<Record<string, string>> }> = [];
    const languages = ['python', 'perl', 'php', 'rust'];
    await using pair = await featurePair((server) =>
      server.prompt(
        {
          name: 'code',
          arguments: [
            { name: 'language', complete: (value, context) => (calls.push({ value, context: context.arguments }), languages.filter((l) => l.startsWith(value))) },
            { name: 'framework', complete: async (value, context) => (context.arguments['language'] === 'python' ? ['flask', 'fastapi'] : ['none']).filter((f) => f.startsWith(value)) },
            { name: 'plain' },
          ],
        },
        () => 'x',
      ),
    );
    assert.equal(pair.client.serverCapabilities?.completions !== undefined, true);
    const ref = { type: 'ref/prompt' as const, name: 'code' };
    assert.deepEqual(await pair.client.complete(ref, { name: 'language', value: 'p' }), { completion: { values: ['python', 'perl', 'php'], total: 3, hasMore: false } });
    assert.deepEqual((await pair.client.complete(ref, { name: 'framework', value: 'f' }, { language: 'python' })).completion.values, ['flask', 'fastapi']);
    assert.deepEqual((await pair.client.complete(ref, { name: 'framework', value: '' }, { language: 'rust' })).completion.values, ['none']);
    await pair.client.complete(ref, { name: 'language', value: 'r' }, { framework: 'axum' });
    assert.deepEqual(calls, [{ value: 'p', context: {} }, { value: 'r', context: { framework: 'axum' } }]);
    assert.deepEqual((await pair.client.complete(ref, { name: 'plain', value: 'x' })).completion.values, [], 'no completer: no values');
    pair.assertClean();
  });

  test('completion - template variables are completed with context.arguments passed to the completer', async () => {
    const seen: Array<Readonly<Record<string, string>>> = [];
    await using pair = await featurePair((server) =>
      server.resourceTemplate(
        {
          uriTemplate: 'repo://{owner}/{repo}',
          name: 'repo',
          complete: {
            owner: (value) => ['octo', 'oak'].filter((o) => o.startsWith(value)),
            repo: (value, context) => (seen.push(context.arguments), context.arguments['owner'] === 'octo' ? ['hello', 'help'] : []).filter((r) => r.startsWith(value)),
          },
        },
        () => 'x',
      ),
    );
    const ref = { type: 'ref/resource' as const, uri: 'repo://{owner}/{repo}' };
    assert.deepEqual((await pair.client.complete(ref, { name: 'owner', value: 'o' })).completion.values, ['octo', 'oak']);
    assert.deepEqual((await pair.client.complete(ref, { name: 'repo', value: 'hel' }, { owner: 'octo' })).completion.values, ['hello', 'help']);
    assert.deepEqual((await pair.client.complete(ref, { name: 'repo', value: 'hel' }, { owner: 'oak' })).completion.values, []);
    assert.deepEqual(seen, [{ owner: 'octo' }, { owner: 'oak' }]);
    pair.assertClean();
  });

  test('completion - more than 100 values are clipped to 100 with hasMore and total', async () => {
    const many = Array.from({ length: 250 }, (_, i) => `v${i}`);
    await using pair = await featurePair((server) =>
      server.prompt(
        {
          name: 'p',
          arguments: [
            { name: 'list', complete: () => many },
            { name: 'counted', complete: () => ({ values: many.slice(0, 120), total: 5000 }) },
          ],
        },
        () => 'x',
      ),
    );
    const ref = { type: 'ref/prompt' as const, name: 'p' };
    const { completion } = await pair.client.complete(ref, { name: 'list', value: '' });
    assert.deepEqual(completion.values, many.slice(0, 100));
    assert.equal(completion.total, 250);
    assert.equal(completion.hasMore, true);
    const counted = (await pair.client.complete(ref, { name: 'counted', value: '' })).completion;
    assert.equal(counted.values.length, 100);
    assert.equal(counted.total, 5000);
    assert.equal(counted.hasMore, true);
    pair.assertClean();
  });

  test('completion - an unknown prompt or template reference is -32602', async () => {
    await using pair = await featurePair((server) => {
      server.prompt({ name: 'p', arguments: [{ name: 'a', complete: () => ['x'] }] }, () => 'x');
      server.resourceTemplate({ uriTemplate: 'r://{id}', name: 'r', complete: { id: () => ['1'] } }, () => 'x');
    });
    assert.match((await wireErrorOf(pair.client.complete({ type: 'ref/prompt', name: 'nope' }, { name: 'a', value: '' }), -32602)).message, /unknown prompt "nope"/);
    const template = await wireErrorOf(pair.client.complete({ type: 'ref/resource', uri: 'r://{other}' }, { name: 'id', value: '' }), -32602);
    assert.match(template.message, /unknown resource template "r:\/\/\{other\}"/);
    pair.assertClean();
  });

  test('completion - a completer for a variable the template lacks is refused at registration', async () => {
    await using pair = await featurePair((server) => server.prompt({ name: 'p' }, () => 'x'));
    assert.throws(() => pair.server.resourceTemplate({ uriTemplate: 'r://{id}', name: 'r', complete: { other: () => [] } }, () => 'x'), /no variable "other"/);
    pair.assertClean();
  });
});
