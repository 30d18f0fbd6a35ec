/**
 * Logging: `logging/setLevel` and `notifications/message`. Levels are the RFC 5424 syslog severities.
 */
import type { JsonObject } from '../jsonrpc.ts';

/** Least to most severe. */
export const LOGGING_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;

export type LoggingLevel = (typeof LOGGING_LEVELS)[number];

export function isLoggingLevel(value: unknown): value is LoggingLevel {
  return typeof value === 'string' && (LOGGING_LEVELS as readonly string[]).includes(value);
}

/** True when `level` is as severe as `threshold` or more (what a server at `threshold` still sends). */
export function levelAtLeast(level: LoggingLevel, threshold: LoggingLevel): boolean {
  return LOGGING_LEVELS.indexOf(level) >= LOGGING_LEVELS.indexOf(threshold);
}

/** Params of `logging/setLevel`. */
export type SetLevelParams = {
  readonly level: LoggingLevel;
  readonly _meta?: JsonObject;
};

/** Params of `notifications/message`. */
export type LoggingMessageParams = {
  readonly level: LoggingLevel;
  readonly logger?: string;
  /** Any JSON value; must not contain secrets or personal data. */
  readonly data: unknown;
  readonly _meta?: JsonObject;
};
