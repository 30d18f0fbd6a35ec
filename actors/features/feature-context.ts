/**
 * The handler context of server features. Its calls are era-neutral: `elicit`, `sample`, `roots`, `log`
 * and `progress` say what the handler needs, not how it travels. In the legacy era they become requests and
 * notifications on the session; the modern era (2026-07-28) answers the same calls with multi round-trip
 * results, so handler code runs unchanged in both.
 */
import type { AuthInfo } from '../../core/auth.ts';
import { randomUuid } from '../../core/crypto/random.ts';
import { LocalError, WireError } from '../../core/errors.ts';
import { ErrorCode } from '../../core/error-codes.ts';
import type { JsonObject } from '../../core/jsonrpc.ts';
import type { CreateMessageParams, CreateMessageResult } from '../../core/protocol/sampling.ts';
import type { ElicitParams, ElicitResult } from '../../core/protocol/elicitation.ts';
import { type LoggingLevel, levelAtLeast } from '../../core/protocol/logging.ts';
import type { Root } from '../../core/protocol/roots.ts';
import type { ClientCapabilities, Implementation } from '../../core/protocol/capabilities.ts';
import { isCreateMessageResult, isElicitResult, isListRootsResult } from '../../core/protocol/guards.ts';
import { checkElicitationSchema, compileSchema } from '../../core/schema/index.ts';
import type { InputMethod } from '../../core/protocol/modern.ts';
import type { InputCallOptions, ModernRequest, ProgressUpdate, RequestContext, SessionView } from '../handler-types.ts';

export interface FeatureContext {
  readonly signal: AbortSignal;
  readonly session: SessionView;
  /** Who is calling, as the transport verified it (see `RequestContext.auth`); undefined: nobody was authenticated. */
  readonly auth: AuthInfo | undefined;
  /** The request's `_meta` (progress token, trace context, related task...). */
  readonly meta: JsonObject | undefined;
  /** Reports progress to the requester (a no-op when it asked for none). Progress must increase. */
  progress(update: ProgressUpdate): void;
  /** Logs to the client, honouring the level it chose. */
  log(level: LoggingLevel, data: unknown, logger?: string): void;
  /**
   * Settles when more may be sent: at once, unless the session's backpressure policy is `pause` and the client
   * is not keeping up. A handler that streams many notifications awaits it between them.
   */
  whenWritable(): Promise<void>;
  /**
   * Modern era: which round of a multi round-trip request this is (0 the first time). The handler runs again
   * from the start on each round, with the answers of earlier rounds available at once. Legacy era: always 0.
   */
  readonly round: number;
  /** Asks the user for input (form mode) or to visit a URL (URL mode). */
  elicit(params: ElicitParams, options?: InputCallOptions): Promise<ElicitResult>;
  /** Asks the client's model for a completion. */
  sample(params: CreateMessageParams, options?: InputCallOptions): Promise<CreateMessageResult>;
  /** The client's roots. */
  roots(options?: InputCallOptions): Promise<readonly Root[]>;
  /**
   * What the client declared, so a handler can fall back before asking for what it cannot give: the session's
   * capabilities in the legacy era, this request's `_meta` capabilities in the modern era.
   */
  readonly client: DeclaredClient;
}

/** A client feature a handler may ask about: `elicitation` is either mode; `elicitation.form` is the form mode. */
export type ClientFeature = 'elicitation' | 'elicitation.form' | 'elicitation.url' | 'sampling' | 'sampling.tools' | 'roots';

/** The client as it declared itself. */
export interface DeclaredClient {
  readonly capabilities: ClientCapabilities;
  readonly info: Implementation | undefined;
  /** Whether the client declared the feature (a call needing it would otherwise fail). */
  supports(feature: ClientFeature): boolean;
}

class Declaration implements DeclaredClient {
  constructor(
    readonly capabilities: ClientCapabilities,
    readonly info: Implementation | undefined,
  ) {}

