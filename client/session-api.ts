/**
 * The handle a connected client works with. Calls are Observables (progress values, then the result;
 * unsubscribing cancels) with Promise helpers; lists page lazily; server notifications arrive as streams.
 *
 * Every request takes one path, `request`/`request$` with the method's declaration, and the helpers
 * (`callTool`, `readResource`, `getPrompt`, the lists...) are thin adapters that build its params. What a request
 * needs beyond sending is read from its declaration: in the modern era an input-capable method runs through its
 * input rounds, a cacheable one is answered from the cache while the server's `ttlMs` holds, and where the
 * declaration says `paramHeaders` the arguments that the schema of the tool it addresses marks `x-mcp-header` are
 * mirrored into headers. A `tools/call` checks its output against the tool's `outputSchema`, expects the
 * elicitations its error names, and may become a task.
 */
import { Observable, Subject, catchError, filter, lastValueFrom, map, of, share, tap, throwError } from 'rxjs';
import { pages$ } from '../actors/features/pager.ts';
import type { PromiseRequestOptions, RequestEvent, RequestOptions } from '../actors/handler-types.ts';
import { ErrorCode } from '../core/error-codes.ts';
import { WireError } from '../core/errors.ts';
import type { JsonObject } from '../core/jsonrpc.ts';
import { type ParamsOf, type RequestDeclaration, type ResultOf, targetIn } from '../core/protocol/declarations/declaration.ts';
import { completionComplete } from '../core/protocol/declarations/completion.ts';
import { loggingSetLevel } from '../core/protocol/declarations/logging.ts';
import { promptsGet, promptsList } from '../core/protocol/declarations/prompts.ts';
import { resourcesList, resourcesRead, resourcesSubscribe, resourcesTemplatesList, resourcesUnsubscribe } from '../core/protocol/declarations/resources.ts';
import { subscriptionsListen } from '../core/protocol/declarations/subscriptions.ts';
import { toolsCall, toolsList } from '../core/protocol/declarations/tools.ts';
import type {
  CallToolResult,
  CompleteResult,
  CompletionReference,
  GetPromptResult,
  LoggingLevel,
  LoggingMessageParams,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  ResourceUpdatedParams,
  ServerCapabilities,
  Tool,
} from '../core/protocol/index.ts';
import type { CancelTaskResult, CreateTaskResult, GetTaskResult, Task } from '../core/protocol/tasks.ts';
import { type CallToolAsTaskOptions, ClientTasks, type TaskUpdatesOptions } from './tasks.ts';
import { ToolOutputValidators } from '../core/schema/tool-output-validators.ts';
import type { McpSession, SessionCore } from '../session/session-core.ts';
import { ResultCache } from './cache.ts';
import { DEFAULT_MAX_ROUNDS, type InputAnswerer, withInputRounds } from './rounds.ts';
import { type TaskFollowOptions, type TaskFollowPort, followTask } from './task-follower.ts';
import { TASKS_EXTENSION } from '../core/protocol/modern-tasks.ts';
import { ToolParamHeaders } from '../core/protocol/tool-param-headers.ts';
import { MetaKey, type SubscriptionFilter } from '../core/protocol/modern.ts';
import { LocalError } from '../core/errors.ts';
import { withField, withFields } from '../core/objects.ts';
import { withJsonText } from '../core/codecs/json-text.ts';
import type { InterceptableHandlerTable, RequestSink } from '../actors/outgoing-request.ts';
import type { ProgressEvent } from '../actors/progress.ts';

export interface CallToolOptions extends RequestOptions {
  /** Check `structuredContent` against the tool's `outputSchema` (known from a listing): default true. */
  readonly validateOutput?: boolean;
}

export type ListChange = 'tools' | 'prompts' | 'resources';

