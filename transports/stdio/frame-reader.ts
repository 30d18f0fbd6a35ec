/**
 * Reads NDJSON frames off a byte stream (the server's stdin, a child's stdout) into inbound frames.
 *
 * Decoding is incremental and bounded (core/codecs): a line longer than the limit is reported once as a
 * `FrameTooLarge` malformed frame and skipped without being buffered, an undecodable line becomes a
 * `DecodeFailed` malformed frame, and reading carries on with the next line either way.
 */
import type { Readable } from 'node:stream';
import type { DecodedItem, StreamDecoder } from '../../core/codecs/codec.ts';
import { createStreamDecoder } from '../../core/codecs/framing.ts';
import { jsonCodec } from '../../core/codecs/json.ts';
import type { InboundFrame } from '../../core/transport.ts';

export interface FrameSink {
  frame(frame: InboundFrame): void;
  /** The stream ended; any unterminated last line was delivered first. */
  end(): void;
  error(error: Error): void;
}

export function toInboundFrame(item: DecodedItem): InboundFrame {
  return item.ok ? { type: 'message', payload: item.value } : { type: 'malformed', error: item.error };
}

export class FrameReader {
  private readonly decoder: StreamDecoder;
  private sink: FrameSink | undefined;
  private readonly onData = (chunk: Buffer | string): void => {
    const sink = this.sink;
    if (sink === undefined) return;
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    this.decoder.push(bytes, (item) => this.sink?.frame(toInboundFrame(item)));
  };
  private readonly onEnd = (): void => {
    const sink = this.sink;
    if (sink === undefined) return;
    this.decoder.end((item) => this.sink?.frame(toInboundFrame(item)));
    this.detach();
    sink.end();
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

  private detach(): void {
    this.sink = undefined;
    this.input.off('data', this.onData);
    this.input.off('end', this.onEnd);
    this.input.off('error', this.onError);
    // A late error on a stream we no longer read must not become an uncaught exception.
    if (this.input.listenerCount('error') === 0) this.input.on('error', ignore);
  }
}

function ignore(): void {}
