/** Argument completion. */
import type { CompleteParams, CompleteResult } from '../completion.ts';
import { capability, type MethodDeclaration, request } from './declaration.ts';

const completions = capability('completions');

/**
 * Its `ref` names a prompt or a resource template, but as an object (`{ type: 'ref/prompt', name }`), not as the
 * string a target is: a completion has no target (interceptors, limits and spans see none).
 */
export const completionComplete = request<CompleteParams, CompleteResult>('completion/complete', {
  legacy: {
    sender: 'client',
    since: '2024-11-05',
    // 2024-11-05 had completion without a capability flag; the flag arrived in 2025-03-26.
    requires: (c, params, revision) => (revision === '2024-11-05' ? undefined : completions(c, params, revision)),
  },
  modern: { sender: 'client', serverCapability: 'completions' },
});

export const completionMethods: readonly MethodDeclaration[] = [completionComplete];