export interface ClientSession {
  /** The underlying session (raw requests, state, diagnostics). */
  readonly session: McpSession;
  readonly serverCapabilities: ServerCapabilities | undefined;
  callTool$(name: string, args?: JsonObject, options?: CallToolOptions): Observable<RequestEvent<CallToolResult>>;
  callTool(name: string, args?: JsonObject, options?: CallToolOptions & PromiseRequestOptions): Promise<CallToolResult>;
  tools$(): Observable<Tool>;
  listTools(): Promise<Tool[]>;
  resources$(): Observable<Resource>;
  listResources(): Promise<Resource[]>;
  resourceTemplates$(): Observable<ResourceTemplate>;
  listResourceTemplates(): Promise<ResourceTemplate[]>;
  readResource(uri: string, options?: PromiseRequestOptions): Promise<ReadResourceResult>;
  /** Subscribes to a resource: emits each update until unsubscribed (which sends `resources/unsubscribe`). */
  subscribe$(uri: string): Observable<ResourceUpdatedParams>;
  prompts$(): Observable<Prompt>;
  listPrompts(): Promise<Prompt[]>;
  getPrompt(name: string, args?: Readonly<Record<string, string>>, options?: PromiseRequestOptions): Promise<GetPromptResult>;
  complete(ref: CompletionReference, argument: { name: string; value: string }, context?: Readonly<Record<string, string>>): Promise<CompleteResult>;
  setLogLevel(level: LoggingLevel): Promise<void>;
  /** `notifications/message` from the server. */
  readonly logs$: Observable<LoggingMessageParams>;
  /** Which list changed (`notifications/*\/list_changed`). */
  readonly listChanged$: Observable<ListChange>;
  /** `notifications/elicitation/complete` ids. */
  readonly elicitationComplete$: Observable<string>;
  /** `notifications/tasks/status` payloads. */
  readonly taskStatus$: Observable<JsonObject>;
  // --- tasks (2025-11-25, experimental; see client-tasks.ts) ---
  /** Calls a tool as a task; resolves at once with the task. Needs the server's `tasks.requests.tools.call`. */
  callToolAsTask(name: string, args?: JsonObject, options?: CallToolAsTaskOptions): Promise<CreateTaskResult>;
  getTask(taskId: string, options?: PromiseRequestOptions): Promise<GetTaskResult>;
  /** The task's outcome (for a tool task, its `CallToolResult`); the server answers once the task is terminal. */
  taskResult<R extends object = CallToolResult>(taskId: string, options?: PromiseRequestOptions): Promise<R>;
  listTasks$(): Observable<Task>;
  cancelTask(taskId: string, options?: PromiseRequestOptions): Promise<CancelTaskResult>;
  /** Each distinct status of a task (polling at its `pollInterval`, plus status pushes); completes when terminal. */
  taskUpdates$(taskId: string, options?: TaskUpdatesOptions): Observable<Task>;
  /**
   * Modern era (2026-07-28): a `subscriptions/listen` stream. Emits the acknowledgement, then each notification
   * the filter asked for; completes when the server ends it; unsubscribing cancels it.
   */
  listen$(notifications: SubscriptionFilter): Observable<{ readonly method: string; readonly params: JsonObject }>;
  /**
   * Sends any request by its declaration, on the path every helper takes (see the module comment), and resolves
   * with its result, typed as the declaration says: `request(declaration, params)` is a `ResultOf<typeof
   * declaration>`. `validateOutput` applies to a `tools/call`.
   */
  request<D extends RequestDeclaration>(declaration: D, params: ParamsOf<D>, options?: CallToolOptions & PromiseRequestOptions): Promise<ResultOf<D>>;
  /** {@link request} as an Observable: progress events, then the result; unsubscribing cancels (never from the cache). */
  request$<D extends RequestDeclaration>(declaration: D, params: ParamsOf<D>, options?: CallToolOptions): Observable<RequestEvent<ResultOf<D>>>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** The tool a `tools/call` calls (its declared target). */
function calledTool(declaration: RequestDeclaration, params: JsonObject | undefined): string | undefined {
  return declaration.method === toolsCall.method ? targetIn(declaration.target, params) : undefined;
}

/** What a cached result is kept under beside its method: the item the request addresses, or the page's cursor. */
function cacheKeyPart(declaration: RequestDeclaration, params: JsonObject | undefined): string | undefined {
  const target = targetIn(declaration.target, params);
  if (target !== undefined) return target;
  const cursor = params?.['cursor'];
  return typeof cursor === 'string' ? cursor : undefined;
}

interface Notification {
  readonly method: string;
  readonly params: JsonObject | undefined;
}

/** URL elicitations remembered per session while waiting for their completion. */
const MAX_PENDING_ELICITATIONS = 1024;

export class ClientSessionImpl implements ClientSession {
  private readonly notifications = new Subject<Notification>();
  private readonly validators = new ToolOutputValidators();
  private readonly urlElicitations = new Set<string>();
  private readonly resourceSubscriptions = new Map<string, { observers: number; readonly accepted: Promise<boolean> }>();
  private tasksApi: ClientTasks | undefined;
  private readonly paramHeaders = new ToolParamHeaders();
  private readonly cache: ResultCache;
  readonly logs$: Observable<LoggingMessageParams>;
  readonly listChanged$: Observable<ListChange>;
  readonly elicitationComplete$: Observable<string>;
  readonly taskStatus$: Observable<JsonObject>;

