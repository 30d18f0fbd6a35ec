/**
 * The catalog the official conformance suite expects of a server: exact tool, resource and prompt names and
 * payloads from ../shared/conformance/SUITE-0.1.16.md §4 (legacy era) and SUITE-0.2.0-alpha.12.md §3.2 and §5
 * (revision 2026-07-28: the diagnostic tools, the multi round-trip tools and prompt, the x-mcp-header tool).
 * Built on the public `createServer` API; every tool works in both eras (the handler context's `elicit`,
 * `sample` and `roots` become server requests in the legacy era and input requests in the modern one).
 * The tasks extension's fixtures (SUITE-0.2.0-alpha.12.md §3.3, `tasks-*`) need `modern.tasks` enabled.
 */
import { interval, map, take } from 'rxjs';
import type { FeatureContext } from '../../actors/features/feature-context.ts';
import type { CreateMessageResult } from '../../core/protocol/sampling.ts';
import type { ClientCapabilities } from '../../core/protocol/capabilities.ts';
import { createServer, type McpServer } from '../../server/create-server.ts';
import { continueAsTask, taskTool } from '../../actors/features/tool-tasks.ts';
import { ErrorCode } from '../../core/error-codes.ts';
import { WireError } from '../../core/errors.ts';
import { conformanceSkills } from './skills-catalog.ts';

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
  const server = createServer({
    name: 'rxmcp-conformance-server',
    version: '0.1.0',
    instructions: 'The rxmcp conformance server.',
    // The tasks extension (io.modelcontextprotocol/tasks) in the 2026-07-28 era, for the tasks-* scenarios.
    modern: { tasks: {} },
    // The skills extension (io.modelcontextprotocol/skills), for the sep-2640-skills-* scenarios.
    extensions: [conformanceSkills()],
  });
  addTools(server);
  addModernTools(server);
  addTaskTools(server);
  addResources(server);
  addPrompts(server);
  addModernPrompts(server);
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
      // The alpha suite's fixture (a superset of 0.1.16's): it must be listed verbatim.
      inputSchema: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        $defs: { address: { $anchor: 'addressDef', type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
        properties: {
          name: { type: 'string' },
          address: { $ref: '#/$defs/address' },
          contactMethod: { type: 'string', enum: ['phone', 'email'] },
          phone: { type: 'string' },
          email: { type: 'string' },
        },
        allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
        if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
        then: { required: ['phone'] },
        else: { required: ['email'] },
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

/** The text of a sampling answer (its first text block). */
function sampledText(result: CreateMessageResult): string {
  const blocks = Array.isArray(result.content) ? result.content : [result.content];
  const text = blocks.find((block) => block.type === 'text');
  return text !== undefined && text.type === 'text' ? text.text : JSON.stringify(result.content);
}

const nameSchema = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } as const;
const confirmSchema = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } as const;

/** Asks for the user's name under `key` (elicitation in form mode). */
async function askName(ctx: FeatureContext, key: string, message = 'What is your name?'): Promise<string> {
  const result = await ctx.elicit({ message, requestedSchema: nameSchema }, { key });
  return result.action === 'accept' ? String(result.content?.['name'] ?? '') : `(${result.action})`;
}

/** The client's declared capabilities for this request (the request's envelope in the modern era). */
function clientCapabilities(ctx: FeatureContext): ClientCapabilities {
  return (ctx.session.peerCapabilities ?? {}) as ClientCapabilities;
}

/**
 * Revision 2026-07-28 (SUITE-0.2.0-alpha.12.md §3.2): the diagnostic tools of server-stateless, the multi
 * round-trip (input_required) tools and the tool with an `x-mcp-header` parameter. Input request keys,
 * messages and schemas are the suite's.
 */
