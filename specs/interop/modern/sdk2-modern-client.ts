/**
 * The official SDK 2.x `Client` (@modelcontextprotocol/client) set up to speak the modern era: version
 * negotiation `auto` (probe with `server/discover`, fall back to `initialize`), sampling, form elicitation and
 * roots declared, every handler recording what it was asked. Registered after the capabilities, as the SDK
 * requires; the client then fulfils a modern server's `input_required` rounds itself inside callTool,
 * getPrompt and readResource.
 *
 * `SameProcessStdioClientTransport`: the SDK's base `StdioClientTransport` sends the `server/discover` probe to
 * a short-lived second copy of the server program; a subclass (any subclass) probes on the same pipe, so one
 * process serves the whole test and its pid can be tracked.
 */
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

export const SDK2_CLIENT_NAME = 'sdk2-modern-client';
export const SAMPLED_MODEL = 'sdk2-model';
export const SAMPLED_TEXT = 'short and sweet';
export const CLIENT_ROOTS = [
  { uri: 'file:///work/alpha', name: 'alpha' },
  { uri: 'file:///work/beta', name: 'beta' },
] as const;

export interface Sdk2Recorded {
  readonly elicitations: Array<{ message: string; requestedSchema: unknown }>;
  readonly samplings: Array<{ text: string; maxTokens: number }>;
  rootsLists: number;
  /** Methods of the change notifications received (each with its subscription id, when the server gave one). */
  readonly changes: Array<{ method: string; subscriptionId: unknown }>;
  /** `notifications/resources/updated` URIs received. */
  readonly updates: string[];
  readonly logs: Array<{ level: string; logger: string | undefined }>;
  readonly errors: string[];
}

export class SameProcessStdioClientTransport extends StdioClientTransport {}

export function sdk2ModernClient(name = SDK2_CLIENT_NAME): { client: Client; recorded: Sdk2Recorded } {
  const recorded: Sdk2Recorded = { elicitations: [], samplings: [], rootsLists: 0, changes: [], updates: [], logs: [], errors: [] };
  const client = new Client(
    { name, version: '2.4.0' },
    {
      capabilities: { elicitation: { form: {} }, sampling: {}, roots: {} },
      versionNegotiation: { mode: 'auto' },
    },
  );
  client.setRequestHandler('elicitation/create', (request) => {
    const params = request.params as { message: string; requestedSchema?: unknown };
    recorded.elicitations.push({ message: params.message, requestedSchema: params.requestedSchema });
    return { action: 'accept', content: { ok: true } };
  });
  client.setRequestHandler('sampling/createMessage', (request) => {
    const first = request.params.messages[0]?.content;
    const text = first !== undefined && !Array.isArray(first) && first.type === 'text' ? first.text : '';
    recorded.samplings.push({ text, maxTokens: request.params.maxTokens });
    return { model: SAMPLED_MODEL, role: 'assistant', content: { type: 'text', text: SAMPLED_TEXT } };
  });
  client.setRequestHandler('roots/list', () => {
    recorded.rootsLists++;
    return { roots: CLIENT_ROOTS.map((root) => ({ ...root })) };
  });
  client.setNotificationHandler('notifications/tools/list_changed', (notification) => {
    const meta = (notification.params as { _meta?: Record<string, unknown> } | undefined)?._meta;
    recorded.changes.push({ method: notification.method, subscriptionId: meta?.['io.modelcontextprotocol/subscriptionId'] });
  });
  client.setNotificationHandler('notifications/resources/updated', (notification) => void recorded.updates.push(notification.params.uri));
  client.setNotificationHandler('notifications/message', (notification) => {
    recorded.logs.push({ level: notification.params.level, logger: notification.params.logger });
  });
  client.onerror = (error) => void recorded.errors.push(error.message);
  return { client, recorded };
}

/** The text of a tool result's first content block. */
export function firstText(result: unknown): string {
  const content = (result as { content?: unknown }).content;
  const first: unknown = Array.isArray(content) ? content[0] : undefined;
  const block = first as { type?: unknown; text?: unknown } | undefined;
  return block?.type === 'text' && typeof block.text === 'string' ? block.text : JSON.stringify(result);
}
