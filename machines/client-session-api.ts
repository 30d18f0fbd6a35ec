/**
 * The handle a connected client works with. Calls are Observables (progress values, then the result;
 * unsubscribing cancels) with Promise helpers; lists page lazily; server notifications arrive as streams.
 */
import { Observable, Subject, catchError, filter, map, share } from 'rxjs';
import { pages$ } from '../actors/features/pager.ts';
import type { PromiseRequestOptions, RequestEvent, RequestOptions } from '../actors/handler-types.ts';
import { ErrorCode } from '../core/error-codes.ts';
import { WireError } from '../core/errors.ts';
import type { JsonObject } from '../core/jsonrpc.ts';
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
import { type CallToolAsTaskOptions, ClientTasks, type TaskUpdatesOptions } from './client-tasks.ts';
import { ToolOutputValidators } from './tool-output-validators.ts';
import type { McpSession } from './session.ts';

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
  ping(): Promise<void>;
  close(): Promise<void>;
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
  readonly logs$: Observable<LoggingMessageParams>;
  readonly listChanged$: Observable<ListChange>;
  readonly elicitationComplete$: Observable<string>;
  readonly taskStatus$: Observable<JsonObject>;

  constructor(readonly session: McpSession) {
    const of = (method: string): Observable<JsonObject> =>
      this.notifications.pipe(
        filter((notification) => notification.method === method),
        map((notification) => notification.params ?? {}),
      );
    this.logs$ = of('notifications/message') as Observable<LoggingMessageParams>;
    this.listChanged$ = this.notifications.pipe(
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
    if (method === 'notifications/tools/list_changed') this.validators.clear();
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
    if (error instanceof WireError && error.code === ErrorCode.UrlElicitationRequired) {
      const elicitations = (error.data as { elicitations?: unknown } | undefined)?.elicitations;
      if (Array.isArray(elicitations)) {
        for (const elicitation of elicitations) {
          const id = (elicitation as { elicitationId?: unknown } | null)?.elicitationId;
          if (typeof id === 'string') this.expectElicitation(id);
        }
      }
    }
    throw error;
  }

  onClosed(): void {
    this.notifications.complete();
  }

  callTool$(name: string, args: JsonObject = {}, options: CallToolOptions = {}): Observable<RequestEvent<CallToolResult>> {
    const validate = options.validateOutput !== false;
    return this.session.request$<CallToolResult>('tools/call', { name, arguments: args }, options).pipe(
      map((event): RequestEvent<CallToolResult> => (event.type === 'result' && validate ? { type: 'result', result: this.validators.check(name, event.result) } : event)),
      catchError((error: unknown): Observable<RequestEvent<CallToolResult>> => this.noteRequiredElicitations(error)),
    );
  }

  async callTool(name: string, args: JsonObject = {}, options: CallToolOptions & PromiseRequestOptions = {}): Promise<CallToolResult> {
    const result = await this.session.request<CallToolResult>('tools/call', { name, arguments: args }, options).catch((error: unknown) => this.noteRequiredElicitations(error));
    return options.validateOutput === false ? result : this.validators.check(name, result);
  }

  tools$(): Observable<Tool> {
    return this.list$<Tool>('tools/list', 'tools').pipe(map((tool) => this.validators.learn(tool)));
  }

  listTools(): Promise<Tool[]> {
    return collect(this.tools$());
  }

  resources$(): Observable<Resource> {
    return this.list$<Resource>('resources/list', 'resources');
  }

  listResources(): Promise<Resource[]> {
    return collect(this.resources$());
  }

  resourceTemplates$(): Observable<ResourceTemplate> {
    return this.list$<ResourceTemplate>('resources/templates/list', 'resourceTemplates');
  }

  listResourceTemplates(): Promise<ResourceTemplate[]> {
    return collect(this.resourceTemplates$());
  }

  readResource(uri: string, options?: PromiseRequestOptions): Promise<ReadResourceResult> {
    return this.session.request<ReadResourceResult>('resources/read', { uri }, options);
  }

  subscribe$(uri: string): Observable<ResourceUpdatedParams> {
    return new Observable<ResourceUpdatedParams>((subscriber) => {
      const updates = this.notifications
        .pipe(filter((notification) => notification.method === 'notifications/resources/updated' && notification.params?.['uri'] === uri))
        .subscribe({ next: (notification) => subscriber.next(notification.params as ResourceUpdatedParams), complete: () => subscriber.complete() });
      // One server subscription per URI however many observers: the last one to leave unsubscribes.
      let shared = this.resourceSubscriptions.get(uri);
      if (shared === undefined) {
        const accepted = this.session.request('resources/subscribe', { uri }).then(() => true);
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
            if (this.session.state === 'operating') this.session.request('resources/unsubscribe', { uri }).catch(() => undefined);
          },
          () => undefined,
        );
      };
    });
  }

  prompts$(): Observable<Prompt> {
    return this.list$<Prompt>('prompts/list', 'prompts');
  }

  listPrompts(): Promise<Prompt[]> {
    return collect(this.prompts$());
  }

  getPrompt(name: string, args: Readonly<Record<string, string>> = {}, options?: PromiseRequestOptions): Promise<GetPromptResult> {
    return this.session.request<GetPromptResult>('prompts/get', { name, arguments: args }, options);
  }

  complete(ref: CompletionReference, argument: { name: string; value: string }, context?: Readonly<Record<string, string>>): Promise<CompleteResult> {
    return this.session.request<CompleteResult>('completion/complete', {
      ref: ref as unknown as JsonObject,
      argument,
      ...(context === undefined ? {} : { context: { arguments: context } }),
    });
  }

  async setLogLevel(level: LoggingLevel): Promise<void> {
    await this.session.request('logging/setLevel', { level });
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
    return this.session.ping();
  }

  close(): Promise<void> {
    return this.session.close();
  }

  private list$<T>(method: string, key: string): Observable<T> {
    return pages$<T>((cursor) => this.session.request(method, cursor === undefined ? {} : { cursor }), key);
  }
}

function collect<T>(items$: Observable<T>): Promise<T[]> {
  return new Promise((resolve, reject) => {
    const items: T[] = [];
    items$.subscribe({ next: (item) => items.push(item), error: reject, complete: () => resolve(items) });
  });
}
