/** What the join reads of a payload (one message or a batch): it never looks deeper than the JSON-RPC envelope. */
import { type RequestId, classify } from '../../core/jsonrpc.ts';

/** The items of a payload: a batch's messages, or the one message. */
export function itemsOf(payload: unknown): readonly unknown[] {
  return Array.isArray(payload) ? (payload as readonly unknown[]) : [payload];
}

/** The ids of the requests a payload carries (one message or a batch). */
export function requestIds(payload: unknown): RequestId[] {
  const ids: RequestId[] = [];
  for (const item of itemsOf(payload)) {
    const classified = classify(item);
    if (classified.kind === 'request') ids.push(classified.message.id);
  }
  return ids;
}

export function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