  supports(feature: ClientFeature): boolean {
    const { elicitation, sampling, roots } = this.capabilities;
    switch (feature) {
      case 'elicitation':
        return elicitation !== undefined;
      case 'elicitation.form':
        // `elicitation: {}` (2025-06-18, before modes) means forms.
        return elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined);
      case 'elicitation.url':
        return elicitation?.url !== undefined;
      case 'sampling':
        return sampling !== undefined;
      case 'sampling.tools':
        return sampling?.tools !== undefined;
      case 'roots':
        return roots !== undefined;
    }
  }
}

const NOTHING_DECLARED: ClientCapabilities = Object.freeze({});

/** How a context's client calls travel: requests on a session, or input requests of a modern round. */
interface ClientCaller {
  callClient(method: InputMethod, params: JsonObject | undefined, options: InputCallOptions | undefined): Promise<JsonObject>;
}

/** Where the server keeps a session's log level. */
export interface LogLevelSource {
  logLevel(session: SessionView): LoggingLevel | undefined;
  readonly loggingEnabled: boolean;
}

/**
 * What both eras' contexts share: they read the request, and their client calls differ only in how they travel
 * (`callClient`). One context is made per request, so everything lives on the prototype (no closures per call).
 */
abstract class RequestFeatureContext implements FeatureContext, ClientCaller {
  constructor(protected readonly request: RequestContext) {}

  abstract readonly round: number;
  abstract readonly client: DeclaredClient;
  abstract log(level: LoggingLevel, data: unknown, logger?: string): void;
  abstract callClient(method: InputMethod, params: JsonObject | undefined, options: InputCallOptions | undefined): Promise<JsonObject>;

  get signal(): AbortSignal {
    return this.request.signal;
  }

  get session(): SessionView {
    return this.request.session;
  }

  get auth(): AuthInfo | undefined {
    return this.request.auth;
  }

  get meta(): JsonObject | undefined {
    return this.request.meta;
  }

  progress(update: ProgressUpdate): void {
    this.request.progress(update);
  }

  whenWritable(): Promise<void> {
    return this.request.whenWritable();
  }

  elicit(params: ElicitParams, options?: InputCallOptions): Promise<ElicitResult> {
    return elicit(this, this.request.session.revision, params, options);
  }

  sample(params: CreateMessageParams, options?: InputCallOptions): Promise<CreateMessageResult> {
    return sample(this, params, options);
  }

  roots(options?: InputCallOptions): Promise<readonly Root[]> {
    return roots(this, options);
  }

  protected notifyLog(level: LoggingLevel, data: unknown, logger: string | undefined): void {
    this.request.notify('notifications/message', { level, data: data as JsonObject, ...(logger === undefined ? {} : { logger }) });
  }
}

/** The legacy-era context: client calls are requests on the session; logging follows the session's level. */
class LegacyFeatureContext extends RequestFeatureContext {
  constructor(
    request: RequestContext,
    private readonly logging: LogLevelSource,
  ) {
    super(request);
  }

  get round(): number {
    return 0;
  }

  get client(): DeclaredClient {
    const session = this.request.session;
    return new Declaration((session.peerCapabilities as ClientCapabilities | undefined) ?? NOTHING_DECLARED, session.peerInfo);
  }

  log(level: LoggingLevel, data: unknown, logger?: string): void {
    if (!this.logging.loggingEnabled) return;
    const threshold = this.logging.logLevel(this.request.session);
    if (threshold !== undefined && !levelAtLeast(level, threshold)) return;
    this.notifyLog(level, data, logger);
  }

  callClient(method: InputMethod, params: JsonObject | undefined, options: InputCallOptions | undefined): Promise<JsonObject> {
    return this.request.request(method, params, options);
  }
}

/**
 * The modern-era context: the same calls, answered from the request's input round. Logging follows the level
 * this request asked for (none when it asked for none); there is no session to remember one.
 */
