/**
 * The envelope of one inbound frame: what every stage between the medium and the handler asks of a decoded
 * message (its kind, id and method, the item it addresses, the protocol revision it claims, whether it gets an
 * answer). The medium reads it once, where it decodes the frame, and it travels with the frame
 * (`InboundFrame.envelope`): the HTTP endpoint plans its answer from it, step-up reads the target from it, and
 * the session routes by it. Nothing downstream classifies the message again.
 */
import { type Classified, type RequestId, classify, isJsonObject } from './jsonrpc.ts';
import type { MethodDeclaration } from './protocol/declarations/declaration.ts';
import { targetIn } from './protocol/declarations/declaration.ts';
import { declarationOf } from './protocol/declarations/index.ts';
import { claimedRevision } from './protocol/modern.ts';

export interface FrameEnvelope {
  /** What the message is, with the message itself (or why it is invalid, or a batch's items). */
  readonly classified: Classified;
  readonly kind: Classified['kind'];
  /** A request's or response's id (for an invalid message: the one it can still be answered with, if any). */
  readonly id: RequestId | undefined;
  /** A request's or notification's method. */
  readonly method: string | undefined;
  /** The method's declaration, when the method is a known one. */
  readonly declaration: MethodDeclaration | undefined;
  /** The item the request addresses (a tool or prompt name, a resource URI), by the field its declaration names. */
  readonly target: string | undefined;
  /** The protocol revision the message claims in `params._meta` (the modern era's envelope), as sent. */
  readonly claimedRevision: unknown;
  /**
   * The frame gets an answer: a request, or something the session refuses with an error (an invalid message, a
   * batch holding either). Whether an array is a batch at all depends on the session's revision: see `items`.
   */
  readonly needsAnswer: boolean;
  /** A batch's items, each with its envelope (read with the batch's, so they are not read again). */
  readonly items: readonly FrameEnvelope[] | undefined;
}

let read0 = 0;
let lateReads = 0;

/** Reads the envelope of a decoded frame: what a medium calls once per frame, where it decodes it. */
export function envelopeOf(payload: unknown): FrameEnvelope {
  read0++;
  return read(payload);
}

/**
 * The envelope of a frame that came without one (a medium that does not read envelopes, such as a transport of
 * one's own): the session reads it, once, as the medium would have.
 */
export function lateEnvelopeOf(payload: unknown): FrameEnvelope {
  lateReads++;
  return read(payload);
}

/**
 * The envelope that describes `payload`: the frame's own when it was read from this very payload, else read now.
 * A transport of one's own may wrap a medium and hand on its frames with another payload (a proxy rewriting
 * results, a test tampering with them) while the frame still carries the medium's envelope; routing by that
 * envelope would act on the message the medium decoded, not the one the session was given. One identity check.
 */
export function envelopeFor(envelope: FrameEnvelope | undefined, payload: unknown): FrameEnvelope {
  if (envelope === undefined) return lateEnvelopeOf(payload);
  const classified = envelope.classified;
  const described = classified.kind === 'batch' ? classified.items : classified.kind === 'invalid' ? undefined : classified.message;
  return described === payload ? envelope : lateEnvelopeOf(payload);
}

/**
 * How many frame envelopes were read in this process so far (`byMedia`: where frames were decoded; `late`: by a
 * session, for frames that came without one). Lets a spec prove every frame is read once. Two counters, no
 * allocation on the path.
 */
export function envelopesRead(): { readonly byMedia: number; readonly late: number } {
  return { byMedia: read0, late: lateReads };
}

/** `nested`: an item of a batch, where an array is not read further (a nested batch is refused whole). */
function read(payload: unknown, nested = false): FrameEnvelope {
  const classified = nested && Array.isArray(payload) ? NESTED_BATCH : classify(payload);
  switch (classified.kind) {
    case 'request':
    case 'notification': {
      const { method, params } = classified.message;
      const declaration = declarationOf(method);
      const id = classified.kind === 'request' ? classified.message.id : undefined;
      return envelope(classified, id, method, declaration, targetIn(declaration?.target, params), claimedRevision(params), classified.kind === 'request', undefined);
    }
    case 'response':
      return envelope(classified, classified.message.id, undefined, undefined, undefined, undefined, false, undefined);
    case 'invalid': {
      // What an invalid message still says is kept: the HTTP endpoint picks the era by it before the session refuses it.
      const raw = isJsonObject(payload) ? payload : undefined;
      const method = raw?.['method'];
      return envelope(classified, classified.id, typeof method === 'string' ? method : undefined, undefined, undefined, claimedRevision(raw?.['params']), true, undefined);
    }
    case 'batch': {
      if (nested) return envelope(classified, undefined, undefined, undefined, undefined, undefined, true, undefined);
      const items = classified.items.map((item) => read(item, true));
      const needsAnswer = items.length === 0 || items.some((item) => item.needsAnswer);
      return envelope(classified, undefined, undefined, undefined, undefined, undefined, needsAnswer, items);
    }
  }
}

/** Every envelope is made here, its fields in one order: one object shape for all of them. */
function envelope(
  classified: Classified,
  id: RequestId | undefined,
  method: string | undefined,
  declaration: MethodDeclaration | undefined,
  target: string | undefined,
  claimed: unknown,
  needsAnswer: boolean,
  items: readonly FrameEnvelope[] | undefined,
): FrameEnvelope {
  return { classified, kind: classified.kind, id, method, declaration, target, claimedRevision: claimed, needsAnswer, items };
}

const NESTED_BATCH: Classified = { kind: 'batch', items: [] };
