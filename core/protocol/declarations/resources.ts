/** Resources: listing, templates, reading, per-URI subscriptions (legacy) and their notifications. */
import type { PaginatedParams } from '../pagination.ts';
import type {
  ListResourceTemplatesResult,
  ListResourcesResult,
  ReadResourceParams,
  ReadResourceResult,
  ResourceUpdatedParams,
  SubscribeParams,
  UnsubscribeParams,
} from '../resources.ts';
import { capability, type MethodDeclaration, notification, request } from './declaration.ts';

const legacyRead = { sender: 'client', since: '2024-11-05', requires: capability('resources') } as const;
const legacySubscribe = { sender: 'client', since: '2024-11-05', requires: capability('resources.subscribe') } as const;

export const resourcesList = request<PaginatedParams | undefined, ListResourcesResult>('resources/list', {
  legacy: legacyRead,
  modern: { sender: 'client', serverCapability: 'resources', cacheable: { list: 'resources' } },
});

export const resourcesTemplatesList = request<PaginatedParams | undefined, ListResourceTemplatesResult>('resources/templates/list', {
  legacy: legacyRead,
  modern: { sender: 'client', serverCapability: 'resources', cacheable: { list: 'resources' } },
});

/** A read addresses its resource; URIs are of high cardinality, so they name spans only on request. */
const readTarget = { field: 'uri', item: 'resource', access: 'resources', span: 'opt-in' } as const;

export const resourcesRead = request<ReadResourceParams, ReadResourceResult>('resources/read', {
  legacy: legacyRead,
  modern: { sender: 'client', serverCapability: 'resources', inputCapable: true, cacheable: { list: 'read' }, nameHeader: 'uri' },
  target: readTarget,
});

// The modern era subscribes through `subscriptions/listen` (subscriptions.ts) instead.
export const resourcesSubscribe = request<SubscribeParams>('resources/subscribe', { legacy: legacySubscribe, target: readTarget });

/** Ending a subscription is never refused for a scope (nothing is read). */
export const resourcesUnsubscribe = request<UnsubscribeParams>('resources/unsubscribe', {
  legacy: legacySubscribe,
  target: { field: 'uri', item: 'resource', span: 'opt-in' },
});

export const resourcesMethods: readonly MethodDeclaration[] = [
  resourcesList,
  resourcesTemplatesList,
  resourcesRead,
  resourcesSubscribe,
  resourcesUnsubscribe,
  notification<ResourceUpdatedParams>('notifications/resources/updated', {
    legacy: { sender: 'server', since: '2024-11-05', requires: capability('resources.subscribe') },
    modern: { sender: 'server' },
  }),
  notification('notifications/resources/list_changed', {
    legacy: { sender: 'server', since: '2024-11-05', requires: capability('resources.listChanged') },
    modern: { sender: 'server' },
  }),
];
