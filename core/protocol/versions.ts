/**
 * Protocol revisions and version negotiation. Pure functions only.
 */

export const LEGACY_REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;
export const MODERN_REVISIONS = ['2026-07-28'] as const;

export type LegacyRevision = (typeof LEGACY_REVISIONS)[number];
export type ModernRevision = (typeof MODERN_REVISIONS)[number];
export type Revision = LegacyRevision | ModernRevision;
export type Era = 'legacy' | 'modern';

export const LATEST_LEGACY_REVISION: LegacyRevision = '2025-11-25';

/** Revisions sorted oldest first; ISO dates sort lexically. */
export const ALL_REVISIONS: readonly Revision[] = [...LEGACY_REVISIONS, ...MODERN_REVISIONS];

export function isRevision(value: unknown): value is Revision {
  return typeof value === 'string' && (ALL_REVISIONS as readonly string[]).includes(value);
}

export function isLegacyRevision(value: unknown): value is LegacyRevision {
  return typeof value === 'string' && (LEGACY_REVISIONS as readonly string[]).includes(value);
}

export function eraOf(revision: Revision): Era {
  return isLegacyRevision(revision) ? 'legacy' : 'modern';
}

/** True when `revision` is `since` or newer. */
export function atLeast(revision: Revision, since: Revision): boolean {
  return revision >= since;
}

/**
 * Server side of legacy negotiation: echo the requested version when supported, otherwise answer the newest
 * one we support (the client then decides whether it can use it).
 * `supported` must be non-empty; it is the server's configured set.
 */
export function negotiateServerVersion(requested: unknown, supported: readonly LegacyRevision[]): LegacyRevision {
  if (isLegacyRevision(requested) && supported.includes(requested)) return requested;
  const newest = newestOf(supported);
  if (newest === undefined) throw new RangeError('a server must support at least one revision');
  return newest;
}

/**
 * Client side: accept the server's answer only when we support it.
 * Returns the revision to use, or undefined when the client must disconnect.
 */
export function acceptServerVersion(answered: unknown, supported: readonly LegacyRevision[]): LegacyRevision | undefined {
  return isLegacyRevision(answered) && supported.includes(answered) ? answered : undefined;
}

export function newestOf<R extends Revision>(revisions: readonly R[]): R | undefined {
  let newest: R | undefined;
  for (const revision of revisions) if (newest === undefined || revision > newest) newest = revision;
  return newest;
}

/** JSON-RPC batches are part of 2025-03-26 only. */
export function allowsBatches(revision: Revision | undefined): boolean {
  return revision === '2025-03-26';
}
