/**
 * The runners' subjects of a shared task store: each process that runs task handlers answers requests about
 * them on `<prefix>.<runner id>` (pending input, input answers, cancellation), and reaches another process's
 * tasks there. A runner is gone when nobody serves its subject: a process that dies loses its NATS connection,
 * and nats-server then answers "no responders" at once. That answer is believed only when a second request,
 * `recheckMs` later, gets it too (right after a NATS restart, a live process may not have subscribed again yet);
 * a runner that merely does not answer in time is `unreachable`, never taken for dead.
 *
 * The notices of tasks (status, progress, logs) travel beside, on `<prefix>.notices.<task id>` (task-notices.ts).
 */
import type { Msg, NatsConnection, Subscription } from '@nats-io/nats-core';
import type { RelayAnswer, RunnerView, TaskRelay, TaskRunnerCalls } from '../../core/catalog/task-store.ts';
import type { Clock } from '../../core/clock.ts';
import { toWireError } from '../../core/errors.ts';
import type { JsonObject, JsonRpcErrorObject } from '../../core/jsonrpc.ts';
import { isJsonObject } from '../../core/protocol/guards.ts';
import { isNoRespondersError } from './headers.ts';
import { NatsTaskNotices } from './task-notices.ts';

type Op = 'inputs' | 'supply' | 'cancel';

interface RelayRequest {
  readonly op: Op;
  readonly owner: string;
  readonly taskId: string;
  readonly responses?: JsonObject;
}

export interface TaskRelayOptions {
  readonly connection: NatsConnection;
  /** Runners' subjects are `<prefix>.<runner id>`. */
  readonly prefix: string;
  /** This process's runner id. */
  readonly runnerId: string;
  /** The runner id a task's record names (undefined: no such task of that owner). */
  readonly runnerOf: (owner: string, taskId: string) => Promise<string | undefined>;
  /** How long a forwarded call waits for its answer. */
  readonly timeoutMs: number;
  /** The pause before "no responders" is asked again. */
  readonly recheckMs: number;
  readonly clock: Clock;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function encode(value: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(value));
}

function parseRequest(data: Uint8Array): RelayRequest | undefined {
  try {
    const value: unknown = JSON.parse(decoder.decode(data));
    if (!isJsonObject(value)) return undefined;
    const { op, owner, taskId, responses } = value;
    if (op !== 'inputs' && op !== 'supply' && op !== 'cancel') return undefined;
    if (typeof owner !== 'string' || typeof taskId !== 'string') return undefined;
    if (op === 'supply' && !isJsonObject(responses)) return undefined;
    return isJsonObject(responses) ? { op, owner, taskId, responses } : { op, owner, taskId };
  } catch {
    return undefined;
  }
}

/** The reply of a runner: `{ok: <value>}` or `{error: <JSON-RPC error>}`. */
function parseReply(data: Uint8Array): { readonly ok: unknown } | { readonly error: JsonRpcErrorObject } | undefined {
  try {
    const value: unknown = JSON.parse(decoder.decode(data));
    if (!isJsonObject(value)) return undefined;
    if ('ok' in value) return { ok: value['ok'] };
    const error = value['error'];
    if (isJsonObject(error) && typeof error['code'] === 'number' && typeof error['message'] === 'string') {
      return { error: { code: error['code'], message: error['message'], ...(error['data'] === undefined ? {} : { data: error['data'] }) } };
    }
    return undefined;
  } catch {
    return undefined;
  }
}

/** Answers a forwarded call; a connection closed meanwhile loses the answer (the asker's deadline covers it). */
function respond(msg: Msg, reply: unknown): void {
  try {
    msg.respond(encode(reply));
  } catch {
    // Closed or draining: nothing to answer on.
  }
}

function isRunnerView(value: unknown): value is RunnerView {
  return isJsonObject(value) && typeof value['running'] === 'boolean' && (value['inputRequests'] === undefined || isJsonObject(value['inputRequests']));
}

export class NatsTaskRelay implements TaskRelay {
  /** The tasks features of this process (usually one) that answer for the tasks they run. */
  private readonly locals = new Set<TaskRunnerCalls>();
  private readonly subscription: Subscription;
  /** The notices of tasks, on `<prefix>.notices.<task id>` (task-notices.ts). */
  readonly notices: NatsTaskNotices;

