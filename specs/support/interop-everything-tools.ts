/**
 * What specs/interop/server-everything.spec.ts expects of each tool of `@modelcontextprotocol/server-everything`
 * (2026.8.31): the arguments it adds to those built from the tool's inputSchema, and the checks on what comes
 * back. One entry per tool the server lists for a client with sampling, elicitation (form, URL) and roots.
 */
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { lastValueFrom, toArray } from 'rxjs';
import { isWireError } from '../../core/errors.ts';
import type { JsonObject } from '../../core/jsonrpc.ts';
import type { CallToolResult, ContentBlock, CreateMessageParams, ElicitRequestFormParams, LoggingMessageParams, Root } from '../../core/protocol/index.ts';
import type { ClientSession, ListChange } from '../../client/session-api.ts';
import { until } from './interop-processes.ts';

export interface ToolContext {
  readonly session: ClientSession;
  /** The arguments: built from the inputSchema, then the entry's own. */
  readonly args: JsonObject;
  readonly logs: readonly LoggingMessageParams[];
  /** The list changes announced so far. */
  readonly changes: readonly ListChange[];
  readonly samplings: readonly CreateMessageParams[];
  readonly forms: readonly ElicitRequestFormParams[];
  readonly urls: readonly string[];
  /** The result of the task started in before() (simulate-research-query needs task augmentation). */
  research(): Promise<{ readonly taskId: string; readonly result: CallToolResult }>;
  setRoots(roots: readonly Root[]): void;
}

export interface ToolCheck {
  readonly args?: JsonObject;
  run(context: ToolContext, name?: string): Promise<void>;
}

const PNG_SIGNATURE = '89504e470d0a1a0a';
const CONTENT_TYPES = new Set(['text', 'image', 'audio', 'resource_link', 'resource']);

/** Every block is a content block of a known type with its required members. */
export function assertContent(result: CallToolResult): void {
  assert.ok(Array.isArray(result.content) && result.content.length > 0, `content: ${JSON.stringify(result)}`);
  for (const block of result.content) {
    assert.ok(CONTENT_TYPES.has(block.type), `a known content type: ${block.type}`);
    if (block.type === 'text') assert.equal(typeof block.text, 'string');
    if (block.type === 'image' || block.type === 'audio') assert.ok(typeof block.data === 'string' && typeof block.mimeType === 'string');
    if (block.type === 'resource_link') assert.ok(typeof block.uri === 'string' && typeof block.name === 'string');
    if (block.type === 'resource') assert.equal(typeof block.resource.uri, 'string');
  }
}

/** The text blocks of a successful result, joined. */
export function textOf(result: CallToolResult): string {
  assert.notEqual(result.isError, true, `not an error: ${JSON.stringify(result)}`);
  assertContent(result);
  return result.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
}

async function call(context: ToolContext, name: string, args: JsonObject = context.args): Promise<CallToolResult> {
  return context.session.callTool(name, args, { timeoutMs: 15_000 });
}

const isPng = (base64: string): boolean => Buffer.from(base64, 'base64').subarray(0, 8).toString('hex') === PNG_SIGNATURE;
const blocksOf = <T extends ContentBlock['type']>(result: CallToolResult, type: T): Array<Extract<ContentBlock, { type: T }>> =>
  result.content.filter((block): block is Extract<ContentBlock, { type: T }> => block.type === type);
const dataUri = (text: string): string => `data:text/plain;base64,${Buffer.from(text).toString('base64')}`;

