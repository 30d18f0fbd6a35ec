/**
 * One `tools/call` of a tool with task support, from a request that declared the tasks extension (revision
 * 2026-07-28, SEP-2663). It is the request context the tool handler runs under, in two phases:
 *
 * - request phase: everything goes to the request (progress, logs, and client input as a multi round-trip
 *   `input_required` answer); the handler's result would be the request's answer;
 * - task phase, once the call became a task (at once, or when the handler asked for it): the request has been
 *   answered with the task, the handler goes on in the background with its own signal (aborted by
 *   `tasks/cancel` or when the server closes), and its client input parks the task in `input_required` until
 *   `tasks/update` brings the answers. Nothing is replayed: the handler stays suspended in this process, so a
 *   task's input is served by the process that runs it. Progress and logs have no request to travel on any
 *   more: they go to the host, which hands them to the listen streams that watch the task.
 */
import type { AuthInfo } from '../../core/auth.ts';
import type { Observable, Subscription } from 'rxjs';
import { throwError } from 'rxjs';
import { onAbort } from '../../core/abort.ts';
import { isProgressToken } from '../../core/progress-token.ts';
import { normaliseProgress } from '../progress.ts';
import { ErrorCode } from '../../core/error-codes.ts';
import { LocalError, WireError } from '../../core/errors.ts';
import type { JsonObject, RequestId } from '../../core/jsonrpc.ts';
import { answers } from '../modern/input-round.ts';
import {
  type InputMethod,
  type InputRequest,
  type RequestEnvelope,
  capabilityForInput,
  declaresInput,
  defaultInputKey,
  missingCapabilityError,
} from '../../core/protocol/modern.ts';
import { toolsCall } from '../../core/protocol/declarations/tools.ts';
import type {
  InputRound,
  ModernRequest,
  PromiseRequestOptions,
  ProgressUpdate,
  RequestContext,
  RequestEvent,
  RequestOptions,
  SessionView,
} from '../handler-types.ts';

/** What a run needs from the feature that owns it. */
export interface TaskRunHost {
  /** Creates the task and answers the request with it; `false` when the request is gone meanwhile. */
  escalate(run: ToolCallRun): Promise<boolean>;
  /** Records that the task waits for input (or no longer does). Resolves once the store says so. */
  moveTo(run: ToolCallRun, status: 'working' | 'input_required'): Promise<void>;
  /** A notification of the task's handler (progress, a log message) once the call is a task. */
  notice(run: ToolCallRun, method: string, params: JsonObject): void;
}

interface PendingInput {
  readonly request: InputRequest;
  resolve(answer: JsonObject): void;
  reject(reason: unknown): void;
}

function noop(): void {}

export class ToolCallRun implements RequestContext, InputRound {
  readonly method = toolsCall.method;
  readonly modern: ModernRequest;
  /** `request` until the call became a task. */
  phase: 'request' | 'task' = 'request';
  /** Set once the call became a task. */
  taskId: string | undefined;
  /** Set once the handler's work ended (or was aborted): nothing more is recorded for it. */
  finished = false;
  /** Stops the handler's output (an Observable subscription) on abort. */
  teardown: Subscription | undefined;
  private readonly controller = new AbortController();
  private detachRequest: () => void;
  private escalation: Promise<boolean> | undefined;
  /** Client input asked in the request phase that has not been answered yet. */
  private outstanding = 0;
  private readonly counters = new Map<InputMethod, number>();
  private readonly pending = new Map<string, PendingInput>();
  private chain: Promise<unknown> = Promise.resolve();
  private lastProgress = -Infinity;

  constructor(
    private readonly host: TaskRunHost,
    private readonly call: RequestContext,
    readonly envelope: RequestEnvelope,
    readonly support: 'optional' | 'required',
    /** Whose task it is: the principal of the request that created it (see modern-tasks-feature.ts). */
    readonly owner: string,
  ) {
    this.modern = { envelope, inputs: this };
    // Until the call is a task, the request's end (cancelled, answered with input_required, timed out) ends it.
    this.detachRequest = onAbort(call.signal, (reason) => {
      if (this.phase === 'request') this.controller.abort(reason);
    });
  }

  get id(): RequestId {
    return this.call.id;
  }

  get meta(): JsonObject | undefined {
    return this.call.meta;
  }

  get session(): SessionView {
    return this.call.session;
  }

