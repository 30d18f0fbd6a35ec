/**
 * The legacy-era method table: who may send each method, in which revisions it exists, which capability
 * the receiver must have declared, and whether it may flow before the handshake completes.
 *
 * One table serves both directions: inbound, a session checks its own declared capabilities (a request for an
 * undeclared capability is refused before any handler runs); outbound, it checks the peer's (we never ask for
 * something the peer did not offer).
 */
import type { JsonObject } from '../jsonrpc.ts';
import type { ClientCapabilities, ServerCapabilities } from './capabilities.ts';
import type { LegacyRevision } from './versions.ts';

export type Role = 'client' | 'server';

export interface MethodRule {
  readonly kind: 'request' | 'notification';
  /** Which role sends it. */
  readonly sender: Role | 'both';
  readonly since: LegacyRevision;
  /** The last revision that still has it (legacy era). */
  readonly until?: LegacyRevision;
  /** May flow before the handshake completes. */
  readonly beforeHandshake?: boolean;
  /**
   * For requests: the receiver's capability that must be declared. For notifications: the sender's own.
   * Returns a human-readable name of the missing capability, or undefined when satisfied.
   */
  readonly requires?: (capabilities: ServerCapabilities & ClientCapabilities, params: JsonObject | undefined, revision: LegacyRevision) => string | undefined;
}

function need(present: unknown, name: string): string | undefined {
  return present ? undefined : name;
}

function elicitationMode(params: JsonObject | undefined): 'form' | 'url' {
  return params?.['mode'] === 'url' ? 'url' : 'form';
}

