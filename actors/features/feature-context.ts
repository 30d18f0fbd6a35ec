/**
 * The handler context of server features. Its calls are era-neutral: `elicit`, `sample`, `roots`, `log`
 * and `progress` say what the handler needs, not how it travels. In the legacy era they become requests and
 * notifications on the session; the modern era (2026-07-28) answers the same calls with multi round-trip
 * results, so handler code runs unchanged in both.
 */
import { randomUUID } from 'node:crypto';
import { LocalError } from '../../core/errors.ts';
import type { JsonObject } from '../../core/jsonrpc.ts';
import type { CreateMessageParams, CreateMessageResult } from '../../core/protocol/sampling.ts';
import type { ElicitParams, ElicitResult } from '../../core/protocol/elicitation.ts';
import { type LoggingLevel, levelAtLeast } from '../../core/protocol/logging.ts';
import type { Root } from '../../core/protocol/roots.ts';
import { isCreateMessageResult, isElicitResult, isRoot } from '../../core/protocol/guards.ts';
import { checkElicitationSchema, compileSchema } from '../../core/schema/index.ts';
import type { PromiseRequestOptions, ProgressUpdate, RequestContext, SessionView } from '../handler-types.ts';

export interface FeatureContext {
  readonly signal: AbortSignal;
  readonly session: SessionView;
  /** The request's `_meta` (progress token, trace context, related task...). */
  readonly meta: JsonObject | undefined;
  /** Reports progress to the requester (a no-op when it asked for none). Progress must increase. */
  progress(update: ProgressUpdate): void;
  /** Logs to the client, honouring the level it chose. */
  log(level: LoggingLevel, data: unknown, logger?: string): void;
  /** Asks the user for input (form mode) or to visit a URL (URL mode). */
  elicit(params: ElicitParams, options?: PromiseRequestOptions): Promise<ElicitResult>;
  /** Asks the client's model for a completion. */
  sample(params: CreateMessageParams, options?: PromiseRequestOptions): Promise<CreateMessageResult>;
  /** The client's roots. */
  roots(options?: PromiseRequestOptions): Promise<readonly Root[]>;
}

/** Where the server keeps a session's log level. */
export interface LogLevelSource {
  logLevel(session: SessionView): LoggingLevel | undefined;
  readonly loggingEnabled: boolean;
}

/**
 * The legacy-era context: one per request, so its methods live on the prototype (no closures per call).
 */
class LegacyFeatureContext implements FeatureContext {
  constructor(
    private readonly request: RequestContext,
    private readonly logging: LogLevelSource,
  ) {}

  get signal(): AbortSignal {
    return this.request.signal;
  }

  get session(): SessionView {
    return this.request.session;
  }

  get meta(): JsonObject | undefined {
    return this.request.meta;
  }

  progress(update: ProgressUpdate): void {
    this.request.progress(update);
  }

  log(level: LoggingLevel, data: unknown, logger?: string): void {
    if (!this.logging.loggingEnabled) return;
    const threshold = this.logging.logLevel(this.request.session);
    if (threshold !== undefined && !levelAtLeast(level, threshold)) return;
    this.request.notify('notifications/message', { level, data: data as JsonObject, ...(logger === undefined ? {} : { logger }) });
  }

  elicit(params: ElicitParams, options?: PromiseRequestOptions): Promise<ElicitResult> {
    return elicit(this.request, params, options);
  }

  async sample(params: CreateMessageParams, options?: PromiseRequestOptions): Promise<CreateMessageResult> {
    const result = await this.request.request('sampling/createMessage', params as unknown as JsonObject, options);
    if (!isCreateMessageResult(result)) throw new LocalError('ProtocolViolation', 'The client answered sampling/createMessage with a malformed result');
    return result;
  }

  async roots(options?: PromiseRequestOptions): Promise<readonly Root[]> {
    const result = await this.request.request('roots/list', undefined, options);
    const roots = result['roots'];
    if (!Array.isArray(roots) || !roots.every(isRoot)) throw new LocalError('ProtocolViolation', 'The client answered roots/list with a malformed result');
    return roots;
  }
}

export function createFeatureContext(request: RequestContext, logging: LogLevelSource): FeatureContext {
  return new LegacyFeatureContext(request, logging);
}

/** Handlers usually pass the same schema object each time: compile it once per object. */
const compiledSchemas = new WeakMap<object, ReturnType<typeof compileSchema>>();

function compiledElicitationSchema(schema: JsonObject): ReturnType<typeof compileSchema> {
  let compiled = compiledSchemas.get(schema);
  if (compiled === undefined) compiledSchemas.set(schema, (compiled = compileSchema(schema)));
  return compiled;
}

async function elicit(request: RequestContext, params: ElicitParams, options: PromiseRequestOptions | undefined): Promise<ElicitResult> {
  let sent: ElicitParams = params;
  if (params.mode === 'url') {
    // The id correlates the later `notifications/elicitation/complete`; make one when the caller did not.
    if (params.elicitationId === undefined || params.elicitationId === '') sent = { ...params, elicitationId: randomUUID() };
  } else {
    const problem = checkElicitationSchema(params.requestedSchema as unknown as JsonObject, { revision: request.session.revision });
    if (problem !== undefined) throw new LocalError('ProtocolViolation', `The elicitation schema is not allowed: ${problem}`);
  }
  const result = await request.request('elicitation/create', sent as unknown as JsonObject, options);
  if (!isElicitResult(result)) throw new LocalError('ProtocolViolation', 'The client answered elicitation/create with a malformed result');
  if (result.action === 'accept' && sent.mode !== 'url' && result.content !== undefined) {
    // What the user typed is untrusted: check it against the schema the server asked with.
    const outcome = compiledElicitationSchema(sent.requestedSchema as unknown as JsonObject).validate(result.content);
    if (!outcome.ok) throw new LocalError('ProtocolViolation', `The elicited content does not match the requested schema: ${outcome.summary}`);
  }
  return result;
}
