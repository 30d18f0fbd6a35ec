/**
 * The tasks extension (`io.modelcontextprotocol/tasks`, revision 2026-07-28), client side: a request the server
 * answered with a task (`resultType: "task"`) is followed to its end behind the same Observable, so the caller
 * of `callTool$` / `callTool` sees progress, then the tool's result, as for any call.
 *
 * - Status: where the server offers it, a `subscriptions/listen` naming the task brings `notifications/tasks`
 *   (and the progress of the task's handler); after its acknowledgement one `tasks/get` catches up on what
 *   happened before it, and a slow poll (`maxPollIntervalMs`) stays as a backstop, since the notifications are
 *   optional. Otherwise `tasks/get` is polled at the task's `pollIntervalMs`, kept within the client's bounds.
 * - Input: an `input_required` task's `inputRequests` are answered by the handlers that answer elicitation,
 *   sampling and roots, each key once (the server keeps keys unique over a task's life), and sent with
 *   `tasks/update`; a status is then asked for again at once.
 * - End: `completed` gives the inlined result, `failed` rejects with the inlined JSON-RPC error (a `WireError`),
 *   `cancelled` rejects with `RequestAborted`. Unsubscribing (or the caller's signal) before the end sends
 *   `tasks/cancel`, as does a failure on this side (an input handler that threw, a malformed task): the
 *   `notifications/cancelled` of a request means nothing to a task.
 */
import { Observable, type Subscription } from 'rxjs';
import type { RequestEvent } from '../actors/handler-types.ts';
import type { Clock, TimerHandle } from '../core/clock.ts';
import { LocalError, WireError } from '../core/errors.ts';
import { type JsonObject, isJsonObject } from '../core/jsonrpc.ts';
import { TASK_STATUSES, type TaskStatus } from '../core/protocol/tasks.ts';
import type { SubscriptionFilter } from '../core/protocol/modern.ts';
import { normaliseProgress } from '../actors/progress.ts';
import type { InputAnswerer } from './rounds.ts';

/** How a client follows tasks (`ClientOptions.tasks`). */
export interface TaskFollowOptions {
  /** The polling interval when the server suggests none (default 1000 ms). */
  readonly defaultPollIntervalMs?: number;
  /** The shortest interval the client polls at, whatever the server suggests (default 100 ms). */
  readonly minPollIntervalMs?: number;
  /** The longest (default 30 000 ms); also the backstop poll while status notifications are listened to. */
  readonly maxPollIntervalMs?: number;
  /** Listen for status notifications where the server offers them, instead of polling (default true). */
  readonly listen?: boolean;
}

/** What following a task needs of the session. */
export interface TaskFollowPort {
  readonly clock: Clock;
  request(method: string, params: JsonObject, signal?: AbortSignal): Promise<JsonObject>;
  /** A listen stream, or `undefined` when the server offers no status notifications. */
  listen$(filter: SubscriptionFilter): Observable<{ readonly method: string; readonly params: JsonObject }> | undefined;
}

/** Input request keys one task may ask for over its life before the client gives up on it. */
const MAX_INPUT_KEYS = 1024;

function isStatus(value: unknown): value is TaskStatus {
  return (TASK_STATUSES as readonly unknown[]).includes(value);
}

function malformed(what: string): LocalError {
  return new LocalError('ProtocolViolation', `The server's task is malformed: ${what}`);
}

function noop(): void {}

/**
 * Keeps the process alive while a task is followed. The session's timers never hold a process open (an idle
 * session must not), but a caller awaiting a task's result is not idle: between two polls nothing else may be
 * pending (an HTTP client has no open request then), and a script awaiting `callTool` would end mid-task. The
 * timing stays the session clock's; this only holds the event loop (and does nothing where there is none).
 */
function holdOpen(): () => void {
  const handle = globalThis.setInterval(noop, 0x7fffffff);
  return () => globalThis.clearInterval(handle);
}

/**
 * Follows the task `created` names until it ends. `progressToken` is the token of the request that created
 * it (its handler's progress keeps it). The Observable emits progress events, then one result.
 */
