/** The error a caller of the mesh gets when the member that serves what it asked for fails or leaves. */
import { ErrorCode } from '../core/error-codes.ts';
import { WireError } from '../core/errors.ts';

/**
 * rxmcp (implementation-defined server error range): the mesh member that serves the item stopped answering, its
 * connection failed, or it left the mesh while the request was in flight. `data` carries `{ member }` (its binding).
 */
export const MEMBER_UNAVAILABLE = -32050;

export function memberUnavailable(binding: string, reason: string): WireError {
  return new WireError(MEMBER_UNAVAILABLE, `Mesh member "${binding}" is unavailable: ${reason}`, { data: { member: binding } });
}

/**
 * Whether the member answered that the session a request went on no longer exists there (it closed it, idle or
 * restarted without its record): the request did not run, so it may go again on a new session.
 */
export function isSessionGone(error: unknown): boolean {
  return error instanceof WireError && error.origin === 'peer' && error.code === ErrorCode.InvalidRequest && error.message.startsWith('Session not found');
}
