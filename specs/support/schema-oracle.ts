/**
 * A test oracle: validates every message the project sends against the official MCP JSON Schema of the
 * revision in use, precisely (the method's own definition, the result definition of the request a response
 * answers), and records violations instead of throwing, so a test can finish and then `assertClean()`.
 *
 *   const { transport, oracle } = withSchemaOracle(rawTransport);
 *   ... run the session over `transport` ...
 *   oracle.assertClean();
 *
 * Which revision a message is checked against, first match wins:
 *   1. `options.revision()` when it returns a value (an unknown revision is itself a violation);
 *   2. the revision learned from an initialize result seen in either direction (including the initialize
 *      result being checked: a server's answer is checked against the version it announces);
 *   3. what the message names itself: an `initialize` request's `params.protocolVersion`, a 2026-style
 *      request's `_meta["io.modelcontextprotocol/protocolVersion"]`, or, for a response, the revision the
 *      request it answers named that way (the modern era has no handshake to learn from);
 *   4. 2025-11-25.
 * So once a legacy session has negotiated, a message claiming another revision is checked against the
 * negotiated one (and fails if it does not belong there).
 * Hints naming a revision without a schema (a client probing with "2099-01-01") are ignored, not reported.
 * 2024-11-05 has no schema and is checked against 2025-03-26 (see schema-registry.ts).
 */
import { AssertionError } from 'node:assert';
import { tap } from 'rxjs';
import type { RequestId } from '../../core/jsonrpc.ts';
import type { InboundFrame, OutboundFrame, Transport } from '../../core/transport.ts';
import {
  allowsBatchesIn,
  ID_LESS_ERROR_REVISION,
  loadRevisionSchema,
  type RevisionSchema,
  type Role,
  schemaRevisionFor,
} from './schema-registry.ts';

export { RESULT_DEFINITIONS, SCHEMA_REVISIONS, type Role } from './schema-registry.ts';

export const DEFAULT_REVISION = '2025-11-25';
const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';

export interface OracleViolation {
  readonly revision: string;
  readonly direction: 'out';
  readonly message: unknown;
  readonly errors: string;
}

export interface SchemaOracle {
  readonly violations: readonly OracleViolation[];
  /** Messages validated so far (each element of a batch counts). */
  readonly checked: number;
  /** Throws an AssertionError listing the violations; also when nothing was checked at all. */
  assertClean(): void;
}

export interface OracleOptions {
  /** The negotiated revision; `undefined` before negotiation. Optional: initialize results are observed. */
  readonly revision?: () => string | undefined;
  /** When given, a request or notification this role may not send in the revision is a violation. */
  readonly role?: Role;
}

/** The request a response answers: its method, and its params (a `task` member makes it task-augmented). */
export interface RequestRecord {
  readonly method: string;
  readonly params?: unknown;
}

export interface ValidationContext {
  /**
   * Finds the request a response answers. When given, a result answering an id it does not know is a violation
   * (a response to nothing, or a second response). Without it (and without `method`), results are checked
   * against the generic `Result` only.
   */
  readonly requestFor?: (id: RequestId) => RequestRecord | undefined;
  /** Shorthand: every response in the message answers a request of this method. */
  readonly method?: string;
  readonly role?: Role;
}

type Json = Readonly<Record<string, unknown>>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isRequestId(value: unknown): value is RequestId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));
}

function prefix(at: string): string {
  return at === '' ? '' : `${at} `;
}

function unique(errors: readonly string[]): string[] {
  return [...new Set(errors)];
}

/**
 * Validates one payload (a message or a batch) as sent in `revision`. Returns readable errors, empty when the
 * payload is valid. A revision without a schema is reported as an error too.
 */
