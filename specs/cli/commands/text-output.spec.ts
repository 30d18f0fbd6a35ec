/** What the client commands print on a terminal, and how key=value words become typed arguments. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UsageError, closestFlag } from '../../../cli/args.ts';
import { toolArguments } from '../../../cli/client/arguments.ts';
import { resultText } from '../../../cli/client/call.ts';
import { inspectionText } from '../../../cli/client/inspect.ts';

test('inspect on a terminal - aligned tables of tools (with their parameters), resources, templates and prompts', () => {
  const text = inspectionText({
    target: 'http://127.0.0.1:1/mcp',
    era: 'legacy',
    revision: '2025-11-25',
    server: { name: 'srv', version: '1.2.3' },
    capabilities: { tools: { listChanged: true }, resources: { subscribe: true }, logging: {} },
    instructions: 'Use\nwisely.',
    tools: [
      { name: 'count', description: 'Counts.', inputSchema: { type: 'object', properties: { n: { type: 'integer', default: 5 } } } },
      { name: 'stats', inputSchema: { type: 'object', properties: { numbers: { type: 'array', items: { type: 'number' } }, mode: { enum: ['a', 'b'] } }, required: ['numbers'] } },
    ],
    resources: [{ uri: 'demo://clock', name: 'clock', mimeType: 'text/plain' }],
    resourceTemplates: [],
    prompts: [{ name: 'summarize', arguments: [{ name: 'text', required: true }, { name: 'style' }] }],
  });
  assert.equal(
    text,
    [
      'server        srv 1.2.3',
      'target        http://127.0.0.1:1/mcp',
      'protocol      2025-11-25 (legacy era)',
      'capabilities  tools (listChanged), resources (subscribe), logging',
      'instructions  Use wisely.',
      '',
      'tools (2)',
      '  NAME   PARAMETERS                         DESCRIPTION',
      '  count  n?: integer = 5                    Counts.',
      '  stats  numbers: number[], mode?: "a"|"b"',
      '',
      'resources (1)',
      '  URI           NAME   MIME TYPE   DESCRIPTION',
      '  demo://clock  clock  text/plain',
      '',
      'resource templates (0)',
      '',
      'prompts (1)',
      '  NAME       ARGUMENTS     DESCRIPTION',
      '  summarize  text, style?',
    ].join('\n'),
  );
});

test('call on a terminal - text blocks as they are, other content summarised, structured content when there is no content', () => {
  assert.equal(
    resultText({
      content: [
        { type: 'text', text: 'line one\nline two' },
        { type: 'image', data: 'AAAA', mimeType: 'image/png' },
        { type: 'resource_link', uri: 'file:///a.txt', name: 'a' },
        { type: 'resource', resource: { uri: 'x://y', text: 'embedded' } },
      ],
    }),
    'line one\nline two\n[image image/png, 3 bytes]\n[resource link file:///a.txt (a)]\nembedded',
  );
  assert.equal(resultText({ content: [], structuredContent: { sum: 1 } }), '{\n  "sum": 1\n}');
});

test('call arguments - key=value typed by the input schema; a value of the wrong type names the key, the type and the value', () => {
  const schema = {
    type: 'object',
    properties: { n: { type: 'integer' }, x: { type: 'number' }, on: { type: 'boolean' }, list: { type: 'array' }, obj: { type: 'object' }, s: { type: 'string' }, either: { type: ['integer', 'string'] } },
  };
  assert.deepEqual(toolArguments('rxmcp call', 't', ['n=3', 'x=-1.5', 'on=false', 'list=[1,"a"]', 'obj={"k":1}', 's=42', 'either=7', 'free=text=with=equals'], schema), {
    n: 3,
    x: -1.5,
    on: false,
    list: [1, 'a'],
    obj: { k: 1 },
    s: '42',
    either: '7',
    free: 'text=with=equals',
  });
  assert.throws(() => toolArguments('rxmcp call', 't', ['n=three'], schema), (error: unknown) => error instanceof UsageError && /n must be an integer .* got "three"/.test(error.message));
  assert.throws(() => toolArguments('rxmcp call', 't', ['on=yes'], schema), /on must be true or false .* got "yes"/);
  assert.throws(() => toolArguments('rxmcp call', 't', ['list={"a":1}'], schema), /list must be a JSON array/);
  assert.throws(() => toolArguments('rxmcp call', 't', ['obj=nope'], schema), /obj must be JSON .* got "nope"/);
  assert.throws(() => toolArguments('rxmcp call', 't', ['n=1', 'n=2'], schema), /n is given twice/);
  assert.throws(() => toolArguments('rxmcp call', 't', ['nn=1'], { ...schema, additionalProperties: false }), /t takes no argument "nn"; did you mean n\?/);
});

test('closestFlag - suggests only what is near what was typed', () => {
  assert.equal(closestFlag('--prot', ['--port', '--host', '--stdio']), '--port');
  assert.equal(closestFlag('--verbos', ['--port', '--verbose']), '--verbose');
  assert.equal(closestFlag('--zzzzzz', ['--port', '--host']), undefined);
});
