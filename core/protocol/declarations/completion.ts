/** Argument completion. */
import type { CompleteParams, CompleteResult } from '../completion.ts';
import { capability, type MethodDeclaration, request } from './declaration.ts';

const completions = capability('completions');

export const completionMethods: readonly MethodDeclaration[] = [
  request<CompleteParams, CompleteResult>('completion/complete', {
    legacy: {
      sender: 'client',
      since: '2024-11-05',
      // 2024-11-05 had completion without a capability flag; the flag arrived in 2025-03-26.
      requires: (c, params, revision) => (revision === '2024-11-05' ? undefined : completions(c, params, revision)),
    },
    modern: { sender: 'client', serverCapability: 'completions' },
  }),
];