class ModernFeatureContext extends RequestFeatureContext {
  constructor(
    request: RequestContext,
    private readonly modern: ModernRequest,
  ) {
    super(request);
  }

  get round(): number {
    return this.modern.inputs?.round ?? 0;
  }

  get client(): DeclaredClient {
    return new Declaration(this.modern.envelope.clientCapabilities, this.modern.envelope.clientInfo);
  }

  log(level: LoggingLevel, data: unknown, logger?: string): void {
    const threshold = this.modern.envelope.logLevel;
    if (threshold === undefined || !levelAtLeast(level, threshold)) return;
    this.notifyLog(level, data, logger);
  }

  callClient(method: InputMethod, params: JsonObject | undefined, options: InputCallOptions | undefined): Promise<JsonObject> {
    const inputs = this.modern.inputs;
    if (inputs === undefined) {
      // The era only lets tools/call, prompts/get and resources/read ask the client for input.
      return Promise.reject(new WireError(ErrorCode.InternalError, `${this.request.method} cannot ask the client for input (${method}) in revision 2026-07-28`));
    }
    return inputs.ask(method, params, options?.key);
  }
}

export function createFeatureContext(request: RequestContext, logging: LogLevelSource): FeatureContext {
  const modern = request.modern;
  return modern === undefined ? new LegacyFeatureContext(request, logging) : new ModernFeatureContext(request, modern);
}

async function sample(caller: ClientCaller, params: CreateMessageParams, options: InputCallOptions | undefined): Promise<CreateMessageResult> {
  const result = await caller.callClient('sampling/createMessage', params as unknown as JsonObject, options);
  if (!isCreateMessageResult(result)) throw new LocalError('ProtocolViolation', 'The client answered sampling/createMessage with a malformed result');
  return result;
}

async function roots(caller: ClientCaller, options: InputCallOptions | undefined): Promise<readonly Root[]> {
  const result = await caller.callClient('roots/list', undefined, options);
  if (!isListRootsResult(result)) throw new LocalError('ProtocolViolation', 'The client answered roots/list with a malformed result');
  return result.roots;
}

/** Handlers usually pass the same schema object each time: compile it once per object. */
const compiledSchemas = new WeakMap<object, ReturnType<typeof compileSchema>>();

function compiledElicitationSchema(schema: JsonObject): ReturnType<typeof compileSchema> {
  let compiled = compiledSchemas.get(schema);
  if (compiled === undefined) compiledSchemas.set(schema, (compiled = compileSchema(schema)));
  return compiled;
}

async function elicit(caller: ClientCaller, revision: string | undefined, params: ElicitParams, options: InputCallOptions | undefined): Promise<ElicitResult> {
  let sent: ElicitParams = params;
  if (params.mode === 'url') {
    // The id correlates the later `notifications/elicitation/complete` (2025-11-25); make one when the caller did
    // not. The modern era has no completion notification: the retry is the completion.
    const legacy = revision !== undefined && revision < '2026-07-28';
    if (legacy && (params.elicitationId === undefined || params.elicitationId === '')) sent = { ...params, elicitationId: randomUuid() };
  } else {
    const problem = checkElicitationSchema(params.requestedSchema as unknown as JsonObject, { revision });
    if (problem !== undefined) throw new LocalError('ProtocolViolation', `The elicitation schema is not allowed: ${problem}`);
  }
  const result = await caller.callClient('elicitation/create', sent as unknown as JsonObject, options);
  if (!isElicitResult(result)) throw new LocalError('ProtocolViolation', 'The client answered elicitation/create with a malformed result');
  if (result.action === 'accept' && sent.mode !== 'url' && result.content !== undefined) {
    // What the user typed is untrusted: check it against the schema the server asked with.
    const outcome = compiledElicitationSchema(sent.requestedSchema as unknown as JsonObject).validate(result.content);
    if (!outcome.ok) throw new LocalError('ProtocolViolation', `The elicited content does not match the requested schema: ${outcome.summary}`);
  }
  return result;
}
