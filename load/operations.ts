/**
 * The workload's operations made ready to send: each compiled once into a sender (through rxmcp's client, so
 * both eras are framed as they should be) and a check of its answer against its own request. A tools/call is
 * ok when its text is the expected one, or (without `expect`) when it holds the call's token; an answer that
 * holds another call's token is reported as such. Lists, reads and prompts are checked for their shape, and for
 * the token where their request carried one.
 */
import type { JsonObject } from '../core/jsonrpc.ts';
import type { ClientSession } from '../client/session-api.ts';
import type { Tool } from '../core/protocol/index.ts';
import { type CallValues, compileText, compileValue, usesToken, valueUsesToken } from './templates.ts';
import { LoadOptionsError, type Operation } from './options.ts';
import { OK, type Outcome } from './tally.ts';

export interface PreparedOperation {
  /** For reports: `tools/call echo`, `resources/read demo://echo/{{token}}`. */
  readonly label: string;
  readonly method: Operation['method'];
  send(session: ClientSession, values: CallValues, timeoutMs: number): Promise<unknown>;
  check(result: unknown, values: CallValues): Outcome;
}

/** Tokens look like `<run>-<lane>-<seq>_`: digits only (a server that changes case keeps them), closed by `_`. */
export function tokenPattern(run: string): RegExp {
  return new RegExp(`${run}-\\d+-\\d+_`);
}

/** Prepares the operations; the tools the server listed type string values by their input schemas. */
export function prepareOperations(operations: readonly Operation[], tools: readonly Tool[], run: string): PreparedOperation[] {
  const other = tokenPattern(run);
  return operations.map((operation) => prepare(operation, tools, other));
}

/**
 * The default workload: the server's `echo` tool, its first string argument carrying the token (required
 * arguments of other types get plain values). Throws, naming the tools there are, when it has none.
 */
export function defaultOperation(tools: readonly Tool[]): Operation {
  const echo = tools.find((tool) => tool.name === 'echo');
  if (echo === undefined) {
    const names = tools.map((tool) => tool.name);
    throw new LoadOptionsError(
      `the server has no echo tool to call by default; say what to send, e.g. --call '${names[0] ?? 'tool'} key={{token}}' (its tools: ${names.join(', ') || 'none'})`,
    );
  }
  const schema = echo.inputSchema as { readonly properties?: Record<string, { readonly type?: unknown }>; readonly required?: readonly string[] };
  const properties = Object.entries(schema.properties ?? {});
  const text = properties.find(([, property]) => property.type === 'string' || property.type === undefined)?.[0];
  const args: Record<string, unknown> = {};
  for (const [name, property] of properties) {
    if (name === text) args[name] = '{{token}}';
    else if ((schema.required ?? []).includes(name)) args[name] = plainValue(property.type);
  }
  return { method: 'tools/call', tool: 'echo', arguments: args };
}

function plainValue(type: unknown): unknown {
  if (type === 'integer' || type === 'number') return 1;
  if (type === 'boolean') return false;
  if (type === 'array') return [];
  if (type === 'object') return {};
  return 'x';
}