function addModernTools(server: McpServer): void {
  // Needs sampling: a request that does not declare it is refused with -32021 (requiredCapabilities {sampling:{}}).
  server.tool({ name: 'test_missing_capability', description: 'Needs the client sampling capability' }, async (_args, ctx) => {
    const result = await ctx.sample(
      { messages: [{ role: 'user', content: { type: 'text', text: 'Say hello' } }], maxTokens: 20 },
      { key: 'capability_probe' },
    );
    return `Sampled: ${sampledText(result)}`;
  });
  // A tool that needs the user mid-call: in the legacy era a server request on the call's stream, in the
  // modern era an input_required answer (the stream then carries no independent requests).
  server.tool({ name: 'test_streaming_elicitation', description: 'Asks the user for input while it runs' }, async (_args, ctx) => {
    const name = await askName(ctx, 'user_name');
    return `Streaming elicitation completed: ${name}`;
  });
  // Logs through the request's own channel: nothing is sent unless the request asked for a log level.
  server.tool({ name: 'test_logging_tool', description: 'Logs three messages at info level' }, (_args, ctx) => {
    for (const message of ['Logging tool started', 'Logging tool working', 'Logging tool finished']) ctx.log('info', message);
    return 'Logging tool completed';
  });
  // List changes for subscriptions/listen streams (and legacy list_changed): a throwaway entry is added and
  // removed again, so the lists end as they were but listeners are told they changed.
  server.tool({ name: 'test_trigger_tool_change', description: 'Changes the tool list (listeners get tools/list_changed)' }, () => {
    server.tool({ name: 'test_throwaway_tool', description: 'Registered and removed by test_trigger_tool_change' }, () => 'throwaway').remove();
    return 'Tool list changed';
  });
  server.tool({ name: 'test_trigger_prompt_change', description: 'Changes the prompt list (listeners get prompts/list_changed)' }, () => {
    server.prompt({ name: 'test_throwaway_prompt', description: 'Registered and removed by test_trigger_prompt_change' }, () => 'throwaway').remove();
    return 'Prompt list changed';
  });
  // SEP-2243: `region` is mirrored into the Mcp-Param-Region header by modern HTTP clients; the server checks it.
  server.tool(
    {
      name: 'test_x_mcp_header',
      description: 'A tool with a parameter mirrored into the Mcp-Param-Region header',
      inputSchema: {
        type: 'object',
        properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, level: { type: 'integer' } },
        required: ['region'],
      },
    },
    (args) => `region=${String(args['region'])}`,
  );

  server.tool({ name: 'test_input_required_result_elicitation', description: 'Multi round-trip: one elicitation' }, async (_args, ctx) => {
    const name = await askName(ctx, 'user_name');
    return `Hello, ${name}!`;
  });
  server.tool({ name: 'test_input_required_result_sampling', description: 'Multi round-trip: one sampling request' }, async (_args, ctx) => {
    const result = await ctx.sample(
      { messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }], maxTokens: 100 },
      { key: 'capital_question' },
    );
    return `Sampling result: ${sampledText(result)}`;
  });
  server.tool({ name: 'test_input_required_result_list_roots', description: 'Multi round-trip: the client roots' }, async (_args, ctx) => {
    const roots = await ctx.roots({ key: 'client_roots' });
    return `Client roots: ${roots.map((root) => `${root.name ?? root.uri} (${root.uri})`).join(', ') || '(none)'}`;
  });
  // The answer of round 1 travels back in the sealed requestState; reaching the result proves it opened.
  server.tool({ name: 'test_input_required_result_request_state', description: 'Multi round-trip with request state' }, async (_args, ctx) => {
    const result = await ctx.elicit({ message: 'Please confirm', requestedSchema: confirmSchema }, { key: 'confirm' });
    return `state-ok: round ${ctx.round}, action=${result.action}, ok=${String(result.content?.['ok'])}`;
  });
  server.tool({ name: 'test_input_required_result_multiple_inputs', description: 'Multi round-trip: elicitation, sampling and roots at once' }, async (_args, ctx) => {
    const [name, greeting, roots] = await Promise.all([
      askName(ctx, 'user_name'),
      ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }], maxTokens: 50 }, { key: 'greeting' }),
      ctx.roots({ key: 'client_roots' }),
    ]);
    return `name=${name}, greeting=${sampledText(greeting)}, roots=${roots.map((root) => root.uri).join(',')}`;
  });
  // Two rounds of input: the sealed state of round 2 carries the answer of round 1, so it differs from state 1.
  server.tool({ name: 'test_input_required_result_multi_round', description: 'Multi round-trip over two rounds' }, async (_args, ctx) => {
    const name = await askName(ctx, 'step1', 'Step 1: What is your name?');
    const color = await ctx.elicit(
      { message: 'Step 2: What is your favorite color?', requestedSchema: { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] } },
      { key: 'step2' },
    );
    return `${name} likes ${color.action === 'accept' ? String(color.content?.['color'] ?? '') : `(${color.action})`}`;
  });
  // The state is sealed (HMAC): a retry whose requestState was altered is refused with -32602.
  server.tool({ name: 'test_input_required_result_tampered_state', description: 'Multi round-trip whose state must not be altered' }, async (_args, ctx) => {
    const result = await ctx.elicit({ message: 'Please confirm', requestedSchema: confirmSchema }, { key: 'confirm' });
    return `state verified: action=${result.action}`;
  });
  // Asks only for what the request declares: elicitation and/or sampling.
  server.tool({ name: 'test_input_required_result_capabilities', description: 'Multi round-trip limited to the declared client capabilities' }, async (_args, ctx) => {
    const declared = clientCapabilities(ctx);
    const answers = await Promise.all([
      declared.elicitation === undefined ? undefined : askName(ctx, 'user_name'),
      declared.sampling === undefined
        ? undefined
        : ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }], maxTokens: 100 }, { key: 'capital_question' }),
    ]);
    const [name, sampled] = answers;
    return `name=${name ?? '(not asked)'}, sampling=${sampled === undefined ? '(not asked)' : sampledText(sampled)}`;
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

