/** Prompts: listing, getting, and the list-changed notification. */
import type { PaginatedParams } from '../pagination.ts';
import type { GetPromptParams, GetPromptResult, ListPromptsResult } from '../prompts.ts';
import { capability, type MethodDeclaration, notification, request } from './declaration.ts';

export const promptsList = request<PaginatedParams | undefined, ListPromptsResult>('prompts/list', {
  legacy: { sender: 'client', since: '2024-11-05', requires: capability('prompts') },
  modern: { sender: 'client', serverCapability: 'prompts', cacheable: { list: 'prompts' } },
});

export const promptsGet = request<GetPromptParams, GetPromptResult>('prompts/get', {
  legacy: { sender: 'client', since: '2024-11-05', requires: capability('prompts') },
  modern: { sender: 'client', serverCapability: 'prompts', inputCapable: true, nameHeader: 'name' },
  target: { field: 'name', item: 'prompt', access: 'prompts', span: 'name' },
});

export const promptsMethods: readonly MethodDeclaration[] = [
  promptsList,
  promptsGet,
  notification('notifications/prompts/list_changed', {
    legacy: { sender: 'server', since: '2024-11-05', requires: capability('prompts.listChanged') },
    modern: { sender: 'server' },
  }),
];