function prepare(operation: Operation, tools: readonly Tool[], other: RegExp): PreparedOperation {
  switch (operation.method) {
    case 'tools/call': {
      const tool = tools.find((candidate) => candidate.name === operation.tool);
      if (tool === undefined) {
        throw new LoadOptionsError(`the server has no tool ${JSON.stringify(operation.tool)} (its tools: ${tools.map((candidate) => candidate.name).join(', ') || 'none'})`);
      }
      const given = typedBySchema(operation.arguments ?? {}, tool.inputSchema);
      const args = compileValue(given);
      const expect = operation.expect === undefined ? undefined : compileOrConstant(operation.expect);
      const tokened = valueUsesToken(given);
      const name = operation.tool;
      return {
        label: `tools/call ${name}`,
        method: 'tools/call',
        send: (session, values, timeoutMs) => session.callTool(name, args(values), { timeoutMs, validateOutput: false }),
        check: (result, values) => checkToolResult(result, values, expect, tokened, other),
      };
    }
    case 'tools/list':
      return {
        label: 'tools/list',
        method: 'tools/list',
        send: (session, _values, timeoutMs) => session.session.request('tools/list', {}, { timeoutMs }),
        check: (result) => (Array.isArray((result as { tools?: unknown }).tools) ? OK : wrong('no tools array', 'a tools array', result)),
      };
    case 'resources/read': {
      const uri = compileOrConstant(operation.uri);
      const expect = operation.expect === undefined ? undefined : compileOrConstant(operation.expect);
      const tokened = usesToken(operation.uri);
      return {
        label: `resources/read ${operation.uri}`,
        method: 'resources/read',
        send: (session, values, timeoutMs) => session.session.request('resources/read', { uri: uri(values) }, { timeoutMs }),
        check: (result, values) => {
          const contents = (result as { contents?: unknown }).contents;
          if (!Array.isArray(contents)) return wrong('no contents array', 'a contents array', result);
          const texts = (contents as { text?: unknown; uri?: unknown }[]).map((content) => `${typeof content.text === 'string' ? content.text : ''}`);
          return checkText(texts.join('\n'), values, expect, tokened, other);
        },
      };
    }
    case 'prompts/get': {
      const args = compileValue<Readonly<Record<string, string>>>(operation.arguments ?? {});
      const expect = operation.expect === undefined ? undefined : compileOrConstant(operation.expect);
      const tokened = valueUsesToken(operation.arguments ?? {});
      const name = operation.prompt;
      return {
        label: `prompts/get ${name}`,
        method: 'prompts/get',
        send: (session, values, timeoutMs) => session.session.request('prompts/get', { name, arguments: args(values) as JsonObject }, { timeoutMs }),
        check: (result, values) => {
          const messages = (result as { messages?: unknown }).messages;
          if (!Array.isArray(messages)) return wrong('no messages array', 'a messages array', result);
          const texts = (messages as { content?: { text?: unknown } }[]).map((message) => (typeof message.content?.text === 'string' ? message.content.text : ''));
          return checkText(texts.join('\n'), values, expect, tokened, other);
        },
      };
    }
    case 'ping':
      return {
        label: 'ping',
        method: 'ping',
        send: (session, _values, timeoutMs) => session.session.request('ping', undefined, { timeoutMs }),
        check: (result) => (typeof result === 'object' && result !== null ? OK : wrong('not an object', 'an empty result', result)),
      };
  }
}

function compileOrConstant(text: string): (values: CallValues) => string {
  return compileText(text) ?? (() => text);
}

function checkToolResult(result: unknown, values: CallValues, expect: ((values: CallValues) => string) | undefined, tokened: boolean, other: RegExp): Outcome {
  const answer = result as { content?: unknown; structuredContent?: unknown; isError?: unknown };
  const text = Array.isArray(answer.content)
    ? (answer.content as { type?: unknown; text?: unknown }[]).filter((block) => typeof block.text === 'string').map((block) => block.text as string).join('\n')
    : '';
  if (answer.isError === true) return { kind: 'error', code: 'tool-error', message: text.slice(0, 200) };
  if (!Array.isArray(answer.content) && answer.structuredContent === undefined) return wrong('no content', 'content blocks', result);
  const seen = text === '' && answer.structuredContent !== undefined ? JSON.stringify(answer.structuredContent) : text;
  return checkText(seen, values, expect, tokened, other);
}

function checkText(text: string, values: CallValues, expect: ((values: CallValues) => string) | undefined, tokened: boolean, other: RegExp): Outcome {
  if (expect !== undefined) {
    const expected = expect(values);
    if (text === expected) return OK;
    return wrong(other.test(text) && !text.includes(values.token) ? "another call's answer" : 'text differs', expected, text);
  }
  if (!tokened || text.includes(values.token)) return OK;
  return wrong(other.test(text) ? "another call's answer" : 'token missing', `text holding ${values.token}`, text);
}

function wrong(reason: string, expected: string, got: unknown): Outcome {
  const text = typeof got === 'string' ? got : JSON.stringify(got) ?? String(got);
  return { kind: 'wrong', reason, expected, got: text.length > 200 ? `${text.slice(0, 200)}...` : text };
}

/** String leaves read as the tool's input schema types them (`count=3` for an integer is 3), as `rxmcp call` does. */
function typedBySchema(args: JsonObject, inputSchema: unknown): JsonObject {
  const properties = ((inputSchema as { properties?: unknown } | undefined)?.properties ?? {}) as Record<string, { type?: unknown }>;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) {
    const type = properties[key]?.type;
    out[key] = typeof value === 'string' && !value.includes('{{') ? typedString(value, type) : value;
  }
  return out;
}

function typedString(value: string, type: unknown): unknown {
  const types = Array.isArray(type) ? (type as unknown[]) : [type];
  if (types.includes('string') || type === undefined) return value;
  if ((types.includes('integer') || types.includes('number')) && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  if (types.includes('boolean') && (value === 'true' || value === 'false')) return value === 'true';
  if (types.includes('object') || types.includes('array')) {
    try {
      return JSON.parse(value) as unknown;
    } catch {
      return value;
    }
  }
  return value;
}
