/**
 * Step-up when only the server behind the endpoint can tell. An acceptor without `missingScopes` (the gateway,
 * whose servers are on NATS) cannot say before a lone legacy request runs that the caller lacks a scope for it,
 * and an SSE answer's 200 would go out first (step-up.ts is the check for acceptors that can say). So the
 * stream's response is held until the request's first message:
 * - its -32043 answer: the POST is answered 403 with the `insufficient_scope` challenge naming the scopes and
 *   the error as body, as JSON answers and the modern era are, and the stream never opens;
 * - anything else (a progress notification, a request to the client, the result): the stream opens, with what
 *   was held before it (a priming event), and goes on as usual.
 * Held at most `HOLD_MS`: a request that says nothing for that long gets its stream (priming, keep-alives), and
 * a refusal that comes later is answered inside it. A refusal comes at once (the server checks `requires` before
 * the handler runs), so the hold costs only requests that are slow to say anything, by at most that long.
 */
import type { TimerHandle } from '../../../core/clock.ts';
import { ErrorCode } from '../../../core/error-codes.ts';
import type { FrameEnvelope } from '../../../core/frame-envelope.ts';
import type { RequestId } from '../../../core/jsonrpc.ts';
import type { HeaderMap, HttpResponder, StreamSink } from './http-exchange.ts';
import type { EndpointOptions } from './options.ts';
import { stepUpHeaders } from './protected-resource.ts';

/** How long a stream's 200 may wait for the request's first message. */
export const HOLD_MS = 2_000;

/**
 * `res`, or one whose event stream is held for step-up, when the endpoint authenticates callers, the acceptor
 * cannot check scopes beforehand and the body (its `envelope`) is a lone request.
 */
export function holdForStepUp(options: EndpointOptions, res: HttpResponder, envelope: FrameEnvelope, headers: HeaderMap): HttpResponder {
  if (options.authenticate === undefined || options.server.missingScopes !== undefined || envelope.kind !== 'request') return res;
  const id = envelope.id as RequestId;
  return {
    respond: (status, answer, text) => res.respond(status, answer, text),
    onFinished: (listener) => res.onFinished(listener),
    openStream: (status, answer) => new HeldStream(res, status, answer, id, (error) => ({ ...stepUpHeaders(error, options.transport), ...headers }), options),
  };
}

class HeldStream implements StreamSink {
  private real: StreamSink | undefined;
  private state: 'held' | 'open' | 'refused' | 'gone' = 'held';
  private readonly before: string[] = [];
  private readonly closeListeners: Array<(byPeer: boolean) => void> = [];
  private readonly timer: TimerHandle;

  constructor(
    private readonly res: HttpResponder,
    private readonly status: number,
    private readonly headers: HeaderMap,
    private readonly requestId: RequestId,
    private readonly refusalHeaders: (error: { readonly data?: unknown }) => HeaderMap,
    options: EndpointOptions,
  ) {
    this.timer = options.clock.setTimeout(() => this.release(), HOLD_MS);
    res.onFinished((gone) => {
      if (!gone || this.state !== 'held') return;
      this.state = 'gone';
      this.timer.cancel();
      for (const listener of this.closeListeners.splice(0)) listener(true);
    });
  }

  get open(): boolean {
    if (this.state === 'held') return true;
    return this.state === 'open' && (this.real as StreamSink).open;
  }

  write(chunk: string): boolean {
    if (this.state === 'open') return (this.real as StreamSink).write(chunk);
    if (this.state !== 'held') return true;
    const data = messageData(chunk);
    if (data === undefined) {
      this.before.push(chunk);
      return true;
    }
    const refusal = this.refusalIn(data);
    if (refusal !== undefined) {
      this.state = 'refused';
      this.timer.cancel();
      this.res.respond(403, this.refusalHeaders(refusal), data);
      for (const listener of this.closeListeners.splice(0)) listener(false);
      return true;
    }
    this.release();
    return (this.real as StreamSink).write(chunk);
  }

  onDrain(listener: () => void): void {
    // Writes while held never fill a buffer: only an open stream can ask to wait.
    if (this.state === 'open') (this.real as StreamSink).onDrain(listener);
    else listener();
  }

  end(): void {
    this.release();
    this.real?.end();
  }

  abort(): void {
    this.release();
    this.real?.abort();
  }

  onClose(listener: (byPeer: boolean) => void): void {
    if (this.state === 'open') (this.real as StreamSink).onClose(listener);
    else if (this.state === 'held') this.closeListeners.push(listener);
  }

  /** Opens the stream for real, with what was held before. */
  private release(): void {
    if (this.state !== 'held') return;
    this.state = 'open';
    this.timer.cancel();
    const real = this.res.openStream(this.status, this.headers);
    this.real = real;
    for (const chunk of this.before.splice(0)) real.write(chunk);
    for (const listener of this.closeListeners.splice(0)) real.onClose(listener);
  }

  /** The -32043 error, when `data` is this request's answer refusing it for scope. */
  private refusalIn(data: string): { readonly data?: unknown } | undefined {
    // Most first messages are results or notifications: not parsed again unless they could be the refusal.
    if (!data.includes(String(ErrorCode.InsufficientScope))) return undefined;
    let message: unknown;
    try {
      message = JSON.parse(data);
    } catch {
      return undefined;
    }
    const { id, error } = (message ?? {}) as { id?: unknown; error?: { code?: unknown; data?: unknown } };
    return id === this.requestId && error?.code === ErrorCode.InsufficientScope ? error : undefined;
  }
}

/** The data of an SSE event carrying a message; undefined for priming events (empty data), comments, retries. */
function messageData(chunk: string): string | undefined {
  const lines = chunk.split('\n').filter((line) => line.startsWith('data:'));
  const data = lines.map((line) => line.slice(line.startsWith('data: ') ? 6 : 5)).join('\n');
  return data === '' ? undefined : data;
}
