/**
 * `logging/setLevel`: each session chooses the lowest level it wants; `notifications/message` below it is
 * not sent to that session.
 */
import { ErrorCode } from '../../core/error-codes.ts';
import { WireError } from '../../core/errors.ts';
import { LOGGING_LEVELS, type LoggingLevel, isLoggingLevel } from '../../core/protocol/logging.ts';
import type { RequestHandler, SessionView } from '../handler-types.ts';

export interface LogLevelBook {
  setLogLevel(session: SessionView, level: LoggingLevel): void;
}

export function loggingHandlers(book: LogLevelBook): Record<string, RequestHandler> {
  return {
    'logging/setLevel': (params, request) => {
      const level = params?.['level'];
      if (!isLoggingLevel(level)) {
        throw new WireError(ErrorCode.InvalidParams, `Invalid params: level must be one of ${LOGGING_LEVELS.join(', ')}`);
      }
      book.setLogLevel(request.session, level);
      return {};
    },
  };
}