  constructor(
    readonly session: McpSession,
    /** Answers a modern server's input requests with this client's handlers. */
    private readonly inputs?: InputAnswerer,
    /** Set when the client declared the tasks extension: how it follows the tasks its calls become. */
    private readonly taskFollow?: TaskFollowOptions,
  ) {
    this.cache = new ResultCache(session.clock);
    const of = (method: string): Observable<JsonObject> =>
      this.notifications.pipe(
        filter((notification) => notification.method === method),
        map((notification) => notification.params ?? {}),
      );
    this.logs$ = of('notifications/message') as Observable<LoggingMessageParams>;
    const changes$: Observable<{ readonly method: string }> = session.era === 'modern'
      // The modern era tells of changes only on a listen stream: one is open while anyone watches.
      ? this.listen$({ toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true })
      : this.notifications;
    this.listChanged$ = changes$.pipe(
      map((notification) => /^notifications\/(tools|prompts|resources)\/list_changed$/.exec(notification.method)?.[1] as ListChange | undefined),
      filter((change): change is ListChange => change !== undefined),
      share(),
    );
    this.elicitationComplete$ = of('notifications/elicitation/complete').pipe(
      map((params) => params['elicitationId']),
      filter((id): id is string => typeof id === 'string'),
    );
    this.taskStatus$ = of('notifications/tasks/status');
  }

  get serverCapabilities(): ServerCapabilities | undefined {
    return this.session.peerCapabilities as ServerCapabilities | undefined;
  }

  /** Routed here by the client's shared notification handlers. */
  onNotification(method: string, params: JsonObject | undefined): void {
    if (method === 'notifications/tools/list_changed') {
      this.validators.clear();
      this.paramHeaders.clear();
    }
    const list = /^notifications\/(tools|prompts|resources)\/list_changed$/.exec(method)?.[1];
    if (list !== undefined) this.cache.invalidateList(list);
    if (method === 'notifications/resources/updated' && typeof params?.['uri'] === 'string') this.cache.invalidateRead(params['uri']);
    if (method === 'notifications/elicitation/complete') {
      // Only ids this session was given, and each once (FEATURES row 83): anything else is ignored.
      const id = params?.['elicitationId'];
      if (typeof id !== 'string' || !this.urlElicitations.delete(id)) return;
    }
    this.notifications.next({ method, params });
  }

  /** A URL-mode elicitation this session was given (in a request, or in a -32042 error). */
  expectElicitation(elicitationId: string): void {
    if (this.urlElicitations.size >= MAX_PENDING_ELICITATIONS) {
      const oldest = this.urlElicitations.values().next().value;
      if (oldest !== undefined) this.urlElicitations.delete(oldest);
    }
    this.urlElicitations.add(elicitationId);
  }

  /** Records the elicitations a -32042 error names, then passes the error on. */
  private noteRequiredElicitations(error: unknown): never {
    this.noteElicitations(error);
    throw error;
  }

