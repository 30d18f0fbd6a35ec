/**
 * Argument completion: `completion/complete`. The resource reference was called `ResourceReference` in
 * 2024-11-05 / 2025-03-26 and `ResourceTemplateReference` from 2025-06-18 (same shape); `context` and
 * `PromptReference.title` arrived in 2025-06-18.
 */
import type { JsonObject } from '../jsonrpc.ts';

/** The most values one completion result may carry. */
export const MAX_COMPLETION_VALUES = 100;

export type PromptReference = {
  readonly type: 'ref/prompt';
  readonly name: string;
  readonly title?: string;
};

export type ResourceTemplateReference = {
  readonly type: 'ref/resource';
  /** A URI or URI template. */
  readonly uri: string;
};

/** The 2024-11-05 / 2025-03-26 name of `ResourceTemplateReference`. */
export type ResourceReference = ResourceTemplateReference;

export type CompletionReference = PromptReference | ResourceTemplateReference;

/** Params of `completion/complete`. */
export type CompleteParams = {
  readonly ref: CompletionReference;
  readonly argument: { readonly name: string; readonly value: string };
  /** Already-resolved arguments (2025-06-18+). */
  readonly context?: { readonly arguments?: { readonly [name: string]: string } };
  readonly _meta?: JsonObject;
};

export type CompleteResult = {
  readonly completion: {
    /** At most `MAX_COMPLETION_VALUES` entries. */
    readonly values: readonly string[];
    /** Total number of matches, which may exceed `values.length`. Integer. */
    readonly total?: number;
    readonly hasMore?: boolean;
  };
  readonly _meta?: JsonObject;
};
