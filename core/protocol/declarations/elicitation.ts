/**
 * Elicitation: the server asks the user, through the client, for input (a form) or to visit a URL. In the
 * modern era it is an input request inside an `InputRequiredResult`.
 */
import type { JsonObject } from '../../jsonrpc.ts';
import type { ElicitParams, ElicitResult, ElicitationCompleteParams } from '../elicitation.ts';
import { isElicitResult } from '../guards.ts';
import { type MethodDeclaration, type MethodRule, notification, request } from './declaration.ts';

/** URL mode (2025-11-25+); anything else is form mode. */
function urlMode(params: JsonObject | undefined): boolean {
  return params?.['mode'] === 'url';
}

const elicitationRequires: MethodRule['requires'] = (c, params, revision) => {
  if (!c.elicitation) return 'elicitation';
  // An empty elicitation object means form mode only (2025-11-25); older revisions know only form.
  if (urlMode(params)) {
    if (revision < '2025-11-25') return 'elicitation.url (it exists from revision 2025-11-25)';
    return c.elicitation.url ? undefined : 'elicitation.url';
  }
  const declaresModes = c.elicitation.form !== undefined || c.elicitation.url !== undefined;
  return declaresModes && !c.elicitation.form ? 'elicitation.form' : undefined;
};

export const elicitationMethods: readonly MethodDeclaration[] = [
  request<ElicitParams, ElicitResult>('elicitation/create', {
    legacy: { sender: 'server', since: '2025-06-18', requires: elicitationRequires },
    modern: {
      sender: 'server',
      input: {
        required: (params) => (urlMode(params) ? { elicitation: { url: {} } } : { elicitation: {} }),
        declared: (c, params) => {
          if (c.elicitation === undefined) return false;
          // An empty elicitation object means form mode only.
          return urlMode(params) ? c.elicitation.url !== undefined : c.elicitation.form !== undefined || c.elicitation.url === undefined;
        },
      },
    },
    result: isElicitResult,
  }),
  notification<ElicitationCompleteParams>('notifications/elicitation/complete', { legacy: { sender: 'server', since: '2025-11-25' } }),
];