  /** Records the elicitations `error` names, when it is a -32042 error. */
  noteElicitations(error: unknown): void {
    if (error instanceof WireError && error.code === ErrorCode.UrlElicitationRequired) {
      const elicitations = (error.data as { elicitations?: unknown } | undefined)?.elicitations;
      if (Array.isArray(elicitations)) {
        for (const elicitation of elicitations) {
          const id = (elicitation as { elicitationId?: unknown } | null)?.elicitationId;
          if (typeof id === 'string') this.expectElicitation(id);
        }
      }
    }
  }

  /** A tool's result checked against its `outputSchema` (throws when it does not match). */
  checkOutput(name: string, result: CallToolResult): CallToolResult {
    return this.validators.check(name, result);
  }

  onClosed(): void {
    this.cache.clear();
    this.notifications.complete();
  }

  private get core(): SessionCore {
    return this.session as SessionCore;
  }

  private get modern(): boolean {
    return this.session.era === 'modern';
  }

  /** Whether a request of `declaration` runs through input rounds: an input-capable method, in the modern era, with an answerer. */
  private roundsFor(declaration: RequestDeclaration): boolean {
    return this.modern && this.inputs !== undefined && declaration.modern?.inputCapable === true;
  }

  /**
   * The `Mcp-Param-*` headers of a request (modern era): the arguments (the declaration's `paramHeaders` field)
   * that the schema of the tool it addresses marks `x-mcp-header`.
   */
  private mirrorOf(declaration: RequestDeclaration, params: JsonObject | undefined): Readonly<Record<string, string>> | undefined {
    const field = declaration.modern?.paramHeaders;
    if (field === undefined || declaration.target?.item !== 'tool' || !this.modern) return undefined;
    const tool = targetIn(declaration.target, params);
    if (tool === undefined) return undefined;
    const args = params?.[field];
    return this.paramHeaders.headersFor(tool, typeof args === 'object' && args !== null && !Array.isArray(args) ? (args as JsonObject) : undefined);
  }

  request<D extends RequestDeclaration>(declaration: D, params: ParamsOf<D>, options: CallToolOptions & PromiseRequestOptions = {}): Promise<ResultOf<D>> {
    return this.send<ResultOf<D> & object>(declaration, params as JsonObject | undefined, options);
  }

  request$<D extends RequestDeclaration>(declaration: D, params: ParamsOf<D>, options: CallToolOptions = {}): Observable<RequestEvent<ResultOf<D>>> {
    return this.send$<ResultOf<D> & object>(declaration, params as JsonObject | undefined, options);
  }

  /** The Observable form of the one path: a tool's output is checked, its error's elicitations noted. */
  private send$<R extends object>(declaration: RequestDeclaration, params: JsonObject | undefined, options: CallToolOptions): Observable<RequestEvent<R>> {
    const tool = calledTool(declaration, params);
    const events$ = this.call$<R>(declaration, params, options, this.mirrorOf(declaration, params), tool);
    if (tool === undefined) return events$;
    const validate = options.validateOutput !== false;
    return events$.pipe(
      map((event): RequestEvent<R> => (event.type === 'result' && validate ? { type: 'result', result: this.validators.check(tool, event.result as CallToolResult) as R } : event)),
      catchError((error: unknown): Observable<RequestEvent<R>> => this.noteRequiredElicitations(error)),
    );
  }