export function validateMessage(revision: string, message: unknown, context: ValidationContext = {}): string[] {
  const schemaRevision = schemaRevisionFor(revision);
  if (schemaRevision === undefined) return [`there is no schema for revision ${revision}`];
  const schema = loadRevisionSchema(schemaRevision);
  if (!Array.isArray(message)) return unique(validateSingle(schema, revision, message, context, ''));
  if (!allowsBatchesIn(revision)) return [`JSON-RPC batches do not exist in revision ${revision}`];
  if (message.length === 0) return ['an empty batch is not a valid JSON-RPC batch'];
  const errors: string[] = [];
  message.forEach((item: unknown, index) => errors.push(...validateSingle(schema, revision, item, context, `[${index}]`)));
  const requests = message.filter((item: unknown) => isObject(item) && 'method' in item).length;
  if (requests !== 0 && requests !== message.length) errors.push('a batch must not mix requests/notifications and responses');
  else errors.push(...schema.check(requests === 0 ? 'JSONRPCBatchResponse' : 'JSONRPCBatchRequest', message, '(batch)'));
  return unique(errors);
}

function validateSingle(schema: RevisionSchema, revision: string, message: unknown, context: ValidationContext, at: string): string[] {
  const label = at === '' ? '(message)' : at;
  if (!isObject(message)) return [`${label} is not a JSON object`];
  if ('id' in message && message['id'] === null) return [`${label} has "id": null, which MCP never allows`];
  if ('method' in message) return validateRequestOrNotification(schema, revision, message, context, at);
  const hasResult = 'result' in message;
  if (hasResult && 'error' in message) return [`${label} carries both "result" and "error"`];
  if (hasResult) return validateResult(schema, revision, message, context, at);
  if ('error' in message) return validateError(schema, message, at);
  return [`${label} is neither a request, a notification nor a response`];
}

function validateRequestOrNotification(schema: RevisionSchema, revision: string, message: Json, context: ValidationContext, at: string): string[] {
  const method = message['method'];
  if (typeof method !== 'string') return schema.check('JSONRPCRequest', message, at);
  const wire = schema.methods.get(method);
  if (wire === undefined) return [`${prefix(at)}method ${method} does not exist in revision ${revision}`];
  const errors: string[] = [];
  const hasId = 'id' in message;
  if (wire.kind === 'notification' && hasId) errors.push(`${prefix(at)}${method} is a notification in ${revision} but was sent with an id`);
  if (wire.kind === 'request' && !hasId) errors.push(`${prefix(at)}${method} is a request in ${revision} but was sent without an id`);
  if (context.role !== undefined && !wire.senders.has(context.role)) {
    errors.push(`${prefix(at)}a ${context.role} may not send ${method} in ${revision}`);
  }
  errors.push(...schema.check(hasId ? 'JSONRPCRequest' : 'JSONRPCNotification', message, at));
  errors.push(...schema.check(wire.definition, message, at));
  return errors;
}

function validateResult(schema: RevisionSchema, revision: string, message: Json, context: ValidationContext, at: string): string[] {
  const envelope = schema.has('JSONRPCResultResponse') ? 'JSONRPCResultResponse' : 'JSONRPCResponse';
  const errors = schema.check(envelope, message, at);
  const id = message['id'];
  const request = context.method !== undefined ? { method: context.method } : isRequestId(id) ? context.requestFor?.(id) : undefined;
  const result = message['result'];
  if (request === undefined) {
    if (context.requestFor !== undefined) errors.push(`${prefix(at)}result answers id ${JSON.stringify(id)}, but no request with that id is awaiting an answer`);
    return errors;
  }
  const definition = resultDefinitionFor(schema, revision, request, result);
  if (typeof definition !== 'string') return [...errors, `${prefix(at)}${definition.error}`];
  const checked = definition === 'ElicitResult' ? withIntegralNumbers(result) : result;
  return [...errors, ...schema.check(definition, checked, `${at}/result(${definition})`)];
}

/**
 * A known defect of the published schemas (2025-06-18, 2025-11-25): an elicitation form may ask for a
 * `number` (NumberSchema allows `type: "number"`, and the official conformance suite's own defaults include
 * 95.5), yet ElicitResult admits only integers as answers. The oracle checks everything else about the
 * answer; a finite non-integer number is checked as if it were an integer.
 */
