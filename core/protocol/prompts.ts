/**
 * Prompts: `prompts/list`, `prompts/get`. Union of 2024-11-05 through 2025-11-25: `title` and `_meta` arrived
 * in 2025-06-18, `icons` in 2025-11-25. A prompt message's content was an inline union of text, image, audio
 * and embedded resource up to 2025-03-26; from 2025-06-18 it is any `ContentBlock` (adding `resource_link`).
 */
import type { JsonObject } from '../jsonrpc.ts';
import type { ContentBlock, Icon, MessageRole } from './content.ts';
import type { PaginatedResult } from './pagination.ts';

export type PromptArgument = {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly required?: boolean;
};

export type Prompt = {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly arguments?: readonly PromptArgument[];
  readonly icons?: readonly Icon[];
  readonly _meta?: JsonObject;
};

export type PromptMessage = {
  readonly role: MessageRole;
  readonly content: ContentBlock;
};

export type ListPromptsResult = PaginatedResult & {
  readonly prompts: readonly Prompt[];
};

/** Params of `prompts/get`. Argument values are always strings. */
export type GetPromptParams = {
  readonly name: string;
  readonly arguments?: { readonly [name: string]: string };
  readonly _meta?: JsonObject;
};

export type GetPromptResult = {
  readonly description?: string;
  readonly messages: readonly PromptMessage[];
  readonly _meta?: JsonObject;
};
