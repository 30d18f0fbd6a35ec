/**
 * Lifecycle and utilities: the handshake, `ping`, cancellation and progress. All may flow before the handshake
 * completes. The modern era has no handshake and no `ping`; cancellation and progress remain.
 */
import { type MethodDeclaration, notification, request } from './declaration.ts';

export const lifecycleMethods: readonly MethodDeclaration[] = [
  request('initialize', { legacy: { sender: 'client', since: '2024-11-05', beforeHandshake: true } }),
  notification('notifications/initialized', { legacy: { sender: 'client', since: '2024-11-05', beforeHandshake: true } }),
  request('ping', { legacy: { sender: 'both', since: '2024-11-05', beforeHandshake: true } }),
  notification('notifications/cancelled', {
    legacy: { sender: 'both', since: '2024-11-05', beforeHandshake: true },
    modern: { sender: 'both' },
  }),
  notification('notifications/progress', {
    legacy: { sender: 'both', since: '2024-11-05', beforeHandshake: true },
    // Progress is about a request the client made; the server alone reports it in this era.
    modern: { sender: 'server' },
  }),
];
