import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Ajv, type AnySchemaObject } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formatsModule from 'ajv-formats';
import type { JsonObject } from '../../../core/jsonrpc.ts';
import * as protocol from '../../../core/protocol/index.ts';
import type * as P from '../../../core/protocol/index.ts';

// ajv-formats is CommonJS with `export default` typings; under NodeNext the plugin is its `.default`.
const addFormats = formatsModule.default;
const SCHEMA_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', 'shared', 'spec', 'schema');

/** Validates values against `<revision>/schema.json` definitions; returns ajv's error text, '' when valid. */
function schemaOf(revision: string): (definition: string, value: unknown) => string {
  const parsed = JSON.parse(readFileSync(path.join(SCHEMA_DIR, revision, 'schema.json'), 'utf8')) as AnySchemaObject;
  const draft07 = String(parsed['$schema']).includes('draft-07');
  const options = { strict: false, allErrors: true, logger: false } as const;
  const ajv = draft07 ? new Ajv(options) : new Ajv2020(options);
  addFormats(ajv);
  const id = `https://rxmcp.invalid/mcp/${revision}/schema.json`;
  ajv.addSchema(parsed, id);
  return (definition, value) => {
    const validate = ajv.getSchema(`${id}#/${draft07 ? 'definitions' : '$defs'}/${definition}`);
    assert.ok(validate, `${revision} has no definition ${definition}`);
    return validate(value) ? '' : ajv.errorsText(validate.errors);
  };
}

const check = schemaOf('2025-11-25');

