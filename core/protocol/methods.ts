/**
 * The legacy-era method table: who may send each method, in which revisions it exists, which capability
 * the receiver must have declared, and whether it may flow before the handshake completes. Computed from the
 * method declarations (declarations/), where each method's rule is written.
 *
 * One table serves both directions: inbound, a session checks its own declared capabilities (a request for an
 * undeclared capability is refused before any handler runs); outbound, it checks the peer's (we never ask for
 * something the peer did not offer).
 */
import type { MethodRule, Role } from './declarations/declaration.ts';
import { legacyMethodTable } from './declarations/index.ts';
import type { LegacyRevision } from './versions.ts';

export type { MethodRule, Role } from './declarations/declaration.ts';

const rules: ReadonlyMap<string, MethodRule> = legacyMethodTable();

export function methodRule(method: string): MethodRule | undefined {
  return rules.get(method);
}

/** Whether `method` exists in `revision` for messages sent by `sender`. */
export function methodAvailable(rule: MethodRule, revision: LegacyRevision, sender: Role): boolean {
  if (rule.sender !== 'both' && rule.sender !== sender) return false;
  if (revision < rule.since) return false;
  return rule.until === undefined || revision <= rule.until;
}
