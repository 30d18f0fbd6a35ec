/**
 * Whether a session may send a notification now: the lifecycle must allow it (or the method may precede the
 * handshake), and once a revision is negotiated the method must exist in it for this role, backed by a
 * capability this side declared. A refusal is a local error: the caller's mistake, never sent to the peer.
 */
import { LocalError } from '../core/errors.ts';
import type { JsonObject } from '../core/jsonrpc.ts';
import type { AnyCapabilities } from '../core/protocol/capabilities.ts';
import { methodAvailable, methodRule, type Role } from '../core/protocol/methods.ts';
import type { LegacyRevision } from '../core/protocol/versions.ts';
import type { LifecycleTag } from '../machines/session-lifecycle.ts';

export interface NotifyingSession {
  readonly role: Role;
  readonly revision: LegacyRevision | undefined;
  readonly ownCapabilities: AnyCapabilities;
  admits(tag: LifecycleTag): boolean;
}

export function notificationRefusal(session: NotifyingSession, method: string, params: JsonObject | undefined): LocalError | undefined {
  if (!session.admits('writable')) return new LocalError('ConnectionClosed', 'The session is closed');
  const rule = methodRule(method);
  if (!session.admits('admit-outbound') && !session.admits('defer-outbound') && rule?.beforeHandshake !== true) {
    return new LocalError('LifecycleViolation', `${method} cannot be sent before the handshake completes`);
  }
  const { revision, role } = session;
  if (rule === undefined || revision === undefined) return undefined;
  if (!methodAvailable(rule, revision, role)) {
    return new LocalError('MethodNotInRevision', `${method} cannot be sent by a ${role} in revision ${revision}`);
  }
  const missing = rule.requires?.(session.ownCapabilities, params, revision);
  if (missing !== undefined) {
    return new LocalError('CapabilityNotNegotiated', `${method} needs this ${role}'s capability "${missing}", which it did not declare`);
  }
  return undefined;
}