function withIntegralNumbers(result: unknown): unknown {
  if (typeof result !== 'object' || result === null) return result;
  const content = (result as { content?: unknown }).content;
  if (typeof content !== 'object' || content === null || Array.isArray(content)) return result;
  const adjusted = Object.fromEntries(
    Object.entries(content).map(([key, value]) => [key, typeof value === 'number' && Number.isFinite(value) ? Math.trunc(value) : value]),
  );
  return { ...result, content: adjusted };
}

function resultDefinitionFor(schema: RevisionSchema, revision: string, request: RequestRecord, result: unknown): string | { error: string } {
  const wire = schema.methods.get(request.method);
  if (wire === undefined || wire.kind !== 'request') {
    return { error: `answers a ${request.method} request, which does not exist in revision ${revision}` };
  }
  if (isObject(result) && result['resultType'] === 'input_required' && schema.has('InputRequiredResult')) {
    if (schema.acceptsInputRequired(request.method)) return 'InputRequiredResult';
    return { error: `${request.method} may not be answered with an InputRequiredResult in revision ${revision}` };
  }
  const taskAugmented = isObject(request.params) && isObject(request.params['task']);
  if (taskAugmented && schema.has('CreateTaskResult') && isObject(result) && 'task' in result) return 'CreateTaskResult';
  return schema.resultDefinition(request.method);
}

function validateError(schema: RevisionSchema, message: Json, at: string): string[] {
  const own = schema.has('JSONRPCErrorResponse') ? 'JSONRPCErrorResponse' : 'JSONRPCError';
  // An error that answers a message whose id could not be read carries no id. JSON-RPC requires that
  // (id: null there; MCP omits the member instead), but the draft-07 schemas require `id`, so they cannot express
  // it. Such errors are checked against the 2025-11-25 JSONRPCErrorResponse, the first schema that can.
  if (!('id' in message) && schema.requires(own, 'id')) {
    return loadRevisionSchema(ID_LESS_ERROR_REVISION).check('JSONRPCErrorResponse', message, at);
  }
  return schema.check(own, message, at);
}

/** One readable block per violation. */
export function formatViolations(violations: readonly OracleViolation[]): string {
  return violations
    .map((violation, index) => {
      const errors = violation.errors.split('\n').map((line) => `    - ${line}`).join('\n');
      const schema = schemaRevisionFor(violation.revision);
      const against = schema !== undefined && schema !== violation.revision ? `, schema ${schema}` : '';
      return `#${index + 1} ${violation.direction} (revision ${violation.revision}${against}): ${JSON.stringify(violation.message)}\n${errors}`;
    })
    .join('\n');
}

function protocolVersionHint(message: Json): string | undefined {
  const params = message['params'];
  if (message['method'] === 'initialize' && isObject(params)) return stringOrUndefined(params['protocolVersion']);
  const meta = isObject(params) ? params['_meta'] : undefined;
  return isObject(meta) ? stringOrUndefined(meta[META_PROTOCOL_VERSION]) : undefined;
}

function stringOrUndefined(value: unknown): string | undefined {
  return typeof value === 'string' && schemaRevisionFor(value) !== undefined ? value : undefined;
}

function messagesOf(payload: unknown): readonly unknown[] {
  return Array.isArray(payload) ? payload : [payload];
}

interface Pending extends RequestRecord {
  readonly revision: string | undefined;
}

/**
 * Wraps a transport: every frame handed to `send` is validated (then delegated, whatever the outcome), and the
 * transport's `incoming$` is mapped through to learn inbound requests (so our responses can be matched to their
 * method) and the negotiated revision. `incoming$` is not subscribed here; the session's one subscription runs
 * the observation.
 */
