/**
 * Subscriptions (modern era): one `subscriptions/listen` stream carries the list-changed and resource-updated
 * notifications a client opted in to; the server acknowledges the filter first.
 */
import type { JsonObject } from '../../jsonrpc.ts';
import type { SubscriptionFilter } from '../modern-shapes.ts';
import { type MethodDeclaration, notification, request } from './declaration.ts';

export const subscriptionsListen = request<{ readonly notifications: SubscriptionFilter; readonly _meta?: JsonObject }>('subscriptions/listen', {
  modern: { sender: 'client', untimed: true },
});

export const subscriptionsMethods: readonly MethodDeclaration[] = [
  subscriptionsListen,
  notification('notifications/subscriptions/acknowledged', { modern: { sender: 'server' } }),
];
