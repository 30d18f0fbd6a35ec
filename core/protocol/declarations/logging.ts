/**
 * Logging. The modern era has no `logging/setLevel`: each request names its own level in `_meta`, and the
 * server's log messages answer that.
 */
import type { LoggingMessageParams, SetLevelParams } from '../logging.ts';
import { capability, type MethodDeclaration, notification, request } from './declaration.ts';

export const loggingSetLevel = request<SetLevelParams>('logging/setLevel', {
  legacy: { sender: 'client', since: '2024-11-05', requires: capability('logging') },
});

export const loggingMethods: readonly MethodDeclaration[] = [
  loggingSetLevel,
  notification<LoggingMessageParams>('notifications/message', {
    legacy: { sender: 'server', since: '2024-11-05', beforeHandshake: true, requires: capability('logging') },
    modern: { sender: 'server' },
  }),
];
