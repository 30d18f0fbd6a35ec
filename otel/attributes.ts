/**
 * What a request is called in telemetry, after the OpenTelemetry semantic conventions for MCP: the span name,
 * the attributes spans and metrics share, and the `error.type` of a failure. What a method contributes comes
 * from its declaration (its `target`: which item it addresses, and whether that names the span); the
 * conventions' attribute for each kind of item is here. Pure: no OpenTelemetry import, so the names are tested
 * without an SDK.
 */
import type { MethodTarget, TargetItem } from '../core/protocol/declarations/declaration.ts';
import { declarationOf } from '../core/protocol/declarations/index.ts';
import { toolsCall } from '../core/protocol/declarations/tools.ts';
import type { InterceptedRequest } from './interceptor-contract.ts';

/** Attribute names of the MCP semantic conventions (and the JSON-RPC and general ones they reuse). */
export const ATTR = {
  methodName: 'mcp.method.name',
  sessionId: 'mcp.session.id',
  protocolVersion: 'mcp.protocol.version',
  resourceUri: 'mcp.resource.uri',
  toolName: 'gen_ai.tool.name',
  promptName: 'gen_ai.prompt.name',
  operationName: 'gen_ai.operation.name',
  requestId: 'jsonrpc.request.id',
  jsonrpcVersion: 'jsonrpc.protocol.version',
  statusCode: 'rpc.response.status_code',
  errorType: 'error.type',
} as const;

/** `error.type` of a `tools/call` answered with `isError: true` (a tool's own failure, not a protocol error). */
export const TOOL_ERROR = 'tool_error';
/** `error.type` of a request cancelled before it settled (by either side, or the caller letting go). */
export const CANCELLED = 'cancelled';
/**
 * `error.type` of a request that timed out (the sender's own timeout, or the handler's on the serving side): the
 * code of the local error, kept apart from a cancellation, as the two error families are.
 */
export const TIMED_OUT = 'RequestTimeout';

/** Whether `reason` (an error, or an abort signal's reason) is a timeout. */
export function isTimeout(reason: unknown): boolean {
  return typeof reason === 'object' && reason !== null && (reason as { code?: unknown }).code === TIMED_OUT;
}

/**
 * What ended a request that did not settle, read from its signal: a timeout (the handler's, on the serving side)
 * or a cancellation.
 */
export function unsettledTypeOf(signal: AbortSignal): string {
  return signal.aborted && isTimeout(signal.reason) ? TIMED_OUT : CANCELLED;
}

export type AttributeMap = Record<string, string | number | boolean>;

/** The conventions' attribute that names each kind of target. */
const TARGET_ATTRIBUTE: Readonly<Record<TargetItem, string>> = {
  tool: ATTR.toolName,
  prompt: ATTR.promptName,
  resource: ATTR.resourceUri,
};

/** The declared target of a request that names one (a target value and its method's declaration). */
function targetOf(request: InterceptedRequest): MethodTarget | undefined {
  return request.target === undefined ? undefined : declarationOf(request.method)?.target;
}

/**
 * The span name: `{method} {target}` where the method's declaration says its target names spans (tool and
 * prompt names); a target of high cardinality (a resource URI) only when asked (`resourceUriInSpanName`);
 * `{method}` otherwise.
 */
export function spanNameOf(request: InterceptedRequest, resourceUriInSpanName = false): string {
  const span = targetOf(request)?.span;
  return span === 'name' || (span === 'opt-in' && resourceUriInSpanName) ? `${request.method} ${request.target}` : request.method;
}

/** The low-cardinality attributes of a request, shared by its span and its metrics (a target that names spans). */
export function metricAttributesOf(request: InterceptedRequest): AttributeMap {
  const attributes: AttributeMap = { [ATTR.methodName]: request.method };
  const revision = request.session.revision;
  if (revision !== undefined) attributes[ATTR.protocolVersion] = revision;
  const target = targetOf(request);
  if (target?.span === 'name') {
    attributes[TARGET_ATTRIBUTE[target.item]] = request.target as string;
    if (request.method === toolsCall.method) attributes[ATTR.operationName] = 'execute_tool';
  }
  return attributes;
}

/** Everything a request's span carries when it starts (a target of high cardinality included). */
export function spanAttributesOf(request: InterceptedRequest): AttributeMap {
  const attributes = metricAttributesOf(request);
  attributes[ATTR.jsonrpcVersion] = '2.0';
  const target = targetOf(request);
  if (target !== undefined && target.span !== 'name') attributes[TARGET_ATTRIBUTE[target.item]] = request.target as string;
  if (request.id !== undefined) attributes[ATTR.requestId] = String(request.id);
  if (request.session.id !== undefined) attributes[ATTR.sessionId] = request.session.id;
  return attributes;
}

/**
 * The `error.type` of a failure: the JSON-RPC error code as a string (a wire error), the code of one of our
 * local errors (`RequestTimeout`...), or else the error's name.
 */
export function errorTypeOf(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'number' || (typeof code === 'string' && code !== '')) return String(code);
    const name = (error as { name?: unknown }).name;
    if (typeof name === 'string' && name !== '') return name;
  }
  return '_OTHER';
}

/** The JSON-RPC error code of a wire error, as a string; undefined for any other failure. */
export function statusCodeOf(error: unknown): string | undefined {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'number' ? String(code) : undefined;
}

/** Whether a `tools/call` result reports the tool's own failure. */
export function isToolError(method: string, result: unknown): boolean {
  return method === toolsCall.method && typeof result === 'object' && result !== null && (result as { isError?: unknown }).isError === true;
}

/** A short message of an error for a span status. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
