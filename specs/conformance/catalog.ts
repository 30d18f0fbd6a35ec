/**
 * The catalog the official conformance suite (0.1.16) expects of a server: exact tool, resource and prompt
 * names and payloads from ../shared/conformance/SUITE-0.1.16.md §4. Built on the public `createServer` API.
 */
import { interval, map, take } from 'rxjs';
import { createServer, type McpServer } from '../../machines/server.ts';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC';
const WAV = 'UklGRjQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YRAAAAAAAAAAAAAAAAAAAAAAAAAA';

const delay = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason);
    }, { once: true });
  });

export function conformanceServer(): McpServer {
  const server = createServer({ name: 'rxmcp-conformance-server', version: '0.1.0', instructions: 'The rxmcp conformance server.' });
  addTools(server);
  addResources(server);
  addPrompts(server);
  return server;
}

function addTools(server: McpServer): void {
  server.tool({ name: 'test_simple_text', description: 'Returns simple text' }, () => 'This is a simple text response for testing.');
  server.tool({ name: 'test_image_content', description: 'Returns an image' }, () => ({ content: [{ type: 'image', data: PNG, mimeType: 'image/png' }] }));
  server.tool({ name: 'test_audio_content', description: 'Returns audio' }, () => ({ content: [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }] }));
  server.tool({ name: 'test_embedded_resource', description: 'Returns an embedded resource' }, () => ({
    content: [{ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } }],
  }));
  server.tool({ name: 'test_multiple_content_types', description: 'Returns text, an image and a resource' }, () => ({
    content: [
      { type: 'text', text: 'Multiple content types test:' },
      { type: 'image', data: PNG, mimeType: 'image/png' },
      { type: 'resource', resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: '{"test":"data","value":123}' } },
    ],
  }));
  server.tool({ name: 'test_tool_with_logging', description: 'Logs while it runs' }, async (_args, ctx) => {
    for (const message of ['Tool execution started', 'Tool processing data', 'Tool execution completed']) {
      ctx.log('info', message);
      await delay(50, ctx.signal);
    }
    return 'Logging completed';
  });
  server.tool({ name: 'test_tool_with_progress', description: 'Reports progress' }, () =>
    interval(50).pipe(take(4), map((step) => (step < 3 ? { progress: step * 50, total: 100 } : 'Progress completed'))),
  );
  server.tool({ name: 'test_error_handling', description: 'Fails on purpose' }, () => {
    throw new Error('This tool intentionally returns an error for testing');
  });
  server.tool(
    { name: 'test_sampling', description: 'Asks the client model', inputSchema: { type: 'object', properties: { prompt: { type: 'string' } }, required: ['prompt'] } },
    async (args, ctx) => {
      const result = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: String(args['prompt']) } }], maxTokens: 100 });
      const content = Array.isArray(result.content) ? result.content[0] : result.content;
      return `LLM response: ${content !== undefined && content.type === 'text' ? content.text : JSON.stringify(content)}`;
    },
  );
  server.tool(
    { name: 'test_elicitation', description: 'Asks the user', inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] } },
    async (args, ctx) => {
      const result = await ctx.elicit({
        message: String(args['message']),
        requestedSchema: { type: 'object', properties: { username: { type: 'string' }, email: { type: 'string', format: 'email' } }, required: ['username'] },
      });
      return `User response: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`;
    },
  );
  server.tool({ name: 'test_elicitation_sep1034_defaults', description: 'Elicitation with defaults' }, async (_args, ctx) => {
    const result = await ctx.elicit({
      message: 'Please review your details',
      requestedSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', default: 'John Doe' },
          age: { type: 'integer', default: 30 },
          score: { type: 'number', default: 95.5 },
          status: { type: 'string', enum: ['active', 'inactive', 'pending'], default: 'active' },
          verified: { type: 'boolean', default: true },
        },
      },
    });
    return `Elicitation completed: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`;
  });
  server.tool({ name: 'test_elicitation_sep1330_enums', description: 'Elicitation with every enum shape' }, async (_args, ctx) => {
    const option = (value: string, title: string) => ({ const: value, title });
    const result = await ctx.elicit({
      message: 'Pick options',
      requestedSchema: {
        type: 'object',
        properties: {
          untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
          titledSingle: { type: 'string', oneOf: [option('value1', 'First Option'), option('value2', 'Second Option'), option('value3', 'Third Option')] },
          legacyEnum: { type: 'string', enum: ['opt1', 'opt2', 'opt3'], enumNames: ['Option One', 'Option Two', 'Option Three'] },
          untitledMulti: { type: 'array', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
          titledMulti: { type: 'array', items: { anyOf: [option('value1', 'First Choice'), option('value2', 'Second Choice'), option('value3', 'Third Choice')] } },
        },
      },
    });
    return `Elicitation completed: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`;
  });
  server.tool(
    {
      name: 'json_schema_2020_12_tool',
      description: 'A tool whose schema uses JSON Schema 2020-12 features',
      inputSchema: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        $defs: { address: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
        properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
        additionalProperties: false,
      },
    },
    (args) => `Hello ${String(args['name'] ?? 'anonymous')}`,
  );
  server.tool({ name: 'test_reconnection', description: 'Runs long enough for the server to close its stream' }, async (_args, ctx) => {
    await delay(300, ctx.signal);
    return 'Reconnection test completed';
  });
}

function addResources(server: McpServer): void {
  server.resource({ uri: 'test://static-text', name: 'static-text', description: 'A static text resource', mimeType: 'text/plain' }, () => 'This is the content of the static text resource.');
  server.resource({ uri: 'test://static-binary', name: 'static-binary', description: 'A static binary resource', mimeType: 'image/png' }, (uri) => ({
    contents: [{ uri, mimeType: 'image/png', blob: PNG }],
  }));
  server.resource({ uri: 'test://watched-resource', name: 'watched-resource', description: 'A resource to subscribe to', mimeType: 'text/plain' }, () => 'Watched resource content.');
  server.resourceTemplate(
    { uriTemplate: 'test://template/{id}/data', name: 'template-data', description: 'Data by id', mimeType: 'application/json' },
    (uri, variables) => ({
      contents: [{ uri, mimeType: 'application/json', text: JSON.stringify({ id: variables['id'], templateTest: true, data: `Data for ID: ${String(variables['id'])}` }) }],
    }),
  );
}

function addPrompts(server: McpServer): void {
  server.prompt({ name: 'test_simple_prompt', description: 'A simple prompt' }, () => 'This is a simple prompt for testing.');
  server.prompt(
    {
      name: 'test_prompt_with_arguments',
      description: 'A prompt with arguments',
      arguments: [
        { name: 'arg1', description: 'First argument', required: true, complete: (value) => ['test-value', 'testing'].filter((candidate) => candidate.startsWith(value)) },
        { name: 'arg2', description: 'Second argument', required: true },
      ],
    },
    (args) => `Prompt with arguments: arg1='${args['arg1'] ?? ''}', arg2='${args['arg2'] ?? ''}'`,
  );
  server.prompt(
    { name: 'test_prompt_with_embedded_resource', description: 'A prompt with an embedded resource', arguments: [{ name: 'resourceUri', description: 'The resource', required: true }] },
    (args) => [
      { role: 'user', content: { type: 'resource', resource: { uri: args['resourceUri'] ?? 'test://example-resource', mimeType: 'text/plain', text: 'Embedded resource content for testing.' } } },
      { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
    ],
  );
  server.prompt({ name: 'test_prompt_with_image', description: 'A prompt with an image' }, () => [
    { role: 'user', content: { type: 'image', data: PNG, mimeType: 'image/png' } },
    { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
  ]);
}