const table: Record<string, MethodRule> = {
  // lifecycle and utilities
  initialize: { kind: 'request', sender: 'client', since: '2024-11-05', beforeHandshake: true },
  ping: { kind: 'request', sender: 'both', since: '2024-11-05', beforeHandshake: true },
  'notifications/initialized': { kind: 'notification', sender: 'client', since: '2024-11-05', beforeHandshake: true },
  'notifications/cancelled': { kind: 'notification', sender: 'both', since: '2024-11-05', beforeHandshake: true },
  'notifications/progress': { kind: 'notification', sender: 'both', since: '2024-11-05', beforeHandshake: true },
  // server features
  'tools/list': { kind: 'request', sender: 'client', since: '2024-11-05', requires: (c) => need(c.tools, 'tools') },
  'tools/call': { kind: 'request', sender: 'client', since: '2024-11-05', requires: (c) => need(c.tools, 'tools') },
  'resources/list': { kind: 'request', sender: 'client', since: '2024-11-05', requires: (c) => need(c.resources, 'resources') },
  'resources/templates/list': { kind: 'request', sender: 'client', since: '2024-11-05', requires: (c) => need(c.resources, 'resources') },
  'resources/read': { kind: 'request', sender: 'client', since: '2024-11-05', requires: (c) => need(c.resources, 'resources') },
  'resources/subscribe': { kind: 'request', sender: 'client', since: '2024-11-05', requires: (c) => need(c.resources?.subscribe, 'resources.subscribe') },
  'resources/unsubscribe': { kind: 'request', sender: 'client', since: '2024-11-05', requires: (c) => need(c.resources?.subscribe, 'resources.subscribe') },
  'prompts/list': { kind: 'request', sender: 'client', since: '2024-11-05', requires: (c) => need(c.prompts, 'prompts') },
  'prompts/get': { kind: 'request', sender: 'client', since: '2024-11-05', requires: (c) => need(c.prompts, 'prompts') },
  // 2024-11-05 had completion without a capability flag; the flag arrived in 2025-03-26.
  'completion/complete': {
    kind: 'request', sender: 'client', since: '2024-11-05',
    requires: (c, _p, revision) => (revision === '2024-11-05' ? undefined : need(c.completions, 'completions')),
  },
  'logging/setLevel': { kind: 'request', sender: 'client', since: '2024-11-05', requires: (c) => need(c.logging, 'logging') },
  'notifications/message': { kind: 'notification', sender: 'server', since: '2024-11-05', beforeHandshake: true, requires: (c) => need(c.logging, 'logging') },
  'notifications/resources/updated': { kind: 'notification', sender: 'server', since: '2024-11-05', requires: (c) => need(c.resources?.subscribe, 'resources.subscribe') },
  'notifications/resources/list_changed': { kind: 'notification', sender: 'server', since: '2024-11-05', requires: (c) => need(c.resources?.listChanged, 'resources.listChanged') },
  'notifications/tools/list_changed': { kind: 'notification', sender: 'server', since: '2024-11-05', requires: (c) => need(c.tools?.listChanged, 'tools.listChanged') },
  'notifications/prompts/list_changed': { kind: 'notification', sender: 'server', since: '2024-11-05', requires: (c) => need(c.prompts?.listChanged, 'prompts.listChanged') },
  // client features
  'sampling/createMessage': {
    kind: 'request', sender: 'server', since: '2024-11-05',
    requires: (c, params, revision) => {
      if (!c.sampling) return 'sampling';
      // Tool use in sampling needs its own flag (2025-11-25); so does asking for other servers' context.
      if (params?.['tools'] !== undefined || params?.['toolChoice'] !== undefined) {
        // Before 2025-11-25 the flag does not exist, so no client can have negotiated it (whatever it declared).
        return revision < '2025-11-25' ? 'sampling.tools (it exists from revision 2025-11-25)' : need(c.sampling.tools, 'sampling.tools');
      }
      const context = params?.['includeContext'];
      // The `sampling.context` flag exists from 2025-11-25; older revisions allowed these values without it.
      if ((context === 'thisServer' || context === 'allServers') && revision >= '2025-11-25') return need(c.sampling.context, 'sampling.context');
      return undefined;
    },
  },
  'roots/list': { kind: 'request', sender: 'server', since: '2024-11-05', requires: (c) => need(c.roots, 'roots') },
  'notifications/roots/list_changed': { kind: 'notification', sender: 'client', since: '2024-11-05', requires: (c) => need(c.roots?.listChanged, 'roots.listChanged') },
  'elicitation/create': {
    kind: 'request', sender: 'server', since: '2025-06-18',
    requires: (c, params, revision) => {
      if (!c.elicitation) return 'elicitation';
      const mode = elicitationMode(params);
      // An empty elicitation object means form mode only (2025-11-25); older revisions know only form.
      if (mode === 'url') return revision < '2025-11-25' ? 'elicitation.url (it exists from revision 2025-11-25)' : need(c.elicitation.url, 'elicitation.url');
      const declaresModes = c.elicitation.form !== undefined || c.elicitation.url !== undefined;
      return declaresModes ? need(c.elicitation.form, 'elicitation.form') : undefined;
    },
  },
  'notifications/elicitation/complete': { kind: 'notification', sender: 'server', since: '2025-11-25' },
  // tasks (2025-11-25, either side may be the receiver)
  'tasks/get': { kind: 'request', sender: 'both', since: '2025-11-25', requires: (c) => need(c.tasks, 'tasks') },
  'tasks/result': { kind: 'request', sender: 'both', since: '2025-11-25', requires: (c) => need(c.tasks, 'tasks') },
  'tasks/list': { kind: 'request', sender: 'both', since: '2025-11-25', requires: (c) => need(c.tasks?.list, 'tasks.list') },
  'tasks/cancel': { kind: 'request', sender: 'both', since: '2025-11-25', requires: (c) => need(c.tasks?.cancel, 'tasks.cancel') },
  // Sent by the receiver of task-augmented requests, which must have declared `tasks`.
  'notifications/tasks/status': { kind: 'notification', sender: 'both', since: '2025-11-25', requires: (c) => need(c.tasks, 'tasks') },
};

const rules: ReadonlyMap<string, MethodRule> = new Map(Object.entries(table));

export function methodRule(method: string): MethodRule | undefined {
  return rules.get(method);
}

/** Whether `method` exists in `revision` for messages sent by `sender`. */
export function methodAvailable(rule: MethodRule, revision: LegacyRevision, sender: Role): boolean {
  if (rule.sender !== 'both' && rule.sender !== sender) return false;
  if (revision < rule.since) return false;
  return rule.until === undefined || revision <= rule.until;
}
