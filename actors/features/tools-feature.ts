/**
 * `tools/list` and `tools/call`.
 *
 * Arguments are validated with the validator compiled when the tool was registered. Invalid arguments and
 * failing handlers come back as results with `isError: true` (the model can read them and correct itself);
 * unknown tools and malformed requests are protocol errors (-32602). A tool that declares an
 * `outputSchema` has its `structuredContent` checked before it is sent.
 */
import { ErrorCode } from '../../core/error-codes.ts';
import { WireError } from '../../core/errors.ts';
import type { JsonObject } from '../../core/jsonrpc.ts';
import type { CallToolResult } from '../../core/protocol/tools.ts';
import type { ValidationOutcome } from '../../core/schema/index.ts';
import type { RequestHandler } from '../handler-types.ts';
import type { ServerCatalog, ToolEntry, ToolReturn } from './catalog.ts';
import { type FeatureContext } from './feature-context.ts';
import { type FinishedOutput, continueAfter, runFinished } from './handler-output.ts';
import { listHandler } from './list-handler.ts';

export interface ToolCallRuntime {
  /** Builds the handler context of one request. */
  readonly context: (request: Parameters<RequestHandler>[1]) => FeatureContext;
}

export function toolHandlers(catalog: ServerCatalog, pageSize: number, runtime: ToolCallRuntime): Record<string, RequestHandler> {
  return {
    'tools/list': listHandler(catalog.tools, 'tools', pageSize),
    'tools/call': (params, request) => {
      const name = params?.['name'];
      if (typeof name !== 'string') throw new WireError(ErrorCode.InvalidParams, 'Invalid params: tools/call needs a string "name"');
      const entry = catalog.tools.get(name);
      if (entry === undefined) throw new WireError(ErrorCode.InvalidParams, `Invalid params: unknown tool "${name}"`);
      const args = params?.['arguments'] ?? {};
      if (typeof args !== 'object' || args === null || Array.isArray(args)) {
        throw new WireError(ErrorCode.InvalidParams, 'Invalid params: tools/call "arguments" must be an object');
      }
      const checked = entry.input.validate(args);
      const proceed = (outcome: ValidationOutcome): FinishedOutput<CallToolResult> =>
        outcome.ok ? callTool(entry, outcome.value as JsonObject, runtime.context(request)) : errorResult(outcome.summary);
      return isPromise(checked) ? continueAfter(checked, proceed) : proceed(checked);
    },
  };
}

function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return value instanceof Promise;
}

function callTool(entry: ToolEntry, args: JsonObject, context: FeatureContext): FinishedOutput<CallToolResult> {
  return runFinished<ToolReturn, CallToolResult>(() => (entry.handler as (a: JsonObject, c: FeatureContext) => ReturnType<ToolEntry['handler']>)(args, context), {
    finish: (value) => finishToolResult(entry, value),
    recover: (error) => {
      // A deliberate protocol error stays one; any other failure is the tool's, reported to the model.
      if (error instanceof WireError) throw error;
      return errorResult(error instanceof Error ? error.message : String(error));
    },
  });
}

export function errorResult(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

function normalise(value: ToolReturn): CallToolResult {
  if (typeof value === 'string') return { content: [{ type: 'text', text: value }] };
  if (typeof value !== 'object' || value === null) {
    throw new WireError(ErrorCode.InternalError, 'The tool returned neither a result object nor a string');
  }
  if ('content' in value && Array.isArray(value.content)) return value as CallToolResult;
  if ('structuredContent' in value && value.structuredContent !== undefined) {
    // The spec asks for the structured result to be mirrored as text for clients that do not read it.
    return { ...value, content: [{ type: 'text', text: JSON.stringify(value.structuredContent) }] } as CallToolResult;
  }
  throw new WireError(ErrorCode.InternalError, 'The tool result has no "content" array');
}

function finishToolResult(entry: ToolEntry, value: ToolReturn): CallToolResult | Promise<CallToolResult> {
  const result = normalise(value);
  if (entry.output === undefined || result.isError === true) return result;
  const structured = result.structuredContent;
  if (structured === undefined) {
    throw new WireError(ErrorCode.InternalError, `Tool "${entry.definition.name}" declares an outputSchema but returned no structuredContent`);
  }
  const checked = entry.output.validate(structured);
  const accept = (outcome: ValidationOutcome): CallToolResult => {
    if (outcome.ok) return result;
    throw new WireError(ErrorCode.InternalError, `Tool "${entry.definition.name}" returned structuredContent that does not match its outputSchema: ${outcome.summary}`);
  };
  return isPromise(checked) ? checked.then(accept) : accept(checked);
}
