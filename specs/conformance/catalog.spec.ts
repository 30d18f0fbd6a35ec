import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createClient } from '../../client/create-client.ts';
import { createMemoryPair } from '../../transports/memory/index.ts';
import { withSchemaOracle } from '../support/schema-oracle.ts';
import { conformanceServer } from './catalog.ts';

test('conformance catalog - every tool, resource and prompt the suite names answers in process', async () => {
  const server = conformanceServer();
  const [clientEnd, serverEnd] = createMemoryPair();
  const serverSide = withSchemaOracle(serverEnd);
  const clientSide = withSchemaOracle(clientEnd);
  server.accept(serverSide.transport);
  const client = createClient({ era: 'legacy',
    name: 'catalog-check',
    version: '0.0.0',
    sampling: (params) => ({ role: 'assistant', content: { type: 'text', text: `echo ${JSON.stringify(params.messages[0]?.content)}` }, model: 'test' }),
    elicitation: { form: () => ({ action: 'accept', content: { username: 'testuser', email: 'test@example.com' } }) },
  });
  const session = await client.connect(clientSide.transport);
  await session.setLogLevel('debug');
  const tools = await session.listTools();
  assert.ok(tools.every((tool) => typeof tool.description === 'string' && tool.inputSchema.type === 'object'));
  const expectText: Record<string, RegExp> = {
    test_simple_text: /simple text response/,
    test_tool_with_logging: /Logging completed/,
    test_sampling: /LLM response/,
    test_elicitation: /action=accept/,
    test_elicitation_sep1034_defaults: /"name":"John Doe".*"verified":true/,
    test_error_handling: /intentionally returns an error/,
  };
  for (const [name, pattern] of Object.entries(expectText)) {
    const result = await session.callTool(name, name === 'test_sampling' ? { prompt: 'hi' } : name === 'test_elicitation' ? { message: 'who?' } : {});
    const first = result.content[0];
    assert.ok(first?.type === 'text' && pattern.test(first.text), `${name}: ${JSON.stringify(result)}`);
  }
  const progress: number[] = [];
  await session.callTool('test_tool_with_progress', {}, { onProgress: (event) => progress.push(event.progress) });
  assert.deepEqual(progress, [0, 50, 100]);
  const schema = tools.find((tool) => tool.name === 'json_schema_2020_12_tool')?.inputSchema;
  assert.equal(schema?.['$schema'], 'https://json-schema.org/draft/2020-12/schema');
  assert.equal(schema?.['additionalProperties'], false);
  const template = await session.readResource('test://template/123/data');
  assert.match(JSON.stringify(template.contents), /123/);
  const prompt = await session.getPrompt('test_prompt_with_arguments', { arg1: 'testValue1', arg2: 'testValue2' });
  assert.match(JSON.stringify(prompt.messages), /testValue1.*testValue2/);
  const completion = await session.complete({ type: 'ref/prompt', name: 'test_prompt_with_arguments' }, { name: 'arg1', value: 'test' });
  assert.ok(completion.completion.values.length > 0);
  await session.close();
  serverSide.oracle.assertClean();
  clientSide.oracle.assertClean();
});