  /**
   * A request that may need client input: in the modern era an input-capable one runs through its input rounds
   * (each a new request with the answers); in the legacy era the server asks with requests of its own instead.
   */
  private call$<R extends object>(
    declaration: RequestDeclaration,
    params: JsonObject | undefined,
    options: RequestOptions,
    mirror: Readonly<Record<string, string>> | undefined,
    /** The tool the request calls: only a tool call may become a task. */
    tool: string | undefined,
    /** The first round's answer when it was already received (by {@link call}'s direct path), and its id. */
    first?: { readonly result: R; readonly id: number | undefined },
  ): Observable<RequestEvent<R>> {
    const method = declaration.method;
    const withProgress = options.progress === undefined ? withField(options, 'progress', true) : options;
    const inputs = this.inputs;
    if (inputs === undefined || !this.roundsFor(declaration)) {
      if (mirror === undefined) return this.session.request$<R>(method, params, options);
      return this.core.requestWith$<R>({ method, params, options: withProgress, mirror });
    }
    // The id of the round sent last: a task keeps its request's progress token, which is that id.
    let sent = first?.id;
    let seed = first === undefined ? undefined : ({ type: 'result', result: first.result } as const);
    const follow = this.taskFollow;
    return withInputRounds<R>(
      (extra) => {
        if (seed !== undefined) {
          // The first round was sent and answered already: the rounds continue from its answer.
          const answered = of<RequestEvent<R>>(seed);
          seed = undefined;
          return answered;
        }
        return this.core.requestWith$<R>({
          method,
          params: extra === undefined ? params : withFields(params ?? {}, extra),
          options: withProgress,
          ...(mirror === undefined ? {} : { mirror }),
          onSent: (id) => (sent = id),
        });
      },
      inputs,
      DEFAULT_MAX_ROUNDS,
      // The extension lets only a tool call become a task; a task answering anything else is invalid.
      follow === undefined || tool === undefined
        ? undefined
        : (created) => followTask<R>(created, this.taskPort, inputs, follow, withProgress.progress === true ? sent : undefined, options.signal),
    );
  }

  /**
   * The envelope to make a request's params with (as their `_meta`), so that sending it copies nothing (the envelope
   * is added to every modern request, outgoing-request.ts); undefined in the legacy era, and while outgoing
   * interceptors are installed: they see a request's params as the caller gave them, without the envelope.
   */
  private get envelopeInParams(): JsonObject | undefined {
    const core = this.core;
    return (core.handlers as InterceptableHandlerTable).outgoing === undefined ? core.envelope : undefined;
  }

  /** What following a task needs of this session (client/task-follower.ts). */
  private get taskPort(): TaskFollowPort {
    return {
      clock: this.session.clock,
      request: (method, params, signal) => this.session.request(method, params, signal === undefined ? {} : { signal }),
      // Status notifications only where the server declared the extension (it then serves taskIds on listens).
      listen$: (filter) => (this.serverCapabilities?.extensions?.[TASKS_EXTENSION] === undefined ? undefined : this.listen$(filter)),
    };
  }

  /** The Promise form of the one path: a cacheable request is answered from the cache while the server's `ttlMs` holds. */
  private send<R extends object>(declaration: RequestDeclaration, params: JsonObject | undefined, options: CallToolOptions & PromiseRequestOptions): Promise<R> {
    const key = this.modern && declaration.modern?.cacheable !== undefined ? ResultCache.key(declaration.method, cacheKeyPart(declaration, params)) : undefined;
    if (key === undefined) return this.call<R>(declaration, params, options);
    const hit = this.cache.get(key);
    if (hit !== undefined) return Promise.resolve(hit as R);
    return this.call<R>(declaration, params, options).then((result) => {
      // A result reached through input rounds answered one user's input: it is not for reuse.
      this.cache.put(key, declaration.method, result as JsonObject);
      return result;
    });
  }

  /**
   * The Promise form of {@link call$}. The first round is sent directly (a Promise, no Observable): most answers
   * are complete and are returned as they come. Only an answer that needs more (`input_required`, a task, a
   * type this client does not know) goes on through the round driver, which takes it as its first round's.
   * A request that neither calls a tool nor may need rounds is a plain request.
   */
  private call<R extends object>(declaration: RequestDeclaration, params: JsonObject | undefined, options: CallToolOptions & PromiseRequestOptions): Promise<R> {
    const method = declaration.method;
    const tool = calledTool(declaration, params);
    let mirror: Readonly<Record<string, string>> | undefined;
    try {
      mirror = this.mirrorOf(declaration, params);
    } catch (error) {
      return Promise.reject(error);
    }
    if (tool === undefined && mirror === undefined && !(this.modern && declaration.modern?.inputCapable === true)) return this.session.request<R>(method, params, options);
    return new Promise<R>((resolve, reject) => {
      const round = new FirstRound<R>(this, declaration, params, options, mirror, tool, resolve, reject);
      // The options as given: the Promise form asks for progress when there is an `onProgress` (as in the legacy era).
      // The sent id matters only to a task this call may become that reports progress (its token is that id).
      const noteSent = this.taskFollow !== undefined && tool !== undefined && (options.progress ?? options.onProgress !== undefined);
      const spec = mirror === undefined ? { method, params, options } : { method, params, options, mirror };
      this.core.requestTo<R>(noteSent ? withField(spec, 'onSent', (id: number) => (round.sent = id)) : spec, round);
    });
  }

