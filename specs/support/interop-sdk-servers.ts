/**
 * The official SDK servers our client is pointed at (specs/interop/rxmcp-client-vs-sdk-servers.spec.ts): the
 * same catalog built with the SDK 1.x `McpServer` and with the SDK 2.x `McpServer` (pinned to the legacy era),
 * each with the SDK's own idioms. Used in process (HTTP) and by the stdio fixture programs.
 *
 * Tools:  echo {text} | add {a, b} (outputSchema {sum}) | count {steps} (progress 1..steps) |
 *         ask (elicits {name}) | summarize {text} (samples) | log (debug, info, warning, error, logger "sdk") |
 *         hang {key} (runs until cancelled) | hang-state {key} ("unknown" | "running" | "aborted")
 * Resources: sdk://readme (text), sdk://logo (blob), template sdk://items/{id} (completes id)
 * Prompt: greet {name} (completes name)
 */
import { completable as completable1 } from '@modelcontextprotocol/sdk/server/completable.js';
import { McpServer as McpServer1, ResourceTemplate as ResourceTemplate1 } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CreateMessageResultSchema, ElicitResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { McpServer as McpServer2, ResourceTemplate as ResourceTemplate2, completable as completable2 } from '@modelcontextprotocol/server';
import { z } from 'zod';

export const SDK_TOOLS = ['add', 'ask', 'count', 'echo', 'hang', 'hang-state', 'log', 'summarize'] as const;
export const README_URI = 'sdk://readme';
export const README_TEXT = 'Served by an official SDK.';
export const SDK_LOGO_URI = 'sdk://logo';
export const SDK_LOGO_BASE64 = Buffer.from('not really a png').toString('base64');
export const ITEM_TEMPLATE = 'sdk://items/{id}';
export const ITEM_IDS = ['alpha', 'beta', 'gamma', 'apex'] as const;
export const NAMES = ['Ada', 'Alan', 'Grace'] as const;
/** The revisions the 2.x server is pinned to: every 2025-era one, none of 2026-07-28. */
export const LEGACY_ONLY = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];

const text = (value: string): { content: Array<{ type: 'text'; text: string }> } => ({ content: [{ type: 'text', text: value }] });
const startsWith = (values: readonly string[]) => (value: string): string[] => values.filter((candidate) => candidate.startsWith(value));
const levels = ['debug', 'info', 'warning', 'error'] as const;

function sampledText(result: { model: string; content: unknown }): string {
  const blocks: unknown[] = Array.isArray(result.content) ? result.content : [result.content];
  const said = blocks.map((block) => ((block as { type?: unknown }).type === 'text' ? String((block as { text?: unknown }).text) : '?')).join('');
  return `${result.model}: ${said}`;
}

/** A handler that runs until its signal aborts, recording both under `key`. */
function hang(states: Map<string, string>, key: string, signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    states.set(key, 'running');
    signal.addEventListener('abort', () => {
      states.set(key, 'aborted');
      reject(new Error('aborted'));
    }, { once: true });
  });
}

const askParams = (): { message: string; requestedSchema: { type: 'object'; properties: { name: { type: 'string'; title: string } }; required: string[] } } => ({
  message: 'Who is asking?',
  requestedSchema: { type: 'object', properties: { name: { type: 'string', title: 'Name' } }, required: ['name'] },
});
const summarizeParams = (input: string): { messages: Array<{ role: 'user'; content: { type: 'text'; text: string } }>; maxTokens: number } => ({
  messages: [{ role: 'user', content: { type: 'text', text: input } }],
  maxTokens: 32,
});

