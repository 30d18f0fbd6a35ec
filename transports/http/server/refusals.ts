/**
 * Counting the endpoint's refusals where its acceptor counts them: a session host (`noteRefusal`) counts every
 * request refused before a session took it, whether the host refused it (full, closing) or the endpoint did (a Host
 * or Origin not allowed, a body too large or not JSON, a header or session id wrong, a method not served). Each
 * refusal is told as a LocalError whose code says its kind, and the status answered.
 */
import { ErrorCode } from '../../../core/error-codes.ts';
import { LocalError, type LocalErrorCode } from '../../../core/errors.ts';
import type { SessionAcceptorPort } from '../../../core/transport.ts';
import type { RefusalSink } from './http-exchange.ts';

/** The sink of `acceptor`'s refusals, or undefined when it counts none (then nothing is made per refusal). */
export function refusalSinkOf(acceptor: SessionAcceptorPort): RefusalSink | undefined {
  if (acceptor.noteRefusal === undefined) return undefined;
  return (status, message, code) => acceptor.noteRefusal?.(new LocalError(kindOf(status, code), message), status);
}

function kindOf(status: number, code: number): LocalErrorCode {
  if (status === 401 || status === 403) return 'Unauthorized';
  if (status === 413) return 'FrameTooLarge';
  if (status === 503) return 'SessionLimit';
  if (code === ErrorCode.ParseError) return 'DecodeFailed';
  return 'ProtocolViolation';
}