  /** Where {@link FirstRound} hands an answer: the result, or the rounds after a first answer that was not complete. */
  afterFirstRound<R extends object>(round: FirstRound<R>, result: R): void {
    const type = (result as JsonObject)['resultType'];
    // Without rounds for it (no input answerer, the legacy era, a method that takes none) the answer is the result.
    if (type === undefined || type === 'complete' || !this.roundsFor(round.declaration)) return round.done(result);
    // Went on from here, where the answer was delivered: the next round keeps its context (one trace).
    this.moreRounds<R>(round, result).then(
      (last) => round.done(last),
      (error: unknown) => round.fail(error),
    );
  }

  /** The rounds after a first answer that was not complete, through the round driver. */
  private async moreRounds<R extends object>(round: FirstRound<R>, result: R): Promise<R> {
    const { declaration, options } = round;
    const onProgress = options.onProgress;
    const progress = options.progress ?? onProgress !== undefined;
    const roundOptions = options.progress === progress ? options : withField(options, 'progress', progress);
    const events$ = this.call$<R>(declaration, round.params, roundOptions, round.mirror, round.tool, { result, id: round.sent });
    const last = await lastValueFrom(events$.pipe(tap((event) => (event.type === 'progress' ? onProgress?.(event) : undefined))));
    if (last.type !== 'result') throw new LocalError('ProtocolViolation', `${declaration.method} ended without a result`);
    return last.result;
  }

  listen$(notifications: SubscriptionFilter): Observable<{ readonly method: string; readonly params: JsonObject }> {
    return new Observable<{ readonly method: string; readonly params: JsonObject }>((subscriber) => {
      if (!this.modern) {
        subscriber.error(new LocalError('MethodNotInRevision', 'subscriptions/listen exists in revision 2026-07-28 only'));
        return undefined;
      }
      let id: number | undefined;
      const tagged = this.notifications
        .pipe(filter((notification) => id !== undefined && (notification.params?.['_meta'] as JsonObject | undefined)?.[MetaKey.subscriptionId] === id))
        .subscribe({ next: (notification) => subscriber.next({ method: notification.method, params: notification.params ?? {} }), complete: () => subscriber.complete() });
      const request = this.core
        .requestWith$({ method: subscriptionsListen.method, params: { notifications: notifications as JsonObject }, options: { timeoutMs: Infinity }, onSent: (sent) => (id = sent) })
        .subscribe({ next: (event) => (event.type === 'result' ? subscriber.complete() : undefined), error: (error: unknown) => subscriber.error(error) });
      return () => {
        tagged.unsubscribe();
        request.unsubscribe();
      };
    });
  }

  callTool$(name: string, args: JsonObject = {}, options: CallToolOptions = {}): Observable<RequestEvent<CallToolResult>> {
    return this.send$<CallToolResult>(toolsCall, { name, arguments: args }, options);
  }

  /**
   * In the modern era the call's first round settles the Promise itself (its sink checks the output and notes the
   * elicitations an error names, see {@link FirstRound}): no async function, `catch` or `await` per call.
   */
  callTool(name: string, args: JsonObject = {}, options: CallToolOptions & PromiseRequestOptions = {}): Promise<CallToolResult> {
    const envelope = this.envelopeInParams;
    return this.send<CallToolResult>(toolsCall, envelope === undefined ? { name, arguments: args } : { name, arguments: args, _meta: envelope }, options);
  }

  tools$(): Observable<Tool> {
    const tools$ = this.list$<Tool>(toolsList, 'tools');
    // A modern client mirrors marked arguments into headers; a tool it cannot mirror correctly is dropped.
    const usable$ = this.modern ? tools$.pipe(filter((tool) => this.paramHeaders.learn(tool))) : tools$;
    return usable$.pipe(map((tool) => this.validators.learn(tool)));
  }

