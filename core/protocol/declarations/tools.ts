/** Tools: listing, calling, and the list-changed notification. */
import { isCallToolResult } from '../guards.ts';
import type { PaginatedParams } from '../pagination.ts';
import type { CallToolParams, CallToolResult, ListToolsResult } from '../tools.ts';
import { capability, type MethodDeclaration, notification, request } from './declaration.ts';

export const toolsList = request<PaginatedParams | undefined, ListToolsResult>('tools/list', {
  legacy: { sender: 'client', since: '2024-11-05', requires: capability('tools') },
  modern: { sender: 'client', serverCapability: 'tools', cacheable: { list: 'tools' } },
});

export const toolsCall = request<CallToolParams, CallToolResult>('tools/call', {
  legacy: { sender: 'client', since: '2024-11-05', requires: capability('tools') },
  modern: { sender: 'client', serverCapability: 'tools', inputCapable: true, nameHeader: 'name', paramHeaders: 'arguments' },
  target: { field: 'name', item: 'tool', access: 'tools', span: 'name' },
  result: isCallToolResult,
});

export const toolsListChanged = notification('notifications/tools/list_changed', {
  legacy: { sender: 'server', since: '2024-11-05', requires: capability('tools.listChanged') },
  modern: { sender: 'server' },
});

export const toolsMethods: readonly MethodDeclaration[] = [toolsList, toolsCall, toolsListChanged];
