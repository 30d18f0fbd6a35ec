/**
 * Logging to legacy sessions: the level each session chose (`logging/setLevel`), read by handler contexts
 * (`ctx.log`) and by `server.log`, which sends to every operating session whose level lets the message through.
 * A level is kept in a WeakMap only once a session sets one, so a quiet session costs nothing here.
 */
import type { SessionView } from '../actors/handler-types.ts';
import type { LogLevelSource } from '../actors/features/feature-context.ts';
import type { LogLevelBook } from '../actors/features/logging-feature.ts';
import type { JsonObject } from '../core/jsonrpc.ts';
import { type LoggingLevel, isLoggingLevel, levelAtLeast } from '../core/protocol/logging.ts';
import type { McpSession } from '../session/session-core.ts';

export class SessionLogLevels implements LogLevelSource, LogLevelBook {
  readonly loggingEnabled = true;
  private readonly levels = new WeakMap<SessionView, LoggingLevel>();

  /** @param changed called after a session's level changed (its portable state, see `PortableSessionState`) */
  constructor(private readonly changed: (session: SessionView) => void = () => undefined) {}

  logLevel(session: SessionView): LoggingLevel | undefined {
    return this.levels.get(session);
  }

  setLogLevel(session: SessionView, level: LoggingLevel): void {
    const before = this.levels.get(session);
    this.levels.set(session, level);
    if (before !== level) this.changed(session);
  }

  /** A restored session's level (a takeover), when it is one; tells no one. */
  restore(session: SessionView, level: unknown): void {
    if (isLoggingLevel(level)) this.levels.set(session, level);
  }

  /** `server.log`: one `notifications/message` to each operating session that wants this level. */
  log(sessions: Iterable<McpSession>, level: LoggingLevel, data: unknown, logger: string | undefined): void {
    for (const session of sessions) {
      if (session.state !== 'operating') continue;
      const threshold = this.levels.get(session);
      if (threshold !== undefined && !levelAtLeast(level, threshold)) continue;
      session.notify('notifications/message', { level, data: data as JsonObject, ...(logger === undefined ? {} : { logger }) });
    }
  }
}