  constructor(private readonly options: TaskRelayOptions) {
    this.subscription = options.connection.subscribe(this.subject(options.runnerId), { callback: (error, msg) => void (error === null && this.answer(msg)) });
    this.notices = new NatsTaskNotices({ connection: options.connection, prefix: options.prefix, origin: options.runnerId });
  }

  serve(local: TaskRunnerCalls): () => void {
    this.locals.add(local);
    return () => void this.locals.delete(local);
  }

  /** Stops answering: to the other processes, this runner is gone from now on. */
  close(): void {
    this.subscription.unsubscribe();
    this.locals.clear();
    this.notices.close();
  }

  inputRequests(owner: string, taskId: string): Promise<RelayAnswer<RunnerView>> {
    return this.forward({ op: 'inputs', owner, taskId }, isRunnerView);
  }

  supply(owner: string, taskId: string, responses: JsonObject): Promise<RelayAnswer<boolean>> {
    return this.forward({ op: 'supply', owner, taskId, responses }, (value): value is boolean => typeof value === 'boolean');
  }

  cancel(owner: string, taskId: string): Promise<RelayAnswer<boolean>> {
    return this.forward({ op: 'cancel', owner, taskId }, (value): value is boolean => typeof value === 'boolean');
  }

  private subject(runnerId: string): string {
    return `${this.options.prefix}.${runnerId}`;
  }

  /** What this process's features say about one of its tasks (the first that runs it answers). */
  private async local(request: RelayRequest): Promise<unknown> {
    for (const local of this.locals) {
      if (request.op === 'inputs') {
        const view = local.inputRequests(request.owner, request.taskId);
        if (view.running) return view;
      } else if (request.op === 'supply') {
        if (await local.supply(request.owner, request.taskId, request.responses ?? {})) return true;
      } else if (await local.cancel(request.owner, request.taskId)) {
        return true;
      }
    }
    return request.op === 'inputs' ? { running: false } : false;
  }

  /** Answers one forwarded call, exactly once (a request that cannot be read is answered with an error too). */
  private answer(msg: Msg): void {
    if (msg.reply === undefined || msg.reply === '') return;
    const request = parseRequest(msg.data);
    if (request === undefined) return respond(msg, { error: { code: -32600, message: 'Invalid task relay request' } });
    this.local(request).then(
      (value) => respond(msg, { ok: value }),
      (error: unknown) => respond(msg, { error: toWireError(error) }),
    );
  }

  private async forward<T>(request: RelayRequest, valid: (value: unknown) => value is T): Promise<RelayAnswer<T>> {
    const runner = await this.options.runnerOf(request.owner, request.taskId);
    if (runner === undefined || runner === this.options.runnerId) {
      try {
        const value = await this.local(request);
        return valid(value) ? { type: 'answered', value } : { type: 'failed', error: { code: -32603, message: 'Malformed local task answer' } };
      } catch (error) {
        return { type: 'failed', error: toWireError(error) };
      }
    }
    const first = await this.ask(runner, request, valid);
    if (first !== 'no-responders') return first;
    // Nothing was delivered: asking again is safe, and tells a restart's gap from a death.
    await new Promise<void>((resolve) => this.options.clock.setTimeout(resolve, this.options.recheckMs));
    const second = await this.ask(runner, request, valid);
    return second === 'no-responders' ? { type: 'gone' } : second;
  }

  private async ask<T>(runner: string, request: RelayRequest, valid: (value: unknown) => value is T): Promise<RelayAnswer<T> | 'no-responders'> {
    let reply: Msg;
    try {
      reply = await this.options.connection.request(this.subject(runner), encode(request), { timeout: this.options.timeoutMs });
    } catch (error) {
      if (isNoRespondersError(error)) return 'no-responders';
      return { type: 'unreachable', message: `The server process running task "${request.taskId}" did not answer within ${this.options.timeoutMs} ms; try again` };
    }
    const parsed = parseReply(reply.data);
    if (parsed === undefined) return { type: 'failed', error: { code: -32603, message: 'Malformed answer from the server process running the task' } };
    if ('error' in parsed) return { type: 'failed', error: parsed.error };
    return valid(parsed.ok) ? { type: 'answered', value: parsed.ok } : { type: 'failed', error: { code: -32603, message: 'Malformed answer from the server process running the task' } };
  }
}