  get auth(): AuthInfo | undefined {
    return this.call.auth;
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** True when the request this call came on can no longer be answered with a task. */
  get requestGone(): boolean {
    return this.call.signal.aborted;
  }

  get round(): number {
    return this.call.modern?.inputs?.round ?? 0;
  }

  /** The input requests the task is waiting on now. */
  inputRequests(): { readonly [key: string]: InputRequest } | undefined {
    if (this.pending.size === 0) return undefined;
    return Object.fromEntries([...this.pending].map(([key, entry]) => [key, entry.request]));
  }

  // --- becoming a task ----------------------------------------------------------------------------------

  /** The handler asks to go on as a task (or the feature starts it as one). Idempotent. */
  escalate(): Promise<boolean> {
    if (this.phase === 'task') return Promise.resolve(true);
    if (this.outstanding > 0) {
      return Promise.reject(new Error('continueAsTask: the client input asked for in the request must be awaited before the call continues as a task'));
    }
    this.escalation ??= this.host.escalate(this);
    return this.escalation;
  }

  /** The escalation under way, if any (the handler's outcome waits for it). */
  get escalating(): Promise<boolean> | undefined {
    return this.escalation;
  }

  /** Called by the host once the task exists and the request is being answered with it. */
  becameTask(taskId: string): void {
    this.phase = 'task';
    this.taskId = taskId;
    this.detachRequest();
    this.detachRequest = noop;
  }

  /** The call ended as an ordinary request (it never became a task). */
  endInRequest(): void {
    this.finished = true;
    this.teardown = undefined;
    this.detachRequest();
    this.detachRequest = noop;
  }

  /** Ends the run: its signal aborts, input it waits for is refused, its output is unsubscribed. */
  abort(reason: unknown): void {
    this.finished = true;
    this.detachRequest();
    const teardown = this.teardown;
    this.teardown = undefined;
    teardown?.unsubscribe();
    this.controller.abort(reason);
    for (const entry of this.pending.values()) entry.reject(reason);
    this.pending.clear();
  }

  /** Runs store updates of this task one after another, in the order they were asked for. */
  serial<T>(step: () => Promise<T>): Promise<T> {
    const next = this.chain.then(step);
    this.chain = next.then(noop, noop);
    return next;
  }

  // --- RequestContext ---------------------------------------------------------------------------------

  progress(update: ProgressUpdate): void {
    if (this.phase === 'request') return this.call.progress(update);
    // The request's progress token stays the task's: a listener watching the task gets its progress.
    const token = this.call.meta?.['progressToken'];
    const report = normaliseProgress(update);
    if (this.finished || !isProgressToken(token) || report === undefined || report.progress <= this.lastProgress) return;
    this.lastProgress = report.progress;
    this.host.notice(this, 'notifications/progress', { progressToken: token, ...report });
  }

  notify(method: string, params?: JsonObject): void {
    if (this.phase === 'request') return this.call.notify(method, params);
    if (!this.finished) this.host.notice(this, method, params ?? {});
  }

  whenWritable(): Promise<void> {
    return this.phase === 'request' ? this.call.whenWritable() : Promise.resolve();
  }

  request$<R extends object = JsonObject>(method: string, params?: JsonObject, options?: RequestOptions): Observable<RequestEvent<R>> {
    if (this.phase === 'request') return this.call.request$<R>(method, params, options);
    return throwError(() => this.noRequests(method));
  }

  request<R extends object = JsonObject>(method: string, params?: JsonObject, options?: PromiseRequestOptions): Promise<R> {
    if (this.phase === 'request') return this.call.request<R>(method, params, options);
    return Promise.reject(this.noRequests(method));
  }

  private noRequests(method: string): WireError {
    return new WireError(ErrorCode.InternalError, `A task cannot send ${method} to the client in revision 2026-07-28 (it asks for input instead)`);
  }

  // --- InputRound ----------------------------------------------------------------------------------------

  ask(method: InputMethod, params: JsonObject | undefined, key?: string): Promise<JsonObject> {
    return this.phase === 'request' ? this.askInRequest(method, params, key) : this.askInTask(method, params, key);
  }

  /** A multi round-trip round, as for any modern request. */
  private askInRequest(method: InputMethod, params: JsonObject | undefined, key: string | undefined): Promise<JsonObject> {
    const round = this.call.modern?.inputs;
    if (round === undefined) return Promise.reject(new WireError(ErrorCode.InternalError, `tools/call cannot ask the client for input (${method}) here`));
    this.outstanding++;
    const asked = round.ask(method, params, key);
    const settled = (): void => void this.outstanding--;
    asked.then(settled, settled);
    return asked;
  }

  /** Parks the task in `input_required` until `tasks/update` answers (or the task ends). */
  private askInTask(method: InputMethod, params: JsonObject | undefined, key: string | undefined): Promise<JsonObject> {
    if (this.finished || this.signal.aborted) return Promise.reject(this.signal.reason ?? new LocalError('RequestAborted', 'The task has ended'));
    const counted = (this.counters.get(method) ?? 0) + 1;
    this.counters.set(method, counted);
    const name = key ?? defaultInputKey(method, counted);
    if (!declaresInput(this.envelope.clientCapabilities, method, params)) {
      const required = capabilityForInput(method, params);
      const error = missingCapabilityError(required, `${method} needs ${JSON.stringify(required)}, which the request that created the task did not declare`);
      return Promise.reject(new WireError(error.code, error.message, { data: error.data }));
    }
    if (this.pending.has(name)) return Promise.reject(new Error(`The task already waits for input "${name}"; input request keys must be unique`));
    return new Promise<JsonObject>((resolve, reject) => {
      this.pending.set(name, { request: params === undefined ? { method } : { method, params }, resolve, reject });
      if (this.pending.size === 1) this.host.moveTo(this, 'input_required').catch(noop);
    });
  }

  /**
   * `tasks/update`: answers some or all pending input requests. Keys the task is not waiting on are ignored;
   * an answer without the shape of the result it stands for is -32602 and nothing is applied. The task is
   * back in `working` (in the store) before this resolves when no input is left pending.
   */
  async supply(responses: JsonObject): Promise<void> {
    const matched: [string, PendingInput, JsonObject][] = [];
    const malformed: string[] = [];
    for (const [key, value] of Object.entries(responses)) {
      const entry = this.pending.get(key);
      if (entry === undefined) continue;
      if (answers(entry.request.method, value)) matched.push([key, entry, value]);
      else malformed.push(key);
    }
    if (malformed.length > 0) {
      throw new WireError(ErrorCode.InvalidParams, `Invalid params: inputResponses ${malformed.map((key) => JSON.stringify(key)).join(', ')} do not have the shape of the result they answer`);
    }
    if (matched.length === 0) return;
    for (const [key] of matched) this.pending.delete(key);
    // Queued before the handler resumes, so a need it has next is recorded after this move.
    const moved = this.pending.size === 0 ? this.host.moveTo(this, 'working') : undefined;
    for (const [, entry, value] of matched) entry.resolve(value);
    await moved;
  }
}
