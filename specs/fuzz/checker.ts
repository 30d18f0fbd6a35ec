/**
 * The reliability checker: given the ledger of what was sent (script.ts) and everything the server sent back,
 * lists every broken promise. Every valid request id gets exactly one answer (a result where it can only
 * succeed), or the session ended with a reason the client saw; nothing is answered twice; nothing that was
 * not a request is answered as one.
 */
import type { RequestId } from '../../core/jsonrpc.ts';
import { type Entry, type Script, keyOf } from './script.ts';

export interface Observed {
  /** Every JSON-RPC message the server sent, decoded, in order. */
  readonly messages: readonly unknown[];
  /**
   * The session ended before everything was answered, with the reason the client saw (stdio: stderr before the
   * exit; HTTP: the error response; NATS: the error answer). `reason` undefined: it ended without saying.
   */
  readonly ended?: { readonly reason: string | undefined } | undefined;
  /** The client stopped reading for good: answers it never read are not missing. */
  readonly stoppedReading: boolean;
  /**
   * The client stopped reading at some point. A session may be dropped as a slow consumer only then: one whose
   * client read all along has no reason to end, whatever the rate of its requests.
   */
  readonly stalledReading: boolean;
  /** The client closed its input after its last request (stdio EOF): the session ends then, once it answered. */
  readonly inputEnded?: boolean;
}

interface Answer {
  readonly id: RequestId;
  readonly error?: { readonly code?: unknown; readonly message?: unknown };
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The responses among `messages` (batches flattened); server requests and notifications are not answers. */
export function answersIn(messages: readonly unknown[]): Answer[] {
  const answers: Answer[] = [];
  const visit = (message: unknown): void => {
    if (Array.isArray(message)) return message.forEach(visit);
    if (!isRecord(message) || 'method' in message) return;
    const id = message['id'];
    if (typeof id !== 'string' && typeof id !== 'number') return;
    answers.push(isRecord(message['error']) ? { id, error: message['error'] } : { id });
  };
  messages.forEach(visit);
  return answers;
}

/** The one refusal a request that can only succeed may still get: the in-flight cap. */
export function isInFlightRefusal(error: Answer['error']): boolean {
  return error !== undefined && error.code === -32603 && typeof error.message === 'string' && error.message.startsWith('Too many requests in flight');
}

/** Valid requests not answered yet (those that may legitimately go unanswered left out). */
export function outstanding(script: Script, messages: readonly unknown[]): Entry[] {
  const counts = countAnswers(answersIn(messages));
  return [...script.ledger.values()].filter((entry) => entry.owed === 'answer' && !entry.cancelled && (counts.get(keyOf(entry.id)) ?? 0) < (entry.collided ? 1 : entry.sends));
}

function countAnswers(answers: readonly Answer[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const answer of answers) counts.set(keyOf(answer.id), (counts.get(keyOf(answer.id)) ?? 0) + 1);
  return counts;
}

/** Every broken promise, one line each (at most `limit`, then a count). */
export function check(script: Script, observed: Observed, limit = 8): string[] {
  const violations: string[] = [];
  const answers = answersIn(observed.messages);
  const counts = countAnswers(answers);
  const describe = (entry: Entry | undefined, id: RequestId): string => `id ${JSON.stringify(id)}${entry === undefined ? '' : ` (${entry.label})`}`;
  const unexpectedErrors = new Map<string, string>();
  for (const answer of answers) {
    const entry = script.ledger.get(keyOf(answer.id));
    if (entry === undefined) violations.push(`an answer to ${describe(entry, answer.id)}, which was never sent`);
    else if (entry.owed === 'nothing') violations.push(`an answer to ${describe(entry, answer.id)}, which owed none`);
    else if (entry.owed === 'error-at-most' && answer.error === undefined) violations.push(`a result for ${describe(entry, answer.id)}, which was no request`);
    else if (entry.owed === 'answer' && entry.mustSucceed && answer.error !== undefined && !isInFlightRefusal(answer.error) && !entry.cancelled && !entry.collided) {
      unexpectedErrors.set(keyOf(answer.id), `${describe(entry, answer.id)} was refused: ${String(answer.error.code)} ${String(answer.error.message)}`);
    }
  }
  violations.push(...unexpectedErrors.values());
  const missing: Entry[] = [];
  for (const entry of script.ledger.values()) {
    const count = counts.get(keyOf(entry.id)) ?? 0;
    const most = entry.owed === 'answer' ? entry.sends : entry.owed === 'error-at-most' ? 1 : 0;
    if (entry.owed !== 'nothing' && count > most) violations.push(`${describe(entry, entry.id)} was answered ${count} times (at most ${most})`);
    if (entry.owed === 'answer' && !entry.cancelled && count === 0) missing.push(entry);
  }
  if (observed.inputEnded === true && missing.length > 0 && !observed.stoppedReading) {
    violations.push(`${missing.length} requests sent before the client closed its input were never answered (first ${describe(missing[0], missing[0]!.id)})`);
    return violations.length <= limit ? violations : [...violations.slice(0, limit), `... and ${violations.length - limit} more`];
  }
  if (observed.ended !== undefined && !observed.stalledReading && observed.inputEnded !== true) {
    violations.push(`the session ended although the client read everything all along: ${observed.ended.reason ?? '(no reason given)'}`);
  }
  if (missing.length > 0 && !observed.stoppedReading) {
    if (observed.ended === undefined) {
      violations.push(`${missing.length} valid requests never answered while the session stayed open, first ${missing.slice(0, 3).map((entry) => describe(entry, entry.id)).join(', ')}`);
    } else if (observed.ended.reason === undefined || observed.ended.reason.trim() === '') {
      violations.push(`the session ended without a reason the client could see, leaving ${missing.length} requests unanswered (first ${describe(missing[0], missing[0]!.id)})`);
    }
  }
  return violations.length <= limit ? violations : [...violations.slice(0, limit), `... and ${violations.length - limit} more`];
}