/** Revision 2026-07-28: a prompt that needs input (multi round-trip on prompts/get). */
function addModernPrompts(server: McpServer): void {
  server.prompt({ name: 'test_input_required_result_prompt', description: 'A prompt that asks the user for context first' }, async (_args, ctx) => {
    const result = await ctx.elicit(
      { message: 'What context should the prompt use?', requestedSchema: { type: 'object', properties: { context: { type: 'string' } }, required: ['context'] } },
      { key: 'user_context' },
    );
    const context = result.action === 'accept' ? String(result.content?.['context'] ?? '') : `(${result.action})`;
    return [{ role: 'user', content: { type: 'text', text: `Use this context: ${context}` } }];
  });
}

const confirmDeleteSchema = { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] } as const;

/**
 * The tasks extension (SUITE-0.2.0-alpha.12.md §3.3, `tasks-*` scenarios, SEP-2663). Which calls become tasks
 * is the server's choice (actors/features/tool-tasks.ts): `required` tools always (for a request declaring the
 * extension; -32021 otherwise), the `optional` ones marked `taskTool` at once, and `test_tool_with_task` only
 * after its multi round-trip round.
 */
function addTaskTools(server: McpServer): void {
  server.tool(
    { name: 'greet', description: 'Greets synchronously (never a task)', inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
    (args) => `Hello, ${String(args['name'])}!`,
  );
  server.tool(
    {
      name: 'slow_compute',
      description: 'Sleeps `seconds` then answers; a task for clients that declare the tasks extension, cancellable',
      inputSchema: { type: 'object', properties: { seconds: { type: 'number', minimum: 0 }, label: { type: 'string' } }, required: ['seconds'] },
      execution: { taskSupport: 'optional' },
    },
    taskTool(async (args, ctx) => {
      const seconds = Number(args['seconds']);
      await delay(seconds * 1000, ctx.signal);
      return `slow_compute ${String(args['label'] ?? '')} finished after ${seconds}s`;
    }),
  );
  server.tool(
    { name: 'failing_job', description: 'Always a task; reports a tool error after about a second', execution: { taskSupport: 'required' } },
    async (_args, ctx) => {
      await delay(1000, ctx.signal);
      return { content: [{ type: 'text', text: 'failing_job: the job failed (on purpose)' }], isError: true };
    },
  );
  server.tool(
    { name: 'protocol_error_job', description: 'Always a task; ends in a protocol error', execution: { taskSupport: 'required' } },
    async (_args, ctx) => {
      await delay(100, ctx.signal);
      throw new WireError(ErrorCode.InternalError, 'protocol_error_job: the server failed while running the job (on purpose)');
    },
  );
  server.tool(
    {
      name: 'confirm_delete',
      description: 'Asks the user to confirm deleting a file; a task that waits for the answer',
      inputSchema: { type: 'object', properties: { filename: { type: 'string' } }, required: ['filename'] },
      execution: { taskSupport: 'optional' },
    },
    taskTool(async (args, ctx) => {
      const filename = String(args['filename']);
      const answer = await ctx.elicit({ message: `Delete ${filename}?`, requestedSchema: confirmDeleteSchema }, { key: 'confirm_delete' });
      const confirmed = answer.action === 'accept' && answer.content?.['confirm'] === true;
      return confirmed ? `Deleted ${filename}` : `Kept ${filename} (${answer.action})`;
    }),
  );
  server.tool(
    { name: 'multi_input', description: 'Asks for two inputs at once; a task that waits for both', execution: { taskSupport: 'optional' } },
    taskTool(async (_args, ctx) => {
      const [name, confirmation] = await Promise.all([
        askName(ctx, 'name'),
        ctx.elicit({ message: 'Confirm?', requestedSchema: confirmDeleteSchema }, { key: 'confirmation' }),
      ]);
      return `name=${name}, confirmed=${String(confirmation.content?.['confirm'] ?? false)}`;
    }),
  );
  // Multi round-trip first (round 1 asks for user_name), then the call continues as a task.
  server.tool(
    { name: 'test_tool_with_task', description: 'Asks for a name, then finishes as a task', execution: { taskSupport: 'required' } },
    taskTool(async (_args, ctx) => {
      const name = await askName(ctx, 'user_name');
      await continueAsTask(ctx);
      await delay(200, ctx.signal);
      return `Hello, ${name}! (finished as a task)`;
    }, { start: 'on-demand' }),
  );
}
