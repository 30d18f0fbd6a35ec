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

export const resourcesMethods: readonly MethodDeclaration[] = [
  request<PaginatedParams | undefined, ListResourcesResult>('resources/list', {
    legacy: legacyRead,
    modern: { sender: 'client', serverCapability: 'resources', cacheable: { list: 'resources' } },
  }),
  request<PaginatedParams | undefined, ListResourceTemplatesResult>('resources/templates/list', {
    legacy: legacyRead,
    modern: { sender: 'client', serverCapability: 'resources', cacheable: { list: 'resources' } },
  }),
  request<ReadResourceParams, ReadResourceResult>('resources/read', {
    legacy: legacyRead,
    modern: { sender: 'client', serverCapability: 'resources', inputCapable: true, cacheable: { list: 'read' }, nameHeader: 'uri' },
  }),
  // The modern era subscribes through `subscriptions/listen` (subscriptions.ts) instead.
  request<SubscribeParams>('resources/subscribe', { legacy: legacySubscribe }),
  request<UnsubscribeParams>('resources/unsubscribe', { legacy: legacySubscribe }),
  notification<ResourceUpdatedParams>('notifications/resources/updated', {
    legacy: { sender: 'server', since: '2024-11-05', requires: capability('resources.subscribe') },
    modern: { sender: 'server' },
  }),
  notification('notifications/resources/list_changed', {
    legacy: { sender: 'server', since: '2024-11-05', requires: capability('resources.listChanged') },
    modern: { sender: 'server' },
  }),
];