export function followTask<R extends object>(
  created: JsonObject,
  port: TaskFollowPort,
  answer: InputAnswerer,
  options: TaskFollowOptions,
  progressToken: number | undefined,
  signal?: AbortSignal,
): Observable<RequestEvent<R>> {
  return new Observable<RequestEvent<R>>((subscriber) => {
    const taskId = created['taskId'];
    if (typeof taskId !== 'string' || taskId.length === 0) {
      subscriber.error(malformed('a task answer without a taskId'));
      return undefined;
    }
    const min = Math.max(1, options.minPollIntervalMs ?? 100);
    const max = Math.max(min, options.maxPollIntervalMs ?? 30_000);
    const clamp = (value: unknown): number => Math.min(max, Math.max(min, typeof value === 'number' && Number.isFinite(value) ? value : (options.defaultPollIntervalMs ?? 1000)));
    const controller = new AbortController();
    const answered = new Set<string>();
    let interval = clamp(created['pollIntervalMs']);
    let ended = false;
    let terminal = false;
    let polling = false;
    let listening = false;
    let timer: TimerHandle | undefined;
    let listen: Subscription | undefined;
    let lastProgress = -Infinity;
    const release = holdOpen();

    const stop = (): void => {
      ended = true;
      release();
      timer?.cancel();
      timer = undefined;
      listen?.unsubscribe();
      listen = undefined;
      controller.abort(new LocalError('RequestAborted', 'The task is no longer followed'));
      signal?.removeEventListener('abort', onAbort);
      // A task that did not end is of no use to anyone now: the server is asked to stop it.
      if (!terminal) port.request('tasks/cancel', { taskId }).catch(noop);
    };
    const fail = (error: unknown): void => {
      if (ended) return;
      stop();
      subscriber.error(error);
    };
    const onAbort = (): void => fail(signal?.reason ?? new LocalError('RequestAborted', 'The caller stopped waiting for the task'));

    const schedule = (delay: number): void => {
      if (ended) return;
      timer?.cancel();
      timer = port.clock.setTimeout(poll, delay);
    };
    const poll = (): void => {
      timer = undefined;
      if (ended || polling) return;
      polling = true;
      port.request('tasks/get', { taskId }, controller.signal).then(
        (task) => {
          polling = false;
          see(task);
          if (timer === undefined) schedule(listening ? max : interval);
        },
        (error: unknown) => {
          polling = false;
          fail(error);
        },
      );
    };

    const see = (task: JsonObject): void => {
      if (ended) return;
      if (task['taskId'] !== taskId) return fail(malformed(`a status of task ${JSON.stringify(task['taskId'])} while following ${JSON.stringify(taskId)}`));
      const status = task['status'];
      if (!isStatus(status)) return fail(malformed(`unknown status ${JSON.stringify(status)}`));
      interval = clamp(task['pollIntervalMs']);
      switch (status) {
        case 'completed': {
          const result = task['result'];
          if (!isJsonObject(result)) return fail(malformed('a completed task without its result'));
          terminal = true;
          stop();
          subscriber.next({ type: 'result', result: result as R });
          return subscriber.complete();
        }
        case 'failed': {
          const error = task['error'];
          terminal = true;
          if (!isJsonObject(error) || typeof error['code'] !== 'number' || typeof error['message'] !== 'string') {
            return fail(malformed('a failed task without its JSON-RPC error'));
          }
          return fail(new WireError(error['code'], error['message'], error['data'] === undefined ? {} : { data: error['data'] }));
        }
        case 'cancelled': {
          terminal = true;
          const message = typeof task['statusMessage'] === 'string' ? `: ${task['statusMessage']}` : '';
          return fail(new LocalError('RequestAborted', `The server cancelled the task${message}`));
        }
        case 'input_required':
          return supply(task['inputRequests']);
        case 'working':
          return undefined;
      }
    };

    /** Answers the input requests not answered yet, then tells the server with `tasks/update`. */
    const supply = (requests: unknown): void => {
      if (!isJsonObject(requests)) return;
      const fresh = Object.keys(requests).filter((key) => !answered.has(key));
      if (fresh.length === 0) return;
      if (answered.size + fresh.length > MAX_INPUT_KEYS) return fail(malformed(`more than ${MAX_INPUT_KEYS} input requests`));
      for (const key of fresh) answered.add(key);
      Promise.all(
        fresh.map((key) => {
          const request = requests[key];
          if (!isJsonObject(request) || typeof request['method'] !== 'string') throw malformed(`input request ${JSON.stringify(key)}`);
          return answer(request['method'], isJsonObject(request['params']) ? request['params'] : undefined, controller.signal);
        }),
      )
        .then((answers) => {
          if (ended) return undefined;
          const inputResponses: Record<string, JsonObject> = {};
          fresh.forEach((key, index) => (inputResponses[key] = answers[index] as JsonObject));
          return port.request('tasks/update', { taskId, inputResponses }, controller.signal);
        })
        .then(() => {
          // The answers are in: the next status is asked for at once.
          if (!ended && !polling) schedule(0);
        }, fail);
    };

    const onNotice = (notice: { readonly method: string; readonly params: JsonObject }): void => {
      if (ended) return;
      switch (notice.method) {
        case 'notifications/subscriptions/acknowledged': {
          const agreed = (notice.params['notifications'] as SubscriptionFilter | undefined)?.taskIds;
          if (agreed?.includes(taskId) !== true) {
            listen?.unsubscribe();
            listen = undefined;
            return;
          }
          listening = true;
          // Changes made before the listen began are caught up on by one status request now (in place of the
          // poll that was due).
          timer?.cancel();
          timer = undefined;
          return poll();
        }
        case 'notifications/tasks':
          return see(notice.params);
        case 'notifications/progress': {
          if (notice.params['progressToken'] !== progressToken) return undefined;
          const report = normaliseProgress(notice.params);
          if (report === undefined || report.progress <= lastProgress) return undefined;
          lastProgress = report.progress;
          return subscriber.next({ type: 'progress', ...report });
        }
        default:
          return undefined;
      }
    };

    if (signal?.aborted === true) {
      onAbort();
      return undefined;
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    const listen$ = options.listen === false ? undefined : port.listen$({ taskIds: [taskId] });
    if (listen$ !== undefined) {
      // An ended or refused listen leaves polling to do the work.
      const fallBack = (): void => {
        listening = false;
        listen = undefined;
        if (!ended && !polling) schedule(interval);
      };
      listen = listen$.subscribe({ next: onNotice, error: fallBack, complete: fallBack });
    }
    // The first status comes after the suggested interval (or right after the listen's acknowledgement).
    const status = created['status'];
    if (!ended && timer === undefined && !polling) schedule(status === 'working' ? interval : 0);
    return () => {
      if (!ended) stop();
    };
  });
}
