/**
 * The transport's `incoming$`: one reader, frames delivered as they come off the wire (always from an I/O
 * callback, never inside `send`). Frames that arrive before the reader subscribes wait in a queue (the
 * session subscribes before it sends anything, so it stays empty in practice); after close, queued frames are
 * still delivered, then the reader completes. The queue is bounded: the server only speaks when spoken to, so
 * a reader that never subscribes cannot make it grow past a few frames, and never past the bound.
 */
import { Observable, type Subscriber } from 'rxjs';
import { LocalError } from '../../../core/errors.ts';
import type { InboundFrame } from '../../../core/transport.ts';

/** Frames kept for a reader that has not subscribed yet; more are dropped (nothing comes unasked). */
const MAX_QUEUED = 1024;

export class Inbox {
  readonly incoming$: Observable<InboundFrame>;
  private reader: Subscriber<InboundFrame> | undefined;
  private queue: InboundFrame[] | undefined;
  private completed = false;

  constructor() {
    this.incoming$ = new Observable<InboundFrame>((subscriber) => {
      if (this.reader !== undefined) {
        subscriber.error(new LocalError('TransportFailed', 'An HTTP client transport feeds exactly one reader'));
        return undefined;
      }
      this.reader = subscriber;
      const queued = this.queue;
      this.queue = undefined;
      if (queued !== undefined) for (const frame of queued) subscriber.next(frame);
      if (this.completed) subscriber.complete();
      return () => {
        if (this.reader === subscriber) this.reader = undefined;
      };
    });
  }

  push(frame: InboundFrame): void {
    if (this.completed) return;
    if (this.reader !== undefined) this.reader.next(frame);
    else if ((this.queue?.length ?? 0) < MAX_QUEUED) (this.queue ??= []).push(frame);
  }

  complete(): void {
    if (this.completed) return;
    this.completed = true;
    this.reader?.complete();
  }
}
