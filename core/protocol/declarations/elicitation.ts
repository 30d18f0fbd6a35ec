/**
 * Elicitation: the server asks the user, through the client, for input (a form) or to visit a URL. In the
 * modern era it is an input request inside an `InputRequiredResult`.
 */
import type { ElicitParams, ElicitResult, ElicitationCompleteParams } from '../elicitation.ts';
import { isElicitResult } from '../guards.ts';
import { type MethodDeclaration, type MethodRule, notification, request } from './declaration.ts';

const elicitationRequires: MethodRule['requires'] = (c, params, revision) => {
  if (!c.elicitation) return 'elicitation';
  const mode = params?.['mode'] === 'url' ? 'url' : 'form';
  // An empty elicitation object means form mode only (2025-11-25); older revisions know only form.
  if (mode === 'url') {
    if (revision < '2025-11-25') return 'elicitation.url (it exists from revision 2025-11-25)';
    return c.elicitation.url ? undefined : 'elicitation.url';
  }
  const declaresModes = c.elicitation.form !== undefined || c.elicitation.url !== undefined;
  return declaresModes && !c.elicitation.form ? 'elicitation.form' : undefined;
};

export const elicitationMethods: readonly MethodDeclaration[] = [
  request<ElicitParams, ElicitResult>('elicitation/create', {
    legacy: { sender: 'server', since: '2025-06-18', requires: elicitationRequires },
    modern: { sender: 'server', inputRequest: true },
    result: isElicitResult,
  }),
  notification<ElicitationCompleteParams>('notifications/elicitation/complete', { legacy: { sender: 'server', since: '2025-11-25' } }),
];
