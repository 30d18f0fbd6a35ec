/**
 * What a POST body asks of the endpoint, planned from its envelope (read once, where the body was decoded):
 * whether it needs an answer (and so a stream or a JSON body), which request ids the answer covers, whether it
 * starts a session, and which running requests it cancels. The session still validates everything; this only
 * plans the HTTP side.
 */
import type { FrameEnvelope } from '../../../core/frame-envelope.ts';
import { type RequestId, isRequestId } from '../../../core/jsonrpc.ts';
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

const NONE: readonly RequestId[] = Object.freeze([]);

/** The id of `envelope`'s message when it is a lone `initialize` request. */
export function initializeIdOf(envelope: FrameEnvelope): RequestId | undefined {
  return envelope.kind === 'request' && envelope.method === 'initialize' ? envelope.id : undefined;
}

/** `revision` is the session's (undefined before the handshake): it decides whether an array is a batch. */
export function shapeOf(envelope: FrameEnvelope, revision: LegacyRevision | undefined): BodyShape {
  const items = envelope.items;
  if (envelope.kind === 'batch') {
    if (items === undefined || items.length === 0 || !allowsBatches(revision)) {
      return { needsAnswer: true, requestIds: NONE, otherAnswers: 1, initializeId: undefined, cancelled: NONE };
    }
    const requestIds: RequestId[] = [];
    const cancelled: RequestId[] = [];
    let otherAnswers = 0;
    for (const item of items) otherAnswers += tally(item, requestIds, cancelled);
    return { needsAnswer: requestIds.length + otherAnswers > 0, requestIds, otherAnswers, initializeId: undefined, cancelled };
  }
  switch (envelope.kind) {
    case 'request':
      return { needsAnswer: true, requestIds: [envelope.id as RequestId], otherAnswers: 0, initializeId: initializeIdOf(envelope), cancelled: NONE };
    case 'invalid':
      return { needsAnswer: true, requestIds: NONE, otherAnswers: 1, initializeId: undefined, cancelled: NONE };
    default: {
      const cancelled = cancelledBy(envelope);
      return { needsAnswer: false, requestIds: NONE, otherAnswers: 0, initializeId: undefined, cancelled: cancelled === undefined ? NONE : [cancelled] };
    }
  }
}

/** Adds what one message contributes; returns 1 when it is answered without being a request. */
function tally(item: FrameEnvelope, requestIds: RequestId[], cancelled: RequestId[]): number {
  switch (item.kind) {
    case 'request':
      requestIds.push(item.id as RequestId);
      return 0;
    case 'notification': {
      const requestId = cancelledBy(item);
      if (requestId !== undefined) cancelled.push(requestId);
      return 0;
    }
    case 'response':
      return 0;
    case 'batch':
    case 'invalid':
      return 1;
  }
}

/** The request a `notifications/cancelled` names, if it is one that does. */
function cancelledBy(envelope: FrameEnvelope): RequestId | undefined {
  if (envelope.method !== 'notifications/cancelled' || envelope.classified.kind !== 'notification') return undefined;
  const requestId = envelope.classified.message.params?.['requestId'];
  return isRequestId(requestId) ? requestId : undefined;
}
