/**
 * Progress reports: reading them off the wire and building them, with the rule that progress strictly
 * increases for a token (the token itself: core/progress-token.ts).
 */
import type { JsonObject } from '../core/jsonrpc.ts';
import type { ProgressUpdate, RequestEvent } from './handler-types.ts';

export type ProgressEvent = Extract<RequestEvent, { type: 'progress' }>;

/** Reads `notifications/progress` params into an event, or undefined when they are malformed. */
export function readProgress(params: JsonObject): ProgressEvent | undefined {
  const progress = params['progress'];
  const total = params['total'];
  const message = params['message'];
  if (typeof progress !== 'number' || !Number.isFinite(progress)) return undefined;
  if (total !== undefined && (typeof total !== 'number' || !Number.isFinite(total))) return undefined;
  if (message !== undefined && typeof message !== 'string') return undefined;
  return {
    type: 'progress',
    progress,
    ...(total === undefined ? {} : { total }),
    ...(message === undefined ? {} : { message }),
  };
}

/** Normalises what a handler reported; undefined when it is not a usable progress value. */
export function normaliseProgress(update: ProgressUpdate | unknown): { progress: number; total?: number; message?: string } | undefined {
  if (typeof update === 'number') return Number.isFinite(update) ? { progress: update } : undefined;
  if (typeof update !== 'object' || update === null) return undefined;
  const record = update as Record<string, unknown>;
  const progress = record['progress'];
  if (typeof progress !== 'number' || !Number.isFinite(progress)) return undefined;
  const total = record['total'];
  const message = record['message'];
  return {
    progress,
    ...(typeof total === 'number' && Number.isFinite(total) ? { total } : {}),
    ...(typeof message === 'string' ? { message } : {}),
  };
}

const progressKeys: ReadonlySet<string> = new Set(['progress', 'total', 'message']);

/**
 * True when `value` can only be a progress report, never a result (used for handler Observables): a bare
 * number, or an object holding a numeric `progress` and nothing but `total` and `message` besides (every result
 * shape has other members: content, messages, contents...).
 */
export function looksLikeProgress(value: unknown): boolean {
  if (typeof value === 'number') return true;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  if (typeof (value as { progress?: unknown }).progress !== 'number') return false;
  for (const key in value) if (!progressKeys.has(key)) return false;
  return true;
}
