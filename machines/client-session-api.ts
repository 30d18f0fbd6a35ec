/**
 * The handle a connected client works with. Calls are Observables (progress values, then the result;
 * unsubscribing cancels) with Promise helpers; lists page lazily; server notifications arrive as streams.
 */
import { Observable, Subject, filter, map, share } from 'rxjs';
import { pages$ } from '../actors/features/pager.ts';
import type { PromiseRequestOptions, RequestEvent, RequestOptions } from '../actors/handler-types.ts';
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
  ping(): Promise<void>;
  close(): Promise<void>;
}

interface Notification {
  readonly method: string;
  readonly params: JsonObject | undefined;
}

export class ClientSessionImpl implements ClientSession {
  private readonly notifications = new Subject<Notification>();
  private readonly validators = new ToolOutputValidators();
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
    this.notifications.next({ method, params });
  }

  onClosed(): void {
    this.notifications.complete();
  }

  callTool$(name: string, args: JsonObject = {}, options: CallToolOptions = {}): Observable<RequestEvent<CallToolResult>> {
    const validate = options.validateOutput !== false;
    return this.session.request$<CallToolResult>('tools/call', { name, arguments: args }, options).pipe(
      map((event) => (event.type === 'result' && validate ? { type: 'result', result: this.validators.check(name, event.result) } : event)),
    );
  }

  async callTool(name: string, args: JsonObject = {}, options: CallToolOptions & PromiseRequestOptions = {}): Promise<CallToolResult> {
    const result = await this.session.request<CallToolResult>('tools/call', { name, arguments: args }, options);
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
      let subscribed = false;
      this.session.request('resources/subscribe', { uri }).then(
        () => (subscribed = true),
        (error: unknown) => subscriber.error(error),
      );
      return () => {
        updates.unsubscribe();
        // Tell the server only if it accepted, and only while the session can still carry it.
        if (subscribed && this.session.state === 'operating') this.session.request('resources/unsubscribe', { uri }).catch(() => undefined);
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