export function withSchemaOracle(inner: Transport, options: OracleOptions = {}): { transport: Transport; oracle: SchemaOracle } {
  const violations: OracleViolation[] = [];
  let checked = 0;
  let learned: string | undefined;
  const theirs = new Map<RequestId, Pending>(); // inbound requests awaiting our response
  const ours = new Map<RequestId, Pending>(); // our requests awaiting the peer's response

  const learnFromInitializeResult = (request: Pending | undefined, message: Json): string | undefined => {
    if (request?.method !== 'initialize' || !isObject(message['result'])) return undefined;
    const version = stringOrUndefined(message['result']['protocolVersion']);
    if (version !== undefined) learned = version;
    return version;
  };

  const observe = (frame: InboundFrame): void => {
    if (frame.type !== 'message') return;
    for (const message of messagesOf(frame.payload)) {
      if (!isObject(message) || !isRequestId(message['id'])) continue;
      const id = message['id'];
      if (typeof message['method'] === 'string') {
        theirs.set(id, { method: message['method'], params: message['params'], revision: protocolVersionHint(message) });
      } else if ('result' in message || 'error' in message) {
        learnFromInitializeResult(ours.get(id), message);
        ours.delete(id);
      }
    }
  };

  const revisionFor = (payload: unknown): string => {
    const given = options.revision?.();
    if (given !== undefined) return given;
    const first = messagesOf(payload)[0];
    const request = isObject(first) && typeof first['method'] !== 'string' && isRequestId(first['id']) ? theirs.get(first['id']) : undefined;
    if (isObject(first)) learnFromInitializeResult(request, first); // a server's own initialize result
    if (learned !== undefined) return learned;
    const hint = isObject(first) ? (typeof first['method'] === 'string' ? protocolVersionHint(first) : request?.revision) : undefined;
    return hint ?? DEFAULT_REVISION;
  };

  const inspect = (payload: unknown): void => {
    const revision = revisionFor(payload);
    const context: ValidationContext = {
      requestFor: (id) => theirs.get(id),
      ...(options.role !== undefined ? { role: options.role } : {}),
    };
    let errors: string[];
    try {
      errors = validateMessage(revision, payload, context);
    } catch (error: unknown) {
      errors = [`the oracle failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}`];
    }
    checked += Array.isArray(payload) ? Math.max(payload.length, 1) : 1;
    if (errors.length > 0) violations.push({ revision, direction: 'out', message: payload, errors: errors.join('\n') });
    for (const message of messagesOf(payload)) {
      if (!isObject(message) || !isRequestId(message['id'])) continue;
      const id = message['id'];
      if (typeof message['method'] === 'string') {
        ours.set(id, { method: message['method'], params: message['params'], revision: protocolVersionHint(message) });
      } else {
        theirs.delete(id);
      }
    }
  };

  const transport: Transport = {
    get kind() {
      return inner.kind;
    },
    incoming$: inner.incoming$.pipe(tap(observe)),
    negotiated: (revision) => inner.negotiated?.(revision),
    send(frame: OutboundFrame) {
      try {
        inspect(frame.payload);
      } catch (error: unknown) {
        // Never let the oracle break the traffic it watches (e.g. a throwing revision function).
        const errors = `the oracle failed: ${error instanceof Error ? error.message : String(error)}`;
        violations.push({ revision: 'unknown', direction: 'out', message: frame.payload, errors });
      }
      return inner.send(frame);
    },
    close(reason) {
      return inner.close(reason);
    },
  };

  const oracle: SchemaOracle = {
    get violations() {
      return violations;
    },
    get checked() {
      return checked;
    },
    assertClean() {
      if (checked === 0) {
        throw new AssertionError({ message: 'schema oracle: no message was checked (is the wrapped transport in use?)' });
      }
      if (violations.length > 0) {
        throw new AssertionError({
          message: `schema oracle: ${violations.length} of ${checked} sent messages violate the MCP schema\n${formatViolations(violations)}`,
        });
      }
    },
  };
  return { transport, oracle };
}
