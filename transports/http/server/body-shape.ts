/**
 * What a POST body asks of the endpoint, read before the session sees it: whether it needs an answer (and so
 * a stream or a JSON body), which request ids the answer covers, whether it starts a session, and which running
 * requests it cancels. The session still validates everything; this only plans the HTTP side.
 */
import { type RequestId, classify, isRequestId } from '../../../core/jsonrpc.ts';
import { type LegacyRevision, allowsBatches } from '../../../core/protocol/versions.ts';

export interface BodyShape {
  /** Some message gets an answer: a request, or something invalid the session will reject with an error. */
  readonly needsAnswer: boolean;
  /** Ids of the requests in the body. */
  readonly requestIds: readonly RequestId[];
  /** Messages that are not requests yet get an answer (invalid ones, or a whole rejected batch). */
  readonly otherAnswers: number;
  /** The id of a lone `initialize` request (the only body that may start a session). */
  readonly initializeId: RequestId | undefined;
  /** Request ids named by `notifications/cancelled` messages in the body. */
  readonly cancelled: readonly RequestId[];
}

/** `revision` is the session's (undefined before the handshake): it decides whether an array is a batch. */
export function shapeOf(body: unknown, revision: LegacyRevision | undefined): BodyShape {
  if (Array.isArray(body)) {
    if (body.length === 0 || !allowsBatches(revision)) {
      return { needsAnswer: true, requestIds: [], otherAnswers: 1, initializeId: undefined, cancelled: [] };
    }
    const requestIds: RequestId[] = [];
    const cancelled: RequestId[] = [];
    let otherAnswers = 0;
    for (const item of body) otherAnswers += tally(item, requestIds, cancelled);
    return { needsAnswer: requestIds.length + otherAnswers > 0, requestIds, otherAnswers, initializeId: undefined, cancelled };
  }
  const requestIds: RequestId[] = [];
  const cancelled: RequestId[] = [];
  const otherAnswers = tally(body, requestIds, cancelled);
  const classified = classify(body);
  const initializeId = classified.kind === 'request' && classified.message.method === 'initialize' ? classified.message.id : undefined;
  return { needsAnswer: requestIds.length + otherAnswers > 0, requestIds, otherAnswers, initializeId, cancelled };
}

/** Adds what one message contributes; returns 1 when it is answered without being a request. */
function tally(item: unknown, requestIds: RequestId[], cancelled: RequestId[]): number {
  const classified = classify(item);
  switch (classified.kind) {
    case 'request':
      requestIds.push(classified.message.id);
      return 0;
    case 'notification': {
      const requestId = classified.message.params?.['requestId'];
      if (classified.message.method === 'notifications/cancelled' && isRequestId(requestId)) {
        cancelled.push(requestId);
      }
      return 0;
    }
    case 'response':
      return 0;
    case 'batch':
    case 'invalid':
      return 1;
  }
}
