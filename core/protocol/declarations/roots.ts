/**
 * Roots: the server asks which directories the client exposes. In the modern era `roots/list` is an input
 * request inside an `InputRequiredResult`, and there is no list-changed notification.
 */
import { isListRootsResult } from '../guards.ts';
import type { ListRootsResult } from '../roots.ts';
import { capability, type MethodDeclaration, notification, request } from './declaration.ts';

export const rootsMethods: readonly MethodDeclaration[] = [
  request<undefined, ListRootsResult>('roots/list', {
    legacy: { sender: 'server', since: '2024-11-05', requires: capability('roots') },
    modern: { sender: 'server', input: { required: () => ({ roots: {} }), declared: (c) => c.roots !== undefined } },
    result: isListRootsResult,
  }),
  notification('notifications/roots/list_changed', {
    legacy: { sender: 'client', since: '2024-11-05', requires: capability('roots.listChanged') },
  }),
];
