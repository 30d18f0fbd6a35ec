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

/** The runtime class of {@link progress} values: what makes them progress is their class, never their keys. */
class ProgressReport {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;

  constructor(update: ProgressFields) {
    this.progress = update.progress;
    // Own members only when given, so the report spreads into `notifications/progress` params as it is.
    if (update.total !== undefined) this.total = update.total;
    if (update.message !== undefined) this.message = update.message;
  }
}

/** The members of a progress report. */
export interface ProgressFields {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

/**
 * A progress report made with {@link progress}: in a handler's stream it is progress, never the result. What
 * marks it is how it was made (a plain object with the same members is not one), so its type adds no member.
 */
export type Progress = ProgressFields;

/**
 * Marks a value a handler's stream (an Observable or an async iterable) emits as a progress report: it is sent at
 * once and is never taken for the result. A bare number is progress too; any other value is decided by its
 * position (the last value is the result, the ones before it progress), whatever its keys.
 *
 * @example
 * ```ts
 * server.tool({ name: 'count' }, async function* () {
 *   for (let step = 1; step <= 3; step++) yield progress({ progress: step, total: 3 });
 *   yield { content: [{ type: 'text', text: 'done' }] };
 * });
 * ```
 */
export function progress(update: ProgressFields): Progress {
  if (typeof update?.progress !== 'number' || !Number.isFinite(update.progress)) throw new TypeError('progress() needs a finite number as "progress"');
  return new ProgressReport(update);
}

/** True when a value in a handler's stream can only be progress: a number, or a {@link progress} report. */
export function isProgressValue(value: unknown): value is number | Progress {
  return typeof value === 'number' || value instanceof ProgressReport;
}