  listTools(): Promise<Tool[]> {
    return collect(this.tools$());
  }

  resources$(): Observable<Resource> {
    return this.list$<Resource>(resourcesList, 'resources');
  }

  listResources(): Promise<Resource[]> {
    return collect(this.resources$());
  }

  resourceTemplates$(): Observable<ResourceTemplate> {
    return this.list$<ResourceTemplate>(resourcesTemplatesList, 'resourceTemplates');
  }

  listResourceTemplates(): Promise<ResourceTemplate[]> {
    return collect(this.resourceTemplates$());
  }

  readResource(uri: string, options?: PromiseRequestOptions): Promise<ReadResourceResult> {
    const envelope = this.envelopeInParams;
    return this.send<ReadResourceResult>(resourcesRead, envelope === undefined ? { uri } : { uri, _meta: envelope }, options ?? {});
  }

  subscribe$(uri: string): Observable<ResourceUpdatedParams> {
    if (this.modern) {
      if (this.serverCapabilities?.resources?.subscribe !== true) {
        return throwError(() => new LocalError('CapabilityNotNegotiated', 'The server does not offer resource subscriptions (resources.subscribe)'));
      }
      return this.listen$({ resourceSubscriptions: [uri] }).pipe(
        tap((notification) => {
          if (notification.method !== 'notifications/subscriptions/acknowledged') return;
          // The acknowledgement says what the server will honour: a subscription it left out will never be served.
          const honoured = (notification.params['notifications'] as SubscriptionFilter | undefined)?.resourceSubscriptions;
          if (honoured?.includes(uri) !== true) throw new LocalError('CapabilityNotNegotiated', `The server did not accept a subscription to ${uri}`);
        }),
        filter((notification) => notification.method === 'notifications/resources/updated' && notification.params['uri'] === uri),
        map((notification) => notification.params as ResourceUpdatedParams),
      );
    }
    return new Observable<ResourceUpdatedParams>((subscriber) => {
      const updates = this.notifications
        .pipe(filter((notification) => notification.method === 'notifications/resources/updated' && notification.params?.['uri'] === uri))
        .subscribe({ next: (notification) => subscriber.next(notification.params as ResourceUpdatedParams), complete: () => subscriber.complete() });
      // One server subscription per URI however many observers: the last one to leave unsubscribes.
      let shared = this.resourceSubscriptions.get(uri);
      if (shared === undefined) {
        const accepted = this.send(resourcesSubscribe, { uri }, {}).then(() => true);
        shared = { observers: 0, accepted };
        this.resourceSubscriptions.set(uri, shared);
      }
      shared.observers++;
      const entry = shared;
      entry.accepted.catch((error: unknown) => subscriber.error(error));
      return () => {
        updates.unsubscribe();
        entry.observers--;
        if (entry.observers > 0 || this.resourceSubscriptions.get(uri) !== entry) return;
        this.resourceSubscriptions.delete(uri);
        // Tell the server only if it accepted, and only while the session can still carry it.
        entry.accepted.then(
          () => {
            if (this.session.state === 'operating') this.send(resourcesUnsubscribe, { uri }, {}).catch(() => undefined);
          },
          () => undefined,
        );
      };
    });
  }

  prompts$(): Observable<Prompt> {
    return this.list$<Prompt>(promptsList, 'prompts');
  }

  listPrompts(): Promise<Prompt[]> {
    return collect(this.prompts$());
  }

  getPrompt(name: string, args: Readonly<Record<string, string>> = {}, options?: PromiseRequestOptions): Promise<GetPromptResult> {
    const envelope = this.envelopeInParams;
    return this.send<GetPromptResult>(promptsGet, envelope === undefined ? { name, arguments: args } : { name, arguments: args, _meta: envelope }, options ?? {});
  }

  complete(ref: CompletionReference, argument: { name: string; value: string }, context?: Readonly<Record<string, string>>): Promise<CompleteResult> {
    return this.send<CompleteResult>(
      completionComplete,
      { ref: ref as unknown as JsonObject, argument, ...(context === undefined ? {} : { context: { arguments: context } }) },
      {},
    );
  }