export const TOOL_CHECKS: Readonly<Record<string, ToolCheck>> = {
  echo: {
    args: { message: 'interop' },
    run: async (context) => assert.equal(textOf(await call(context, 'echo')), 'Echo: interop'),
  },
  'get-annotated-message': {
    args: { messageType: 'error', includeImage: true },
    async run(context) {
      const result = await call(context, 'get-annotated-message');
      assert.equal(textOf(result), 'Error: Operation failed');
      assert.deepEqual(result.content[0]?.annotations, { priority: 1, audience: ['user', 'assistant'] });
      const [image] = blocksOf(result, 'image');
      assert.ok(image !== undefined && image.mimeType === 'image/png' && isPng(image.data));
    },
  },
  'get-env': {
    async run(context) {
      const env = JSON.parse(textOf(await call(context, 'get-env'))) as Record<string, unknown>;
      assert.equal(typeof env['PATH'], 'string', 'our spawn passes PATH (the safe environment)');
    },
  },
  'get-resource-links': {
    args: { count: 4 },
    async run(context) {
      const result = await call(context, 'get-resource-links');
      assert.equal(textOf(result), 'Here are 4 resource links to resources available in this server:');
      const links = blocksOf(result, 'resource_link');
      assert.deepEqual(links.map((link) => link.uri), ['blob/1', 'text/2', 'blob/3', 'text/4'].map((path) => `demo://resource/dynamic/${path}`));
      for (const link of links) assert.equal((await context.session.readResource(link.uri)).contents[0]?.uri, link.uri, 'each link reads');
    },
  },
  'get-resource-reference': {
    args: { resourceType: 'Blob', resourceId: 3 },
    async run(context) {
      const result = await call(context, 'get-resource-reference');
      assert.match(textOf(result), /^Returning resource reference for Resource 3:/);
      const [embedded] = blocksOf(result, 'resource');
      assert.ok(embedded !== undefined && 'blob' in embedded.resource, JSON.stringify(result));
      assert.equal(embedded.resource.uri, 'demo://resource/dynamic/blob/3');
      assert.match(Buffer.from(embedded.resource.blob, 'base64').toString('utf8'), /^Resource 3: This is a base64 blob/);
    },
  },
  'get-structured-content': {
    args: { location: 'Chicago' },
    async run(context) {
      // Our client checks structuredContent against the listed outputSchema (validateOutput defaults to true).
      const result = await call(context, 'get-structured-content');
      const weather = { temperature: 36, conditions: 'Light rain / drizzle', humidity: 82 };
      assert.deepEqual(result.structuredContent, weather);
      assert.deepEqual(JSON.parse(textOf(result)), weather);
    },
  },
  'get-sum': {
    args: { a: 2, b: 3.5 },
    run: async (context) => assert.equal(textOf(await call(context, 'get-sum')), 'The sum of 2 and 3.5 is 5.5.'),
  },
  'get-tiny-image': {
    async run(context) {
      const images = blocksOf(await call(context, 'get-tiny-image'), 'image');
      assert.equal(images.length, 1);
      assert.ok(images[0]?.mimeType === 'image/png' && isPng(images[0].data));
    },
  },
  'gzip-file-as-resource': {
    // A data: URI: nothing is fetched from the network.
    args: { name: 'interop.txt.gz', data: dataUri('compress me, twice'), outputType: 'resource' },
    async run(context) {
      const changed = context.changes.filter((change) => change === 'resources').length;
      const [embedded] = blocksOf(await call(context, 'gzip-file-as-resource'), 'resource');
      assert.ok(embedded !== undefined && 'blob' in embedded.resource && embedded.resource.mimeType === 'application/gzip');
      assert.equal(gunzipSync(Buffer.from(embedded.resource.blob, 'base64')).toString('utf8'), 'compress me, twice');
      const linked = await call(context, 'gzip-file-as-resource', { ...context.args, name: 'linked.txt.gz', outputType: 'resourceLink' });
      const [link] = blocksOf(linked, 'resource_link');
      assert.equal(link?.uri, 'demo://resource/session/linked.txt.gz');
      await until(() => context.changes.filter((change) => change === 'resources').length >= changed + 2, 'each new session resource sent resources/list_changed');
      assert.ok((await context.session.listResources()).some((resource) => resource.uri === link.uri), 'the session resource is listed');
      const [read] = (await context.session.readResource(link.uri)).contents;
      assert.ok(read !== undefined && 'blob' in read);
      assert.equal(gunzipSync(Buffer.from(read.blob, 'base64')).toString('utf8'), 'compress me, twice');
    },
  },
  'toggle-simulated-logging': {
    async run(context) {
      await context.session.setLogLevel('debug');
      const from = context.logs.length;
      assert.match(textOf(await call(context, 'toggle-simulated-logging')), /^Started simulated, random-leveled logging/);
      await until(() => context.logs.slice(from).some((log) => /-?level[- ]message/i.test(String(log.data))), 'a simulated log message arrived');
      assert.match(textOf(await call(context, 'toggle-simulated-logging')), /^Stopped simulated logging/);
    },
  },
  'toggle-subscriber-updates': {
    async run(context) {
      const uri = 'demo://resource/static/document/features.md';
      const updates: string[] = [];
      const subscription = context.session.subscribe$(uri).subscribe((update) => updates.push(update.uri));
      await context.session.ping(); // the subscribe request went first
      assert.match(textOf(await call(context, 'toggle-subscriber-updates')), /^Started simulated resource updated notifications/);
      await until(() => updates.includes(uri), 'an update for the subscribed resource arrived');
      assert.match(textOf(await call(context, 'toggle-subscriber-updates')), /^Stopped simulated resource updates/);
      subscription.unsubscribe();
    },
  },
  'trigger-long-running-operation': {
    args: { duration: 0.3, steps: 3 },
    async run(context) {
      const events = await lastValueFrom(context.session.callTool$('trigger-long-running-operation', context.args, { progress: true, timeoutMs: 10_000 }).pipe(toArray()));
      assert.deepEqual(events.filter((event) => event.type === 'progress').map((event) => [event.progress, event.total]), [[1, 3], [2, 3], [3, 3]]);
      const last = events.at(-1);
      assert.ok(last?.type === 'result');
      assert.equal(textOf(last.result), 'Long running operation completed. Duration: 0.3 seconds, Steps: 3.');
    },
  },
  'get-roots-list': {
    async run(context) {
      assert.match(textOf(await call(context, 'get-roots-list')), /Current MCP Roots \(1 total\):\n\n1\. interop root\n {3}URI: file:\/\/\/tmp\/rxmcp-interop/);
      // Changing the roots sends roots/list_changed; the server asks again and shows the new list.
      context.setRoots([{ uri: 'file:///tmp/rxmcp-interop', name: 'interop root' }, { uri: 'file:///tmp/second', name: 'second' }]);
      await until(async () => /\(2 total\)[\s\S]*file:\/\/\/tmp\/second/.test(textOf(await call(context, 'get-roots-list'))), 'the server saw the new roots');
    },
  },
  'trigger-elicitation-request': {
    async run(context) {
      const from = context.forms.length;
      const text = textOf(await call(context, 'trigger-elicitation-request'));
      assert.equal(context.forms.length, from + 1);
      assert.deepEqual(context.forms[from]?.requestedSchema.required, ['name']);
      for (const line of ['✅ User provided the requested information!', '- Name: Ada Lovelace', '- Agreed to terms: true', '- Email: ada@example.com', '- Favorite Integer: 7']) {
        assert.ok(text.includes(line), `${line} in ${text}`);
      }
      assert.ok(text.includes('- Favorite Number: 3.14'), 'our client filled in the default of an omitted field');
    },
  },
  'trigger-url-elicitation': {
    args: { url: 'https://example.com/authorize', errorPath: true },
    async run(context) {
      // The error path is meant to fail: -32042 naming the URL elicitation the client must complete first.
      await assert.rejects(call(context, 'trigger-url-elicitation'), (error: unknown) => {
        assert.ok(isWireError(error) && error.code === -32042, String(error));
        const elicitations = (error.data as { elicitations?: Array<{ mode?: unknown }> } | undefined)?.elicitations;
        assert.equal(elicitations?.[0]?.mode, 'url');
        return true;
      });
      // The retry with the same arguments takes the request path: our URL handler answers.
      const text = textOf(await call(context, 'trigger-url-elicitation'));
      assert.match(text, /^✅ User completed the URL elicitation flow\.\nElicitation ID: [\w-]+\nURL: https:\/\/example\.com\/authorize/);
      assert.equal(context.urls.at(-1), 'https://example.com/authorize');
    },
  },
  'trigger-sampling-request': {
    args: { prompt: 'Say hi', maxTokens: 20 },
    async run(context) {
      const from = context.samplings.length;
      const text = textOf(await call(context, 'trigger-sampling-request'));
      const asked = context.samplings[from];
      assert.equal(asked?.maxTokens, 20);
      assert.equal(asked?.systemPrompt, 'You are a helpful test server.');
      assert.match(JSON.stringify(asked?.messages), /Say hi/);
      assert.match(text, /^LLM sampling result: /);
      assert.deepEqual(JSON.parse(text.replace(/^LLM sampling result: \n/, '')), {
        role: 'assistant',
        model: 'rxmcp-interop-model',
        content: { type: 'text', text: 'Hi from the interop model.' },
        stopReason: 'endTurn',
      });
    },
  },
  'simulate-research-query': {
    args: { topic: 'rust' },
    async run(context) {
      // Without task augmentation the tool is meant to fail (taskSupport: required): an isError result.
      const refused = await call(context, 'simulate-research-query');
      assert.equal(refused.isError, true);
      assert.match(JSON.stringify(refused.content), /requires task augmentation/);
      // As a task (started in before()), it runs its four stages and yields the report through tasks/result.
      const { taskId, result } = await context.research();
      assert.match(textOf(result), /^# Research Report: rust\n/);
      const task = await context.session.getTask(taskId);
      assert.equal(task.status, 'completed');
    },
  },
};
