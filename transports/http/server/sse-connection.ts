/**
 * One SSE connection: an HTTP response body carrying events, with flow control. Writes go straight to the
 * medium while it takes them; once it reports a full buffer, `write` returns a Promise that settles on drain,
 * which the session's outbound writer waits for (so nothing piles up here: the buffer a slow client can make
 * us hold is one event past the medium's high-water mark, the writer holding the rest of that stream's frames).
 * A writer that does not wait (a modern answer on a pooled connection, where one slow reader must not hold the
 * others' answers) is bounded by `maxBufferedBytes` instead: past that much written while the buffer is full, the
 * connection is cut off. (Replays and followed streams do not wait either; what the store keeps bounds them.) A
 * client that stops reading altogether is cut off after `drainTimeoutMs`. A cut-off connection says why
 * (`cutReason`); a client that left is noticed, never thrown at.
 */
import type { Clock, TimerHandle } from '../../../core/clock.ts';
import { LocalError } from '../../../core/errors.ts';
import { encodeSseComment, encodeSseEvent } from '../shared/sse.ts';
import type { StreamSink } from './http-exchange.ts';

export interface SseConnectionOptions {
  readonly clock: Clock;
  /** Comment lines every this many ms while idle; 0 disables them. */
  readonly keepAliveMs: number;
  /** How long a full buffer may stay full before the connection is dropped. */
  readonly drainTimeoutMs: number;
  /**
   * How much may be written while the buffer is full (in characters, about bytes) before the connection is dropped,
   * for writers that do not wait for `write`'s Promise; undefined: no bound but the drain timeout.
   */
  readonly maxBufferedBytes?: number | undefined;
}

export class SseConnection {
  private drained: Promise<void> | undefined;
  private resolveDrained: (() => void) | undefined;
  private drainTimer: TimerHandle | undefined;
  private keepAlive: TimerHandle | undefined;
  private closeListeners: Array<(byPeer: boolean) => void> | undefined;
  private ended = false;
  /** Set once the connection closed: whether the client went away first. */
  private closedByPeer: boolean | undefined;
  /** Characters written since the medium reported its buffer full. */
  private backlog = 0;
  /** Why this end cut the connection off (its client was not reading), if it did. */
  cutReason: LocalError | undefined;

  /**
   * `keepAliveNow` false leaves the keep-alive comments to a later {@link keepIdleAlive}: a request stream answered
   * while it is being opened (the usual case) then never arms a timer only to cancel it.
   */
  constructor(private readonly sink: StreamSink, private readonly options: SseConnectionOptions, keepAliveNow = true) {
    sink.onClose((byPeer) => this.onClosed(byPeer));
    if (keepAliveNow) this.keepIdleAlive();
  }

  /** Arms the keep-alive comments (once, and only on an open connection). */
  keepIdleAlive(): void {
    if (this.keepAlive !== undefined || this.options.keepAliveMs <= 0 || !this.open) return;
    this.keepAlive = this.options.clock.setInterval(() => {
      if (this.drained === undefined && this.sink.open) this.sink.write(encodeSseComment());
    }, this.options.keepAliveMs);
  }

  /** Whether events written now reach the client. */
  get open(): boolean {
    return !this.ended && this.sink.open;
  }

  /** Writes one event; a Promise means "wait before writing more". Writing to a closed connection is a no-op. */
  event(data: string, id?: string, type?: string): void | Promise<void> {
    return this.write(encodeSseEvent(type === undefined ? (id === undefined ? { data } : { data, id }) : id === undefined ? { data, event: type } : { data, id, event: type }));
  }

  /** Writes encoded SSE text (events, a retry field). */
  write(text: string): void | Promise<void> {
    if (!this.open) return undefined;
    if (this.drained !== undefined) {
      // Still draining: the medium buffers this too (up to the bound), and the caller keeps waiting.
      const bound = this.options.maxBufferedBytes;
      this.backlog += text.length;
      if (bound !== undefined && this.backlog > bound) {
        this.cut(`its client did not read while more than ${bound} characters waited for it (sse.maxBufferedBytes)`);
        return undefined;
      }
      this.sink.write(text);
      return this.drained;
    }
    if (this.sink.write(text)) return undefined;
    this.drained = new Promise((resolve) => (this.resolveDrained = resolve));
    this.drainTimer = this.options.clock.setTimeout(
      () => this.cut(`its client read nothing for ${this.options.drainTimeoutMs} ms while its buffer was full (sse.drainTimeoutMs)`),
      this.options.drainTimeoutMs,
    );
    this.sink.onDrain(() => this.settleDrain());
    return this.drained;
  }

  /** Drops the connection of a client that does not read, saying why. */
  private cut(why: string): void {
    this.cutReason ??= new LocalError('SlowConsumer', `The SSE stream was cut off: ${why}`);
    this.sink.abort();
  }

  /** Ends the response normally (after what was written). */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.sink.end();
  }

  onClose(listener: (byPeer: boolean) => void): void {
    const byPeer = this.closedByPeer;
    if (byPeer === undefined) (this.closeListeners ??= []).push(listener);
    else queueMicrotask(() => listener(byPeer));
  }

  private settleDrain(): void {
    this.backlog = 0;
    this.drainTimer?.cancel();
    this.drainTimer = undefined;
    const resolve = this.resolveDrained;
    this.drained = undefined;
    this.resolveDrained = undefined;
    resolve?.();
  }

  private onClosed(byPeer: boolean): void {
    if (this.closedByPeer !== undefined) return;
    this.closedByPeer = byPeer;
    this.ended = true;
    this.keepAlive?.cancel();
    this.keepAlive = undefined;
    this.settleDrain();
    const listeners = this.closeListeners;
    this.closeListeners = undefined;
    if (listeners !== undefined) for (const listener of listeners) listener(byPeer);
  }
}