// ---- samples, each typed with our types so the compiler checks them against the declarations ----
const annotations: P.Annotations = { audience: ['user', 'assistant'], priority: 0.5, lastModified: '2025-11-25T10:00:00Z' };
const icon: P.Icon = { src: 'https://example.com/icon.png', mimeType: 'image/png', sizes: ['48x48', 'any'], theme: 'dark' };
const meta: JsonObject = { 'example.com/trace': 'abc' };
const text: P.TextContent = { type: 'text', text: 'hello', annotations, _meta: meta };
const image: P.ImageContent = { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png', annotations };
const audio: P.AudioContent = { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' };
const textContents: P.TextResourceContents = { uri: 'file:///notes.md', mimeType: 'text/markdown', text: '# Notes', _meta: meta };
const blobContents: P.BlobResourceContents = { uri: 'file:///logo.png', mimeType: 'image/png', blob: 'iVBORw0KGgo=' };
const embedded: P.EmbeddedResource = { type: 'resource', resource: textContents, annotations };
const embeddedBlob: P.EmbeddedResource = { type: 'resource', resource: blobContents };
const link: P.ResourceLink = {
  type: 'resource_link', uri: 'file:///notes.md', name: 'notes', title: 'Notes', description: 'My notes',
  mimeType: 'text/markdown', size: 7, annotations, icons: [icon], _meta: meta,
};
const toolUse: P.ToolUseContent = { type: 'tool_use', id: 'call-1', name: 'get_weather', input: { city: 'Paris' } };
const toolResult: P.ToolResultContent = {
  type: 'tool_result', toolUseId: 'call-1', content: [{ type: 'text', text: '18°C' }], structuredContent: { celsius: 18 }, isError: false,
};
const blocks: readonly P.ContentBlock[] = [text, image, audio, link, embedded, embeddedBlob];
const samplingBlocks: readonly P.SamplingMessageContentBlock[] = [text, image, audio, toolUse, toolResult];

const tool: P.Tool = {
  name: 'get_weather', title: 'Weather', description: 'Current weather for a city',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
  outputSchema: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { celsius: { type: 'number' } } },
  annotations: { title: 'Weather', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  icons: [icon], execution: { taskSupport: 'optional' }, _meta: meta,
};
const callParams: P.CallToolParams = { name: 'get_weather', arguments: { city: 'Paris' }, task: { ttl: 60_000 }, _meta: { progressToken: 7 } };
const callResult: P.CallToolResult = { content: blocks, structuredContent: { celsius: 18 }, isError: false, _meta: meta };
const resource: P.Resource = {
  uri: 'file:///notes.md', name: 'notes', title: 'Notes', description: 'My notes', mimeType: 'text/markdown', size: 7,
  annotations, icons: [icon], _meta: meta,
};
const template: P.ResourceTemplate = {
  uriTemplate: 'file:///{path}', name: 'files', title: 'Files', description: 'Any file', mimeType: 'text/plain', annotations, icons: [icon],
};
const prompt: P.Prompt = {
  name: 'review', title: 'Code review', description: 'Review code', icons: [icon], _meta: meta,
  arguments: [{ name: 'code', title: 'Code', description: 'The code', required: true }],
};
const promptResult: P.GetPromptResult = {
  description: 'Review', messages: [{ role: 'user', content: text }, { role: 'assistant', content: link }], _meta: meta,
};
const samplingMessage: P.SamplingMessage = { role: 'assistant', content: [toolUse], _meta: meta };
const createParams: P.CreateMessageParams = {
  messages: [{ role: 'user', content: text }, samplingMessage, { role: 'user', content: [toolResult] }],
  modelPreferences: { hints: [{ name: 'claude' }], costPriority: 0.2, speedPriority: 0.5, intelligencePriority: 0.9 },
  systemPrompt: 'Be brief.', includeContext: 'none', temperature: 0.7, maxTokens: 256, stopSequences: ['\n\n'],
  metadata: { provider: 'x' }, tools: [tool], toolChoice: { mode: 'auto' }, task: { ttl: 1000 }, _meta: meta,
};
const createResult: P.CreateMessageResult = { role: 'assistant', content: text, model: 'claude-x', stopReason: 'endTurn', _meta: meta };
const createResultMany: P.CreateMessageResult = { role: 'assistant', content: [text, toolUse], model: 'claude-x', stopReason: 'toolUse' };
const requestedSchema: P.ElicitRequestedSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Name', description: 'Your name', minLength: 1, maxLength: 50, format: 'email', default: 'a@b.c' },
    age: { type: 'integer', title: 'Age', minimum: 0, maximum: 150, default: 30 },
    ok: { type: 'boolean', title: 'OK?', default: true },
    color: { type: 'string', enum: ['red', 'green'], default: 'red' },
    size: { type: 'string', oneOf: [{ const: 's', title: 'Small' }, { const: 'l', title: 'Large' }], default: 's' },
    tags: { type: 'array', minItems: 1, maxItems: 2, items: { type: 'string', enum: ['a', 'b'] }, default: ['a'] },
    toppings: { type: 'array', items: { anyOf: [{ const: 'ham', title: 'Ham' }] }, default: ['ham'] },
    legacy: { type: 'string', enum: ['x', 'y'], enumNames: ['Ex', 'Why'] },
  },
  required: ['name'],
};
const formParams: P.ElicitRequestFormParams = { mode: 'form', message: 'Who are you?', requestedSchema, task: { ttl: 5 }, _meta: meta };
const urlParams: P.ElicitRequestURLParams = { mode: 'url', message: 'Sign in', elicitationId: 'e-1', url: 'https://example.com/auth', _meta: meta };
const elicitResult: P.ElicitResult = { action: 'accept', content: { name: 'a@b.c', age: 30, ok: true, tags: ['a'] }, _meta: meta };
const task: P.Task = {
  taskId: 't-1', status: 'working', statusMessage: 'busy', createdAt: '2025-11-25T10:00:00Z', lastUpdatedAt: '2025-11-25T10:00:01Z',
  ttl: null, pollInterval: 500,
};
const finishedTask: P.Task = { ...task, status: 'completed', ttl: 60_000 };
const root: P.Root = { uri: 'file:///home/me/project', name: 'project', _meta: meta };

const envelope = (method: string, params: JsonObject): JsonObject => ({ jsonrpc: '2.0', id: 1, method, params });
const notice = (method: string, params: JsonObject): JsonObject => ({ jsonrpc: '2.0', method, params });

