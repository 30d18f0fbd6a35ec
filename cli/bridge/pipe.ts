/**
 * Pipes two transports into each other, frames unchanged: the bridge's configuration of the join
 * (cli/join/join.ts), between a NATS session and a stdio child, and between this process's stdio and NATS.
 * `a` is the asking side (toward clients, the join's front), `b` the answering side (toward the server, its
 * back); see the join for what it guarantees (bounded queues with backpressure, an answer for every request,
 * the last words of an ending side, the handshake's revision, cancellation of a closed exchange).
 */
import type { LocalError } from '../../core/errors.ts';
import type { GracefulCloseOptions, Transport } from '../../core/transport.ts';
import { join } from '../join/join.ts';
import { type Undelivered, detail } from '../join/undelivered.ts';

export interface PipeOptions {
  /** Frames one direction holds while its receiver is slow or not ready yet (default 1024). */
  readonly maxQueued?: number;
  /** How long an ending side's last frames may take to reach the other side before it is closed anyway (default 2000 ms). */
  readonly drainMs?: number;
  /** Names of the two sides, for reports (default `a`, `b`). */
  readonly names?: readonly [string, string];
  /**
   * The side whose undecodable frames are answered with a JSON-RPC error (no id), as a server answers its
   * client. The other side's are only reported. Default: neither.
   */
  readonly answerMalformedFrom?: 'a';
  /** Where the pipe reports what it refused or dropped (default: nowhere). */
  readonly report?: (line: string) => void;
}

/** How a pipe ended: which side ended first, and the reason it gave (undefined: an orderly end). */
export interface PipeEnd {
  readonly first: 'a' | 'b';
  readonly reason: LocalError | undefined;
}

export interface Pipe {
  /** Settles once both transports are closed. */
  readonly done: Promise<PipeEnd>;
  /**
   * Settles once every request `a` sent through the pipe has had its answer back from `b`, or after `ms` (for a
   * graceful end: what is in flight finishes before the pipe closes).
   */
  answered(ms: number): Promise<void>;
  /**
   * Closes both transports (idempotent); resolves once both are closed. With `drainMs`, requests of `a` in
   * flight get that long for their answers first; those still open then are answered with an error (naming the
   * deadline), and those answers get `flushMs` (default the pipe's `drainMs` option) to go out.
   */
  close(options?: GracefulCloseOptions): Promise<void>;
}

/** Requests from `a` awaiting their answer at once; more are refused. */
const MAX_IN_FLIGHT = 65_536;

function bridgeWords(undelivered: Undelivered, to: string): string {
  if (undelivered.kind === 'unanswered') return `The bridge closed before request ${JSON.stringify(undelivered.id)} was answered: ${undelivered.why}`;
  return `The bridge could not deliver the request: ${detail(undelivered, to)}`;
}

/** Connects `a` and `b` (both are subscribed at once). */
export function pipeTransports(a: Transport, b: Transport, options: PipeOptions = {}): Pipe {
  const joined = join(a, b, {
    names: options.names ?? ['a', 'b'],
    maxInFlight: MAX_IN_FLIGHT,
    ...(options.maxQueued === undefined ? {} : { maxQueued: options.maxQueued }),
    ...(options.drainMs === undefined ? {} : { flushMs: options.drainMs }),
    ...(options.report === undefined ? {} : { report: options.report }),
    answerMalformedFromFront: options.answerMalformedFrom === 'a',
    words: bridgeWords,
  });
  return {
    done: joined.done.then((end) => ({ first: end.first === 'front' ? 'a' : 'b', reason: end.reason })),
    answered: (ms) => joined.answered(ms),
    close: (closeOptions = {}) => joined.close(closeOptions),
  };
}
