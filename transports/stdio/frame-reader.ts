/**
 * Reads NDJSON frames off a byte stream (the server's stdin, a child's stdout) into inbound frames.
 *
 * Decoding is incremental and bounded (core/codecs): a line longer than the limit is reported once as a
 * `FrameTooLarge` malformed frame and skipped without being buffered, an undecodable line becomes a
 * `DecodeFailed` malformed frame, and reading carries on with the next line either way.
 *
 * Reading can be paused (inbound flow control): the stream stops flowing at once, and the frames already decoded
 * from the chunk in hand are held, so what is held is bounded by one read (the stream's high-water mark).
 */
import type { Readable } from 'node:stream';
import type { DecodedItem, StreamDecoder } from '../../core/codecs/codec.ts';
import { createStreamDecoder } from '../../core/codecs/framing.ts';
import { jsonCodec } from '../../core/codecs/json.ts';
import type { InboundFrame } from '../../core/transport.ts';
import { envelopeOf } from '../../core/frame-envelope.ts';

export interface FrameSink {
  frame(frame: InboundFrame): void;
  /** The stream ended; any unterminated last line was delivered first. */
  end(): void;
  error(error: Error): void;
}

export function toInboundFrame(item: DecodedItem): InboundFrame {
  return item.ok ? { type: 'message', payload: item.value, envelope: envelopeOf(item.value) } : { type: 'malformed', error: item.error };
}

export class FrameReader {
  private readonly decoder: StreamDecoder;
  private sink: FrameSink | undefined;
  private paused = false;
  /** Frames decoded while paused, delivered in order on resume. */
  private held: InboundFrame[] | undefined;
  /** The stream ended while frames were held: the end is reported after them. */
  private endHeld = false;
  private readonly emit = (item: DecodedItem): void => {
    const frame = toInboundFrame(item);
    if (this.paused) (this.held ??= []).push(frame);
    else this.sink?.frame(frame);
  };
  private readonly onData = (chunk: Buffer | string): void => {
    if (this.sink === undefined) return;
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    this.decoder.push(bytes, this.emit);
  };
  private readonly onEnd = (): void => {
    if (this.sink === undefined) return;
    this.decoder.end(this.emit);
    if (this.held !== undefined) this.endHeld = true;
    else this.ended();
  };
  private readonly onError = (error: Error): void => {
    const sink = this.sink;
    this.detach();
    sink?.error(error);
  };

  constructor(private readonly input: Readable, maxMessageBytes: number) {
    this.decoder = createStreamDecoder(jsonCodec, maxMessageBytes);
  }

  /** Starts reading (the stream stays paused until then, so nothing is read before a session listens). */
  start(sink: FrameSink): void {
    this.sink = sink;
    this.input.on('data', this.onData);
    this.input.once('end', this.onEnd);
    this.input.once('error', this.onError);
    this.input.resume();
  }

  /** Stops reading and holds what was decoded already, until {@link resume}. */
  pause(): void {
    if (this.sink === undefined || this.paused) return;
    this.paused = true;
    this.input.pause();
  }

  /** Delivers what was held, in order, then reads on (unless a delivered frame paused reading again). */
  resume(): void {
    if (this.sink === undefined || !this.paused) return;
    this.paused = false;
    const held = this.held;
    while (held !== undefined && held.length > 0 && !this.paused && this.sink !== undefined) {
      this.sink.frame(held.shift() as InboundFrame);
    }
    if (this.paused || this.sink === undefined) return;
    this.held = undefined;
    if (this.endHeld) this.ended();
    else this.input.resume();
  }

  /**
   * Stops delivering frames. `discard` keeps the stream flowing into nothing (a child's stdout, so the child
   * never blocks on a full pipe while it shuts down); otherwise the stream is paused (our own stdin, so it no
   * longer holds the process open).
   */
  stop(discard: boolean): void {
    this.detach();
    if (discard) this.input.resume();
    else this.input.pause();
  }

  private ended(): void {
    const sink = this.sink;
    this.detach();
    sink?.end();
  }

  private detach(): void {
    this.sink = undefined;
    this.paused = false;
    this.held = undefined;
    this.endHeld = false;
    this.input.off('data', this.onData);
    this.input.off('end', this.onEnd);
    this.input.off('error', this.onError);
    // A late error on a stream we no longer read must not become an uncaught exception.
    if (this.input.listenerCount('error') === 0) this.input.on('error', ignore);
  }
}

function ignore(): void {}
