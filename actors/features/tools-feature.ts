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
import type { CallToolResult, Tool } from '../../core/protocol/tools.ts';
import type { ValidationOutcome } from '../../core/schema/index.ts';
import type { HandlerOutput, RequestContext, RequestHandler } from '../handler-types.ts';
import type { ServerCatalog, ToolEntry, ToolReturn } from './catalog.ts';
import { type FeatureContext } from './feature-context.ts';
import { type FinishedOutput, continueAfter, finishOutput, isDeferredOutput } from './handler-output.ts';
import { listHandler } from './list-handler.ts';
import { checkAccess } from './access.ts';
import { compatBlocks, needsContentCompat } from './content-compat.ts';

export interface ToolCallRuntime {
  /** Builds the handler context of one request. */
  readonly context: (request: Parameters<RequestHandler>[1]) => FeatureContext;
  /** Task-augmented calls (2025-11-25), when the server enables tasks: see tasks-feature.ts. */
  readonly tasks?: ToolTaskRuntime;
}

/** The task-augmented path of `tools/call`, supplied by the tasks feature. */
export interface ToolTaskRuntime {
  /**
   * Decides by `params.task` and the tool's `execution.taskSupport`: `undefined` runs the call as an ordinary
   * request; otherwise the answer (a `CreateTaskResult`), with `execute` run in the background under the
   * task's own context. Throws -32601 when the tool's task support forbids the way it was called.
   */
  route(tool: Tool, params: JsonObject | undefined, request: RequestContext, execute: (context: RequestContext) => FinishedOutput<CallToolResult>): HandlerOutput | undefined;
}

export function toolHandlers(catalog: ServerCatalog, pageSize: number, runtime: ToolCallRuntime): Record<string, RequestHandler> {
  return {
    'tools/list': listHandler(catalog.tools, 'tools', pageSize),
    'tools/call': (params, request) => {
      const name = params?.['name'];
      if (typeof name !== 'string') throw new WireError(ErrorCode.InvalidParams, 'Invalid params: tools/call needs a string "name"');
      const entry = catalog.tools.get(name);
      if (entry === undefined) throw unknownTool(name);
      if (entry.access !== undefined) checkAccess(entry.access, request.auth, `tool "${name}"`, () => unknownTool(name));
      const args = params?.['arguments'] ?? {};
      if (typeof args !== 'object' || args === null || Array.isArray(args)) {
        throw new WireError(ErrorCode.InvalidParams, 'Invalid params: tools/call "arguments" must be an object');
      }
      // --- task-augmented path (tasks-feature.ts); without tasks enabled the call is always an ordinary one ---
      const tasks = runtime.tasks;
      if (tasks !== undefined && (params?.['task'] !== undefined || entry.definition.execution?.taskSupport === 'required')) {
        const task = tasks.route(entry.definition, params, request, (context) => validateAndCall(entry, args as JsonObject, context, runtime));
        if (task !== undefined) return task;
      }
      // --- ordinary path ---
      return validateAndCall(entry, args as JsonObject, request, runtime);
    },
  };
}

const unknownTool = (name: string): WireError => new WireError(ErrorCode.InvalidParams, `Invalid params: unknown tool "${name}"`);

/**
 * Validation, then the handler (for a task: under the task's context). A synchronous validation makes no closure:
 * this runs once per `tools/call`, and closures made per call cost allocations (and, under tsx, a naming call each).
 */
function validateAndCall(entry: ToolEntry, args: JsonObject, request: RequestContext, runtime: ToolCallRuntime): FinishedOutput<CallToolResult> {
  const checked = entry.input.validate(args);
  if (isPromise(checked)) return continueAfter(checked, (outcome) => afterValidation(entry, outcome, request, runtime), request);
  return afterValidation(entry, checked, request, runtime);
}

function afterValidation(entry: ToolEntry, outcome: ValidationOutcome, request: RequestContext, runtime: ToolCallRuntime): FinishedOutput<CallToolResult> {
  return outcome.ok ? callTool(entry, outcome.value as JsonObject, runtime.context(request), request) : errorResult(outcome.summary);
}

function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return value instanceof Promise;
}

function callTool(entry: ToolEntry, args: JsonObject, context: FeatureContext, request: RequestContext): FinishedOutput<CallToolResult> {
  let output: ReturnType<ToolEntry['handler']>;
  try {
    output = (entry.handler as (a: JsonObject, c: FeatureContext) => ReturnType<ToolEntry['handler']>)(args, context);
  } catch (error) {
    return recoverToolError(error);
  }
  // A handler that answered at once is finished here; only a deferred outcome needs finishers (closures) to carry.
  if (!isDeferredOutput(output)) return finishToolCall(entry, context, output);
  return finishOutput<ToolReturn, CallToolResult>(output, {
    finish: (value) => finishToolCall(entry, context, value),
    recover: recoverToolError,
  }, request);
}

function finishToolCall(entry: ToolEntry, context: FeatureContext, value: ToolReturn): CallToolResult | PromiseLike<CallToolResult> {
  const result = finishToolResult(entry, value);
  const revision = context.session.revision;
  if (!needsContentCompat(revision)) return result;
  const downgrade = (done: CallToolResult): CallToolResult => ({ ...done, content: compatBlocks(done.content, revision) as CallToolResult['content'] });
  return result instanceof Promise ? result.then(downgrade) : downgrade(result as CallToolResult);
}

/** A protocol error the handler raised stays one; any other failure (including an error the client sent back for a
 * request the tool made) is the tool's, reported to the model. */
function recoverToolError(error: unknown): CallToolResult {
  if (error instanceof WireError && error.origin === 'local') throw error;
  return errorResult(error instanceof Error ? error.message : String(error));
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