/** The catalog on an SDK 1.x `McpServer` (one per connection). */
export function buildSdk1Server(): McpServer1 {
  const server = new McpServer1({ name: 'sdk1-interop-server', version: '1.0.0' }, { capabilities: { logging: {} }, instructions: 'SDK 1.x server' });
  server.registerTool('echo', { description: 'Echoes', inputSchema: { text: z.string() } }, ({ text: value }) => text(`echo: ${value}`));
  server.registerTool('add', { inputSchema: { a: z.number(), b: z.number() }, outputSchema: { sum: z.number() } }, ({ a, b }) => ({
    ...text(String(a + b)),
    structuredContent: { sum: a + b },
  }));
  server.registerTool('count', { inputSchema: { steps: z.number().int().min(1).max(10) } }, async ({ steps }, extra) => {
    const progressToken = extra._meta?.progressToken;
    for (let step = 1; step <= steps; step++) {
      if (progressToken !== undefined) {
        await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: step, total: steps, message: `step ${step}` } });
      }
    }
    return text(`counted ${steps}`);
  });
  server.registerTool('ask', { description: 'Elicits a name' }, async (extra) => {
    const answer = await extra.sendRequest({ method: 'elicitation/create', params: askParams() }, ElicitResultSchema);
    return text(answer.action === 'accept' ? `hello ${String(answer.content?.['name'])}` : answer.action);
  });
  server.registerTool('summarize', { inputSchema: { text: z.string() } }, async ({ text: value }, extra) => {
    const sampled = await extra.sendRequest({ method: 'sampling/createMessage', params: summarizeParams(value) }, CreateMessageResultSchema);
    return text(sampledText(sampled));
  });
  server.registerTool('log', { description: 'Logs at four levels' }, async (extra) => {
    // The server-level API honours the session's logging/setLevel.
    for (const level of levels) await server.sendLoggingMessage({ level, logger: 'sdk', data: { level } }, extra.sessionId);
    return text('logged');
  });
  const hangs = new Map<string, string>();
  server.registerTool('hang', { inputSchema: { key: z.string() } }, ({ key }, extra) => hang(hangs, key, extra.signal));
  server.registerTool('hang-state', { inputSchema: { key: z.string() } }, ({ key }) => text(hangs.get(key) ?? 'unknown'));
  server.registerResource('readme', README_URI, { mimeType: 'text/plain' }, (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: README_TEXT }] }));
  server.registerResource('logo', SDK_LOGO_URI, { mimeType: 'image/png' }, (uri) => ({ contents: [{ uri: uri.href, mimeType: 'image/png', blob: SDK_LOGO_BASE64 }] }));
  server.registerResource(
    'item',
    new ResourceTemplate1(ITEM_TEMPLATE, { list: undefined, complete: { id: startsWith(ITEM_IDS) } }),
    { mimeType: 'text/plain' },
    (uri, { id }) => ({ contents: [{ uri: uri.href, text: `item ${String(id)}` }] }),
  );
  server.registerPrompt('greet', { description: 'Greets someone', argsSchema: { name: completable1(z.string(), startsWith(NAMES)) } }, ({ name }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Please greet ${name}.` } }],
  }));
  return server;
}

/** The catalog on an SDK 2.x `McpServer`, accepting 2025-era revisions only. */
export function buildSdk2Server(): McpServer2 {
  const server = new McpServer2(
    { name: 'sdk2-interop-server', version: '2.0.0' },
    { capabilities: { logging: {} }, instructions: 'SDK 2.x server', supportedProtocolVersions: [...LEGACY_ONLY] },
  );
  server.registerTool('echo', { description: 'Echoes', inputSchema: z.object({ text: z.string() }) }, ({ text: value }) => text(`echo: ${value}`));
  server.registerTool('add', { inputSchema: z.object({ a: z.number(), b: z.number() }), outputSchema: z.object({ sum: z.number() }) }, ({ a, b }) => ({
    ...text(String(a + b)),
    structuredContent: { sum: a + b },
  }));
  server.registerTool('count', { inputSchema: z.object({ steps: z.number().int().min(1).max(10) }) }, async ({ steps }, ctx) => {
    const progressToken = ctx.mcpReq._meta?.progressToken;
    for (let step = 1; step <= steps; step++) {
      if (progressToken !== undefined) {
        await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress: step, total: steps, message: `step ${step}` } });
      }
    }
    return text(`counted ${steps}`);
  });
  server.registerTool('ask', { description: 'Elicits a name' }, async (ctx) => {
    const answer = await ctx.mcpReq.elicitInput(askParams());
    return text(answer.action === 'accept' ? `hello ${String(answer.content?.['name'])}` : answer.action);
  });
  server.registerTool('summarize', { inputSchema: z.object({ text: z.string() }) }, async ({ text: value }, ctx) => {
    const sampled = await ctx.mcpReq.requestSampling(summarizeParams(value));
    return text(sampledText(sampled));
  });
  server.registerTool('log', { description: 'Logs at four levels' }, async (ctx) => {
    for (const level of levels) await ctx.mcpReq.log(level, { level }, 'sdk');
    return text('logged');
  });
  const hangs = new Map<string, string>();
  server.registerTool('hang', { inputSchema: z.object({ key: z.string() }) }, ({ key }, ctx) => hang(hangs, key, ctx.mcpReq.signal));
  server.registerTool('hang-state', { inputSchema: z.object({ key: z.string() }) }, ({ key }) => text(hangs.get(key) ?? 'unknown'));
  server.registerResource('readme', README_URI, { mimeType: 'text/plain' }, (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: README_TEXT }] }));
  server.registerResource('logo', SDK_LOGO_URI, { mimeType: 'image/png' }, (uri) => ({ contents: [{ uri: uri.href, mimeType: 'image/png', blob: SDK_LOGO_BASE64 }] }));
  server.registerResource(
    'item',
    new ResourceTemplate2(ITEM_TEMPLATE, { list: undefined, complete: { id: startsWith(ITEM_IDS) } }),
    { mimeType: 'text/plain' },
    (uri, { id }) => ({ contents: [{ uri: uri.href, text: `item ${String(id)}` }] }),
  );
  server.registerPrompt('greet', { description: 'Greets someone', argsSchema: z.object({ name: completable2(z.string(), startsWith(NAMES)) }) }, ({ name }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Please greet ${name}.` } }],
  }));
  return server;
}