/** [schema definition, sample] pairs; params without their own definition are checked inside their request. */
const cases: ReadonlyArray<readonly [string, unknown]> = [
  ['Annotations', annotations], ['Icon', icon], ['TextContent', text], ['ImageContent', image], ['AudioContent', audio],
  ['TextResourceContents', textContents], ['BlobResourceContents', blobContents], ['ResourceContents', blobContents],
  ['EmbeddedResource', embedded], ['EmbeddedResource', embeddedBlob], ['ResourceLink', link],
  ['ToolUseContent', toolUse], ['ToolResultContent', toolResult],
  ...blocks.map((block) => ['ContentBlock', block] as const),
  ...samplingBlocks.map((block) => ['SamplingMessageContentBlock', block] as const),
  ['Tool', tool], ['ToolAnnotations', tool.annotations], ['ToolExecution', tool.execution],
  ['ListToolsResult', { tools: [tool], nextCursor: 'c2', _meta: meta } satisfies P.ListToolsResult],
  ['CallToolRequestParams', callParams], ['CallToolResult', callResult],
  ['Resource', resource], ['ResourceTemplate', template],
  ['ListResourcesResult', { resources: [resource], nextCursor: 'c' } satisfies P.ListResourcesResult],
  ['ListResourceTemplatesResult', { resourceTemplates: [template] } satisfies P.ListResourceTemplatesResult],
  ['ReadResourceRequestParams', { uri: 'file:///notes.md', _meta: meta } satisfies P.ReadResourceParams],
  ['ReadResourceResult', { contents: [textContents, blobContents], _meta: meta } satisfies P.ReadResourceResult],
  ['SubscribeRequestParams', { uri: 'file:///notes.md' } satisfies P.SubscribeParams],
  ['UnsubscribeRequestParams', { uri: 'file:///notes.md' } satisfies P.UnsubscribeParams],
  ['ResourceUpdatedNotificationParams', { uri: 'file:///notes.md', _meta: meta } satisfies P.ResourceUpdatedParams],
  ['Prompt', prompt], ['PromptArgument', prompt.arguments?.[0]], ['PromptMessage', promptResult.messages[1]],
  ['ListPromptsResult', { prompts: [prompt], nextCursor: 'n' } satisfies P.ListPromptsResult],
  ['GetPromptRequestParams', { name: 'review', arguments: { code: 'x = 1' }, _meta: meta } satisfies P.GetPromptParams],
  ['GetPromptResult', promptResult],
  ['CompleteRequestParams', {
    ref: { type: 'ref/prompt', name: 'review', title: 'Review' }, argument: { name: 'language', value: 'py' },
    context: { arguments: { code: 'x' } }, _meta: meta,
  } satisfies P.CompleteParams],
  ['CompleteRequestParams', { ref: { type: 'ref/resource', uri: 'file:///{path}' }, argument: { name: 'path', value: 'sr' } } satisfies P.CompleteParams],
  ['CompleteResult', { completion: { values: ['python', 'pytorch'], total: 10, hasMore: true }, _meta: meta } satisfies P.CompleteResult],
  ...protocol.LOGGING_LEVELS.map((level) => ['LoggingLevel', level] as const),
  ['SetLevelRequestParams', { level: 'warning', _meta: meta } satisfies P.SetLevelParams],
  ['LoggingMessageNotificationParams', { level: 'error', logger: 'db', data: { error: 'boom', rows: [1, 2] } } satisfies P.LoggingMessageParams],
  ['SamplingMessage', samplingMessage], ['ModelPreferences', createParams.modelPreferences], ['ToolChoice', createParams.toolChoice],
  ['CreateMessageRequestParams', createParams], ['CreateMessageResult', createResult], ['CreateMessageResult', createResultMany],
  ...Object.values(requestedSchema.properties).map((property) => ['PrimitiveSchemaDefinition', property] as const),
  ['ElicitRequestFormParams', formParams], ['ElicitRequestURLParams', urlParams],
  ['ElicitRequestFormParams', { message: 'No mode', requestedSchema: { type: 'object', properties: {} } } satisfies P.ElicitParams],
  ...[formParams, urlParams].map((params): readonly [string, unknown] => ['ElicitRequestParams', params satisfies P.ElicitParams]),
  ['ElicitResult', elicitResult], ['ElicitResult', { action: 'decline' } satisfies P.ElicitResult],
  ['ElicitationCompleteNotification', notice('notifications/elicitation/complete', { elicitationId: 'e-1' } satisfies P.ElicitationCompleteParams)],
  ['URLElicitationRequiredError', {
    jsonrpc: '2.0', id: 3, error: { code: -32042, message: 'URL elicitation required', data: { elicitations: [urlParams] } satisfies P.URLElicitationRequiredData },
  }],
  ['Root', root], ['ListRootsResult', { roots: [root, { uri: 'file:///tmp' }], _meta: meta } satisfies P.ListRootsResult],
  ['Task', task], ['Task', finishedTask], ['TaskMetadata', { ttl: 1000 } satisfies P.TaskMetadata],
  ...protocol.TASK_STATUSES.map((status) => ['TaskStatus', status] as const),
  ['CreateTaskResult', { task, _meta: meta } satisfies P.CreateTaskResult],
  ['GetTaskRequest', envelope('tasks/get', { taskId: 't-1' } satisfies P.GetTaskParams)],
  ['GetTaskPayloadRequest', envelope('tasks/result', { taskId: 't-1' } satisfies P.GetTaskPayloadParams)],
  ['GetTaskResult', { ...finishedTask, _meta: meta } satisfies P.GetTaskResult],
  ['ListTasksResult', { tasks: [task, finishedTask], nextCursor: 'x' } satisfies P.ListTasksResult],
  ['CancelTaskRequest', envelope('tasks/cancel', { taskId: 't-1' } satisfies P.CancelTaskParams)],
  ['CancelTaskResult', { ...task, status: 'cancelled' } satisfies P.CancelTaskResult],
  ['TaskStatusNotificationParams', { ...task, status: 'input_required' } satisfies P.TaskStatusNotificationParams],
  ['RelatedTaskMetadata', { taskId: 't-1' } satisfies P.RelatedTaskMetadata],
  ['PaginatedRequestParams', { cursor: 'abc', _meta: meta } satisfies P.PaginatedParams],
  ['PaginatedResult', { nextCursor: 'def' } satisfies P.PaginatedResult],
];