  async setLogLevel(level: LoggingLevel): Promise<void> {
    if (this.modern) {
      // No session to remember it: every later request asks for this level itself.
      const core = this.core;
      core.envelope = withJsonText({ ...core.envelope, [MetaKey.logLevel]: level });
      return;
    }
    await this.send(loggingSetLevel, { level }, {});
  }

  // --- tasks ---

  private get tasks(): ClientTasks {
    return (this.tasksApi ??= new ClientTasks(this.session, this.taskStatus$));
  }

  callToolAsTask(name: string, args?: JsonObject, options?: CallToolAsTaskOptions): Promise<CreateTaskResult> {
    return this.tasks.callToolAsTask(name, args, options);
  }

  getTask(taskId: string, options?: PromiseRequestOptions): Promise<GetTaskResult> {
    return this.tasks.getTask(taskId, options);
  }

  taskResult<R extends object = CallToolResult>(taskId: string, options?: PromiseRequestOptions): Promise<R> {
    return this.tasks.taskResult<R>(taskId, options);
  }

  listTasks$(): Observable<Task> {
    return this.tasks.listTasks$();
  }

  cancelTask(taskId: string, options?: PromiseRequestOptions): Promise<CancelTaskResult> {
    return this.tasks.cancelTask(taskId, options);
  }

  taskUpdates$(taskId: string, options?: TaskUpdatesOptions): Observable<Task> {
    return this.tasks.taskUpdates$(taskId, options);
  }

  ping(): Promise<void> {
    if (this.modern) return Promise.reject(new LocalError('MethodNotInRevision', 'ping does not exist in revision 2026-07-28'));
    return this.session.ping();
  }

  close(): Promise<void> {
    return this.session.close();
  }

  private list$<T>(declaration: RequestDeclaration, key: string): Observable<T> {
    return pages$<T>((cursor) => this.send(declaration, cursor === undefined ? {} : { cursor }, {}), key);
  }
}

function collect<T>(items$: Observable<T>): Promise<T[]> {
  return new Promise((resolve, reject) => {
    const items: T[] = [];
    items$.subscribe({ next: (item) => items.push(item), error: reject, complete: () => resolve(items) });
  });
}

/**
 * The first round of a {@link ClientSessionImpl.call}: the sink its request settles, which resolves the call's
 * Promise or hands the answer on to the rounds after it. A class with prototype methods: one is made per call, and
 * closures per call are what a call's CPU went to (bench/RESULTS.md, "Modern era as lean as legacy").
 */
class FirstRound<R extends object> implements RequestSink<R> {
  /** The id the round was sent with, noted only where a task this call may become needs it. */
  sent: number | undefined;

  constructor(
    private readonly client: ClientSessionImpl,
    readonly declaration: RequestDeclaration,
    readonly params: JsonObject | undefined,
    readonly options: CallToolOptions & PromiseRequestOptions,
    readonly mirror: Readonly<Record<string, string>> | undefined,
    /** Set for a tool call: the tool whose output is checked, and whose errors may name elicitations. */
    readonly tool: string | undefined,
    private readonly resolve: (result: R) => void,
    private readonly reject: (error: unknown) => void,
  ) {}

  progress(event: ProgressEvent): void {
    this.options.onProgress?.(event);
  }

  result(result: R): void {
    this.client.afterFirstRound(this, result);
  }

  error(error: Error): void {
    this.fail(error);
  }

  /** The call failed (in its first round or a later one); a tool call's error may name elicitations to expect. */
  fail(error: unknown): void {
    if (this.tool !== undefined) this.client.noteElicitations(error);
    this.reject(error);
  }

  /** The call's final result (after any further rounds): a tool's is checked against its output schema first. */
  done(result: R): void {
    const tool = this.tool;
    if (tool === undefined || this.options.validateOutput === false) return this.resolve(result);
    let checked: CallToolResult;
    try {
      checked = this.client.checkOutput(tool, result as CallToolResult);
    } catch (error) {
      return this.reject(error);
    }
    this.resolve(checked as R);
  }
}
