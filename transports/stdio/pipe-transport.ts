/**
 * What both ends of stdio share: one transport over a pair of byte streams, NDJSON framed. Frames are read
 * from `input` only once a session subscribes to `incoming$`, written to `output` with its backpressure
 * honoured, and the whole thing ends exactly once ({@link PipeTransport.finish}), however it ends: closed by
 * the session, input ended, output broken, child process gone. The server and client ends decide what each
 * of those events means.
 */
import type { Readable, Writable } from 'node:stream';
import { BehaviorSubject, Observable, defer, of, type Subscriber } from 'rxjs';
import { LocalError } from '../../core/errors.ts';
import type { InboundFrame, OutboundFrame, Transport, TransportStatus } from '../../core/transport.ts';
import { errorCode, FrameWriter } from './frame-writer.ts';
import { FrameReader } from './frame-reader.ts';

export interface PipeTransportConfig {
  readonly input: Readable;
  readonly output: Writable;
  readonly maxMessageBytes: number;
  /** For messages: "stdin", "the server's stdout". */
  readonly inputName: string;
  readonly outputName: string;
  /** The output stream is ours alone (a child's stdin), not shared with the rest of the process. */
  readonly ownsOutput: boolean;
  /** Once we stop reading, keep the input flowing into nothing (a child's stdout) rather than pausing it. */
  readonly discardInputWhenDone: boolean;
}

const closedStatus = (reason: LocalError | undefined): TransportStatus =>
  reason === undefined ? { type: 'closed' } : { type: 'closed', reason };

export abstract class PipeTransport implements Transport {
  readonly kind = 'stdio';
  readonly incoming$: Observable<InboundFrame>;
  readonly status$: Observable<TransportStatus>;
  /** Settles once the transport has ended, with the reason it ended for (undefined: an orderly end). */
  readonly closed: Promise<LocalError | undefined>;
  private readonly reader: FrameReader;
  private readonly writer: FrameWriter;
  private readonly statusSubject = new BehaviorSubject<TransportStatus>({ type: 'open' });
  private subscriber: Subscriber<InboundFrame> | undefined;
  private subscribed = false;
  /** Set when the transport ended: how incoming$ finishes, replayed to a subscriber that comes late. */
  private outcome: { readonly reason: LocalError | undefined; readonly asError: boolean } | undefined;
  private resolveClosed!: (reason: LocalError | undefined) => void;
  private closing: Promise<void> | undefined;

  protected constructor(private readonly config: PipeTransportConfig) {
    this.closed = new Promise((resolve) => (this.resolveClosed = resolve));
    this.reader = new FrameReader(config.input, config.maxMessageBytes);
    this.writer = new FrameWriter(config.output, config.outputName, config.ownsOutput, {
      status: (status) => {
        if (this.outcome === undefined) this.statusSubject.next(status);
      },
      broken: (error) => this.onOutputBroken(error),
    });
    this.status$ = defer(() => (this.outcome === undefined ? this.statusSubject : of(closedStatus(this.outcome.reason))));
    this.incoming$ = new Observable<InboundFrame>((subscriber) => {
      if (this.subscribed) {
        subscriber.error(new LocalError('TransportFailed', 'A stdio transport feeds exactly one reader'));
        return undefined;
      }
      this.subscribed = true;
      if (this.outcome !== undefined) {
        endSubscriber(subscriber, this.outcome);
        return undefined;
      }
      this.subscriber = subscriber;
      this.reader.start({
        frame: (frame) => this.deliver(frame),
        end: () => this.onInputEnd(),
        error: (error) => this.onInputError(error),
      });
      return () => {
        if (this.subscriber !== subscriber) return;
        this.subscriber = undefined;
        this.reader.stop(this.config.discardInputWhenDone);
      };
    });
  }

  send(frame: OutboundFrame): void | Promise<void> {
    try {
      return this.writer.write(frame.payload);
    } catch (error) {
      return Promise.reject(new LocalError('TransportFailed', 'The frame could not be encoded as JSON', { cause: error }));
    }
  }

  close(reason?: LocalError): Promise<void> {
    this.closing ??= this.shutDown(reason);
    return this.closing;
  }

  pauseReading(): void {
    if (this.outcome === undefined) this.reader.pause();
  }

  resumeReading(): void {
    if (this.outcome === undefined) this.reader.resume();
  }

  /** Whether the transport has ended. */
  get ended(): boolean {
    return this.outcome !== undefined;
  }

  /** What `close()` does beyond ending the transport (the client end stops its child process). */
  protected async shutDown(reason: LocalError | undefined): Promise<void> {
    this.finish(reason, false);
  }

  /** The input stream ended (EOF). */
  protected abstract onInputEnd(): void;

  /** The output stream failed or closed under us. */
  protected abstract onOutputBroken(error: LocalError): void;

  /** The input stream failed. */
  protected onInputError(error: Error): void {
    this.finish(new LocalError('TransportFailed', `${this.config.inputName} failed: ${errorCode(error)}`, { cause: error }), true);
  }

  protected deliver(frame: InboundFrame): void {
    if (this.outcome === undefined) this.subscriber?.next(frame);
  }

  /**
   * Ends the transport once: stops reading and writing (sends reject with `ConnectionClosed`), completes
   * `incoming$` (or errors it with `reason` when `asError`), reports the closed status. Returns false when the
   * transport had ended already.
   */
  protected finish(reason: LocalError | undefined, asError: boolean): boolean {
    if (this.outcome !== undefined) return false;
    const outcome = { reason, asError: asError && reason !== undefined };
    this.outcome = outcome;
    this.writer.close(
      reason?.code === 'ConnectionClosed' ? reason : new LocalError('ConnectionClosed', 'The stdio transport is closed', reason === undefined ? undefined : { cause: reason }),
    );
    this.reader.stop(this.config.discardInputWhenDone);
    this.released();
    const subscriber = this.subscriber;
    this.subscriber = undefined;
    if (subscriber !== undefined) endSubscriber(subscriber, outcome);
    this.statusSubject.next(closedStatus(reason));
    this.statusSubject.complete();
    this.resolveClosed(reason);
    return true;
  }

  /** Releases what the end holds (the console guard); runs once, inside {@link finish}. */
  protected released(): void {}
}

function endSubscriber(subscriber: Subscriber<InboundFrame>, outcome: { readonly reason: LocalError | undefined; readonly asError: boolean }): void {
  if (outcome.asError && outcome.reason !== undefined) subscriber.error(outcome.reason);
  else subscriber.complete();
}