describe('protocol types - behaviour', () => {
  test('protocol types - every sample validates against its 2025-11-25 schema definition', () => {
    const failures = cases.map(([definition, sample], index) => [index, definition, check(definition, sample)] as const).filter(([, , e]) => e !== '');
    assert.deepEqual(failures, []);
  });

  test('protocol types - the validator is live: broken samples are rejected', () => {
    assert.notEqual(check('TextContent', { type: 'text' }), '');
    assert.notEqual(check('Tool', { name: 'x', inputSchema: { type: 'string' } }), '');
    assert.notEqual(check('Task', { ...task, ttl: '1' }), '');
    assert.notEqual(check('Icon', { ...icon, sizes: '48x48' }), '');
    assert.notEqual(check('ElicitRequestURLParams', { mode: 'url', message: 'm', url: 'https://x.y' }), '');
  });

  test('protocol types - typed params and results are assignable to JsonObject', () => {
    const values: readonly JsonObject[] = [callParams, callResult, createParams, createResult, formParams, elicitResult, promptResult, task];
    assert.equal(values.length, 8);
  });

  test('protocol types - minimal samples are valid in older revisions too', () => {
    const minimal: ReadonlyArray<readonly [string, unknown]> = [
      ['Tool', { name: 'echo', inputSchema: { type: 'object' } } satisfies P.Tool],
      ['CallToolResult', { content: [text, image, embedded] } satisfies P.CallToolResult],
      ['Resource', { uri: 'file:///a', name: 'a', mimeType: 'text/plain' } satisfies P.Resource],
      ['Prompt', { name: 'p', arguments: [{ name: 'x', required: false }] } satisfies P.Prompt],
      ['Root', { uri: 'file:///a', name: 'a' } satisfies P.Root],
      ['CreateMessageResult', { role: 'assistant', content: text, model: 'm' } satisfies P.CreateMessageResult],
      ['CompleteResult', { completion: { values: ['a'] } } satisfies P.CompleteResult],
    ];
    for (const revision of ['2025-03-26', '2025-06-18']) {
      const older = schemaOf(revision);
      for (const [definition, sample] of minimal) assert.equal(older(definition, sample), '', `${revision} ${definition}`);
    }
  });

  test('protocol types - logging levels follow the syslog order of the schema', () => {
    assert.equal(protocol.LOGGING_LEVELS.length, 8);
    assert.ok(protocol.isLoggingLevel('notice'));
    assert.ok(!protocol.isLoggingLevel('warn') && !protocol.isLoggingLevel(3));
    assert.ok(protocol.levelAtLeast('error', 'warning'));
    assert.ok(protocol.levelAtLeast('warning', 'warning'));
    assert.ok(!protocol.levelAtLeast('info', 'notice'));
    assert.ok(protocol.levelAtLeast('emergency', 'debug'));
  });

  test('protocol types - task constants', () => {
    assert.equal(protocol.RELATED_TASK_META_KEY, 'io.modelcontextprotocol/related-task');
    assert.deepEqual(protocol.TASK_STATUSES.filter(protocol.isTerminalTaskStatus), ['completed', 'failed', 'cancelled']);
    assert.equal(protocol.MAX_COMPLETION_VALUES, 100);
  });

  test('protocol types - guards accept every valid sample', () => {
    for (const block of blocks) assert.ok(protocol.isContentBlock(block), JSON.stringify(block));
    for (const block of samplingBlocks) assert.ok(protocol.isSamplingMessageContentBlock(block), JSON.stringify(block));
    assert.ok(protocol.isTool(tool) && protocol.isTool({ name: 'x', inputSchema: { type: 'object' } }));
    assert.ok(protocol.isResourceContents(textContents) && protocol.isResourceContents(blobContents));
    assert.ok(protocol.isRoot(root) && protocol.isRoot({ uri: 'file:///a' }));
    assert.ok(protocol.isElicitResult(elicitResult) && protocol.isElicitResult({ action: 'cancel' }));
    assert.ok(protocol.isCreateMessageResult(createResult) && protocol.isCreateMessageResult(createResultMany));
    assert.ok(protocol.isCallToolResult(callResult) && protocol.isCallToolResult({ content: [] }));
  });

  test('protocol types - guards reject invalid input', () => {
    const junk: readonly unknown[] = [undefined, null, 42, 'text', [], [text]];
    for (const value of junk) {
      for (const guard of [protocol.isContentBlock, protocol.isTool, protocol.isResourceContents, protocol.isRoot,
        protocol.isElicitResult, protocol.isCreateMessageResult, protocol.isCallToolResult]) {
        assert.equal(guard(value), false, `${guard.name}(${JSON.stringify(value)})`);
      }
    }
    assert.ok(!protocol.isContentBlock({ type: 'text', text: 1 }));
    assert.ok(!protocol.isContentBlock({ type: 'image', data: 'x' }));
    assert.ok(!protocol.isContentBlock(toolUse), 'tool_use is sampling-only');
    assert.ok(!protocol.isContentBlock({ type: 'resource', resource: { uri: 'file:///a' } }));
    assert.ok(!protocol.isContentBlock({ type: 'resource_link', uri: 'file:///a' }));
    assert.ok(!protocol.isContentBlock({ type: 'video', data: 'x', mimeType: 'video/mp4' }));
    assert.ok(!protocol.isSamplingMessageContentBlock({ ...toolResult, content: [toolUse] }));
    assert.ok(!protocol.isTool({ name: 'x' }) && !protocol.isTool({ name: 'x', inputSchema: { type: 'array' } }));
    assert.ok(!protocol.isTool({ inputSchema: { type: 'object' } }));
    assert.ok(!protocol.isTool({ ...tool, outputSchema: { type: 'string' } }));
    assert.ok(!protocol.isResourceContents({ uri: 'file:///a' }) && !protocol.isResourceContents({ text: 'x' }));
    assert.ok(!protocol.isRoot({ uri: 7 }) && !protocol.isRoot({ uri: 'file:///a', name: 1 }));
    assert.ok(!protocol.isElicitResult({ action: 'ok' }));
    assert.ok(!protocol.isElicitResult({ action: 'accept', content: { a: { nested: true } } }));
    assert.ok(!protocol.isElicitResult({ action: 'accept', content: { a: [1] } }));
    assert.ok(!protocol.isCreateMessageResult({ ...createResult, role: 'system' }));
    assert.ok(!protocol.isCreateMessageResult({ role: 'assistant', content: text }));
    assert.ok(!protocol.isCreateMessageResult({ ...createResult, content: [link] }));
    assert.ok(!protocol.isCallToolResult({ content: [toolUse] }) && !protocol.isCallToolResult({ content: text }));
    assert.ok(!protocol.isCallToolResult({ content: [], isError: 'yes' }));
  });
});
