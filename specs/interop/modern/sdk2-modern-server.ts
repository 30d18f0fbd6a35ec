/**
 * The official SDK 2.x server (@modelcontextprotocol/server) our client is pointed at in the modern-era interop
 * specs: a factory of `McpServer` instances, as the SDK's dual-era entries want it (`serveStdio` pins one per
 * stdio connection; `createMcpHandler` makes one per HTTP request), with the SDK's own idioms for 2026-07-28
 * input: a tool answers `inputRequired(...)` until `ctx.mcpReq.inputResponses` carries the answers.
 *
 * Tools:
 *   echo {text}        -> "echo:<text>"
 *   confirm {what}     -> input_required (elicitation "Confirm <what>?", {ok: boolean}, requestState "round1"),
 *                         then "confirmed <what>: ok=<ok> state=<requestState>"
 *   sample-roots       -> input_required (sampling "hi" + roots/list at once),
 *                         then "sampled <model>: <text>; roots: <uri> <uri>"
 *   add-tool {name}    -> registers a tool <name> ("dynamic <name>") on this instance and every later one, and
 *                         publishes tools/list_changed (the instance's own notification on stdio; the handler's
 *                         bus under createMcpHandler, through `onToolsChanged`)
 *   hang {key}         -> runs until its request is cancelled; hang-state {key} -> "unknown" | "running" | "aborted"
 *   touch              -> publishes resources/updated for config://app, then "touched config://app"
 * Resource: config://app ("cfg-body"). Prompt: greet {name} -> "Hello <name>".
 */
import { type McpServer, McpServer as SdkMcpServer, acceptedContent, inputRequired, inputResponse } from '@modelcontextprotocol/server';
import { z } from 'zod';

export const SDK2_SERVER_NAME = 'sdk2-modern-server';
export const SDK2_TOOLS = ['add-tool', 'confirm', 'echo', 'hang', 'hang-state', 'sample-roots', 'touch'] as const;
export const CONFIG_URI = 'config://app';
export const CONFIG_TEXT = 'cfg-body';

const text = (value: string): { content: Array<{ type: 'text'; text: string }> } => ({ content: [{ type: 'text', text: value }] });

export interface Sdk2ServerFactoryOptions {
  /** Called after `add-tool` registered its tool (HTTP: publish on the handler's bus). */
  readonly onToolsChanged?: () => void;
  /** Publishes `notifications/resources/updated` (HTTP: the handler's bus; default: the instance's own). */
  readonly onResourceUpdated?: (uri: string) => void;
  /** Declare `resources.subscribe` (default true); without it the SDK honours no resource subscription. */
  readonly resourceSubscribe?: boolean;
}

/** A factory of SDK 2.x servers sharing the tools added at run time. */
export function sdk2ServerFactory(options: Sdk2ServerFactoryOptions = {}): () => McpServer {
  const added = new Set<string>();
  const hangs = new Map<string, 'running' | 'aborted'>();
  const registerDynamic = (server: McpServer, name: string): void => {
    server.registerTool(name, { description: 'Added at run time' }, () => text(`dynamic ${name}`));
  };
  return () => {
    const server = new SdkMcpServer(
      { name: SDK2_SERVER_NAME, version: '2.4.0' },
      { capabilities: { tools: { listChanged: true }, resources: { listChanged: true, subscribe: options.resourceSubscribe ?? true }, prompts: { listChanged: true } }, instructions: 'An SDK 2.x server.' },
    );
    server.registerTool('echo', { description: 'Echoes its text', inputSchema: z.object({ text: z.string() }) }, ({ text: value }) => text(`echo:${value}`));
    server.registerTool('confirm', { description: 'Asks for a confirmation', inputSchema: z.object({ what: z.string() }) }, ({ what }, ctx) => {
      const schema = z.object({ ok: z.boolean() });
      const answer = acceptedContent(ctx.mcpReq.inputResponses, 'c', schema);
      if (answer === undefined) {
        return inputRequired({ inputRequests: { c: inputRequired.elicit({ message: `Confirm ${what}?`, requestedSchema: schema }) }, requestState: 'round1' });
      }
      return text(`confirmed ${what}: ok=${answer.ok} state=${String(ctx.mcpReq.requestState())}`);
    });
    server.registerTool('sample-roots', { description: 'Samples and lists roots in one round' }, (ctx) => {
      const sampled = inputResponse(ctx.mcpReq.inputResponses, 's');
      const roots = inputResponse(ctx.mcpReq.inputResponses, 'r');
      if (sampled.kind !== 'sampling' || roots.kind !== 'roots') {
        return inputRequired({
          inputRequests: {
            s: inputRequired.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 10 }),
            r: inputRequired.listRoots(),
          },
        });
      }
      const content = sampled.result.content;
      const said = !Array.isArray(content) && content.type === 'text' ? content.text : '?';
      return text(`sampled ${sampled.result.model}: ${said}; roots: ${roots.roots.map((root) => root.uri).join(' ')}`);
    });
    server.registerTool('add-tool', { description: 'Registers a tool', inputSchema: z.object({ name: z.string() }) }, ({ name }) => {
      if (!added.has(name)) {
        added.add(name);
        registerDynamic(server, name);
      }
      options.onToolsChanged?.();
      return text(`added ${name}`);
    });
    server.registerTool('hang', { description: 'Runs until cancelled', inputSchema: z.object({ key: z.string() }) }, ({ key }, ctx) =>
      new Promise<never>((_resolve, reject) => {
        hangs.set(key, 'running');
        ctx.mcpReq.signal.addEventListener('abort', () => {
          hangs.set(key, 'aborted');
          reject(new Error('aborted'));
        }, { once: true });
      }),
    );
    server.registerTool('hang-state', { inputSchema: z.object({ key: z.string() }) }, ({ key }) => text(hangs.get(key) ?? 'unknown'));
    server.registerTool('touch', { description: 'Announces that config://app changed' }, async () => {
      if (options.onResourceUpdated !== undefined) options.onResourceUpdated(CONFIG_URI);
      else await server.server.sendResourceUpdated({ uri: CONFIG_URI });
      return text(`touched ${CONFIG_URI}`);
    });
    for (const name of added) registerDynamic(server, name);
    server.registerResource('config', CONFIG_URI, { mimeType: 'text/plain' }, (uri) => ({ contents: [{ uri: uri.href, text: CONFIG_TEXT }] }));
    server.registerPrompt('greet', { description: 'Greets', argsSchema: z.object({ name: z.string() }) }, ({ name }) => ({
      messages: [{ role: 'user', content: { type: 'text', text: `Hello ${name}` } }],
    }));
    return server;
  };
}
