/**
 * `requestLog({ logger })`: an interceptor that writes one structured entry per request when it ends (answered,
 * failed or cancelled), through a logger port small enough that a pino logger and `console` both fit it:
 * `logger.info(entry, message)`. With pino each entry becomes one JSON line (pino's own fields, then the entry's);
 * `console.info(entry, message)` prints the object and the message, for development. `jsonLinesLogger` writes
 * JSON lines without any dependency (what `rxmcp serve --verbose` writes to stderr).
 *
 * It has no dependency and runs wherever rxmcp runs, so it lives in the root entry point; a server or client
 * that does not `use` it pays nothing for it.
 */
import { Observable } from 'rxjs';
import { ErrorCode } from '../core/error-codes.ts';
import { LocalError, WireError } from '../core/errors.ts';
import type { RequestId } from '../core/jsonrpc.ts';
import type { RequestEvent } from './handler-types.ts';
import type { InterceptedDirection, InterceptedRequest, Interceptor } from './interceptors.ts';

/** The logger port: pino's `(obj, msg)` call shape, which `console` also accepts. */
export interface LoggerPort {
  info(entry: object, message?: string): void;
  warn(entry: object, message?: string): void;
  error(entry: object, message?: string): void;
}

/** One request, as the log writes it. Members that do not apply are left out. */
export interface RequestLogEntry {
  readonly direction: InterceptedDirection;
  readonly method: string;
  /** The tool or prompt name, or the resource URI. */
  readonly target?: string;
  /** The JSON-RPC id (incoming requests). */
  readonly id?: RequestId;
  /** The legacy-era session's id (random, stable for its life); modern requests have no session. */
  readonly sessionId?: string;
  readonly era: 'legacy' | 'modern';
  readonly revision?: string;
  /** Who the transport authenticated the caller as. */
  readonly principal?: string;
  /** From the request reaching the log to its end, in milliseconds. */
  readonly durationMs: number;
  /** `ok`: a result (a tool's own `isError` result too: see `toolError`); `error`: an error; `cancelled`: abandoned. */
  readonly outcome: 'ok' | 'error' | 'cancelled';
  /** The tool answered with `isError: true`. */
  readonly toolError?: true;
  /** A modern-era round that ended asking for input (`input_required`). */
  readonly inputRequired?: true;
  /** The JSON-RPC error code (the code the peer sees for an incoming request), or the local error's code. */
  readonly code?: number | string;
  readonly error?: string;
}

export interface RequestLogOptions {
  readonly logger: LoggerPort;
  /** A monotonic time in milliseconds (default `performance.now()`). */
  readonly now?: () => number;
}

const defaultNow = (): number => performance.now();

/**
 * The interceptor. Answered and cancelled requests are logged at `info`, failed ones at `warn`, and internal
 * errors (-32603, a handler that threw something not meant for the peer) at `error`.
 */
export function requestLog(options: RequestLogOptions): Interceptor {
  const { logger } = options;
  const now = options.now ?? defaultNow;
  return (request, next) =>
    new Observable<RequestEvent>((subscriber) => {
      const started = now();
      let ended = false;
      const end = (outcome: Outcome): void => {
        ended = true;
        write(logger, entryOf(request, Math.round((now() - started) * 1000) / 1000, outcome));
      };
      const subscription = next(request).subscribe({
        next(event) {
          if (event.type === 'result' && !ended) end({ result: event.result });
          subscriber.next(event);
        },
        error(error: unknown) {
          if (!ended) end({ error });
          subscriber.error(error);
        },
        complete() {
          if (!ended) end({ error: new Error('The request ended without a result') });
          subscriber.complete();
        },
      });
      return () => {
        subscription.unsubscribe();
        if (!ended) end('cancelled');
      };
    });
}

type Outcome = { readonly result: object } | { readonly error: unknown } | 'cancelled';

function entryOf(request: InterceptedRequest, durationMs: number, outcome: Outcome): RequestLogEntry {
  const { session, target, id } = request;
  const sessionId = session.id;
  // In reading order (pino and JSON.stringify keep it), leaving out what does not apply.
  return {
    direction: request.direction,
    method: request.method,
    ...(target === undefined ? {} : { target }),
    ...(id === undefined ? {} : { id }),
    ...(sessionId === undefined ? {} : { sessionId }),
    era: session.era,
    ...(session.revision === undefined ? {} : { revision: session.revision }),
    ...(session.principal === undefined ? {} : { principal: session.principal }),
    durationMs,
    ...outcomeOf(outcome, request.direction),
  };
}

type OutcomeMembers = Pick<RequestLogEntry, 'outcome' | 'toolError' | 'inputRequired' | 'code' | 'error'>;

function outcomeOf(outcome: Outcome, direction: InterceptedDirection): OutcomeMembers {
  if (outcome === 'cancelled') return { outcome: 'cancelled' };
  if ('result' in outcome) {
    const result = outcome.result as { isError?: unknown; resultType?: unknown };
    return {
      outcome: 'ok',
      ...(result.isError === true ? { toolError: true } : {}),
      ...(result.resultType === 'input_required' ? { inputRequired: true } : {}),
    };
  }
  const { code, message } = describeError(outcome.error, direction);
  return { outcome: 'error', ...(code === undefined ? {} : { code }), error: message };
}

function describeError(error: unknown, direction: InterceptedDirection): { code: number | string | undefined; message: string } {
  if (error instanceof WireError) return { code: error.code, message: error.message };
  if (error instanceof LocalError) return { code: error.code, message: error.message };
  const message = error instanceof Error ? error.message : String(error);
  // What the peer is answered with when a handler throws anything else (core/errors.ts toWireError).
  return { code: direction === 'incoming' ? ErrorCode.InternalError : undefined, message };
}

function write(logger: LoggerPort, entry: RequestLogEntry): void {
  const message = entry.target === undefined ? entry.method : `${entry.method} ${entry.target}`;
  if (entry.outcome !== 'error') logger.info(entry, message);
  else if (entry.code === ErrorCode.InternalError) logger.error(entry, message);
  else logger.warn(entry, message);
}

/**
 * A logger writing one JSON object per line (`level`, `time` in ms since the epoch, the entry's members, `msg`),
 * through `write` (say, to stderr). No dependency: for commands and scripts that want JSON lines without pino.
 */
export function jsonLinesLogger(write: (line: string) => void, now: () => number = Date.now): LoggerPort {
  const line = (level: 'info' | 'warn' | 'error') => (entry: object, message?: string): void =>
    write(JSON.stringify({ level, time: now(), ...entry, ...(message === undefined ? {} : { msg: message }) }));
  return { info: line('info'), warn: line('warn'), error: line('error') };
}
