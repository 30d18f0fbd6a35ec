/**
 * Sampling: the server asks the client's model for a message. In the modern era it is an input request inside
 * an `InputRequiredResult`, never a request of its own.
 */
import type { JsonObject } from '../../jsonrpc.ts';
import { isCreateMessageResult } from '../guards.ts';
import type { CreateMessageParams, CreateMessageResult } from '../sampling.ts';
import { type MethodDeclaration, type MethodRule, request } from './declaration.ts';

/** Whether a sampling request lets the model use tools, which needs the `sampling.tools` flag. */
function usesTools(params: JsonObject | undefined): boolean {
  return params?.['tools'] !== undefined || params?.['toolChoice'] !== undefined;
}

/** Tool use in sampling needs its own flag (2025-11-25); so does asking for other servers' context. */
const samplingRequires: MethodRule['requires'] = (c, params, revision) => {
  if (!c.sampling) return 'sampling';
  if (usesTools(params)) {
    // Before 2025-11-25 the flag does not exist, so no client can have negotiated it (whatever it declared).
    return revision < '2025-11-25' ? 'sampling.tools (it exists from revision 2025-11-25)' : c.sampling.tools ? undefined : 'sampling.tools';
  }
  const context = params?.['includeContext'];
  // The `sampling.context` flag exists from 2025-11-25; older revisions allowed these values without it.
  if ((context === 'thisServer' || context === 'allServers') && revision >= '2025-11-25') return c.sampling.context ? undefined : 'sampling.context';
  return undefined;
};

export const samplingMethods: readonly MethodDeclaration[] = [
  request<CreateMessageParams, CreateMessageResult>('sampling/createMessage', {
    legacy: { sender: 'server', since: '2024-11-05', requires: samplingRequires },
    modern: {
      sender: 'server',
      input: {
        required: (params) => (usesTools(params) ? { sampling: { tools: {} } } : { sampling: {} }),
        declared: (c, params) => c.sampling !== undefined && (!usesTools(params) || c.sampling.tools !== undefined),
      },
    },
    result: isCreateMessageResult,
  }),
];
