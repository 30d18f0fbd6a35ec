/**
 * Joins a front connection (an HTTP session or POST, whose client is the MCP client) to a back connection (a
 * NATS client transport to the servers), frames unchanged: the gateway's configuration of the join
 * (cli/join/join.ts), which keeps the exchange mapping, the bounded queues and the one answer of every request.
 * Here: how the gateway words its errors, and its hooks.
 */
import type { JsonObject } from '../../core/jsonrpc.ts';
import type { GracefulCloseOptions, InboundFrame, Transport } from '../../core/transport.ts';
import { join } from '../join/join.ts';
import { describe } from '../join/payload.ts';
import { type Undelivered, detail } from '../join/undelivered.ts';

export interface ForwardHooks {
  /** The back answered the front's `initialize` with a result. */
  readonly onInitialized?: (request: JsonObject, result: JsonObject) => void | Promise<void>;
  /** Either side closed; both are closed now. */
  readonly onClosed?: () => void;
  /**
   * Runs before each front message goes to the back (the gateway signs the caller's identity assertion here).
   * Frames stay in order while it works; when it fails, the frame's requests are answered with its reason.
   */
  readonly prepare?: (frame: InboundFrame & { readonly type: 'message' }) => void | Promise<void>;
}

export interface Forwarding {
  /**
   * Closes both sides. With `drainMs`, gracefully: new requests from the front are refused at once, requests in
   * flight have up to `drainMs` for their answers to come back, and those still open then are answered with an
   * error naming the deadline.
   */
  close(options?: GracefulCloseOptions): Promise<void>;
}

/** Requests in flight through one forwarding; more are refused (bounded like every queue). */
const MAX_IN_FLIGHT = 4096;
/** How long a closing forwarding waits for its last sends to the front. */
const FLUSH_MS = 1_000;

/** The gateway's words for a request it could not carry. */
function gatewayWords(undelivered: Undelivered, to: string): string {
  switch (undelivered.kind) {
    case 'refused':
      return `The gateway could not reach the ${to}: ${describe(undelivered.error)}`;
    case 'prepare':
      return `The gateway could not vouch for the caller: ${describe(undelivered.error)}`;
    case 'closing':
      return 'The gateway is shutting down; retry the request';
    case 'in-flight':
      return `Too many requests in flight: the gateway holds at most ${undelivered.max} of one session at once; retry once earlier requests finished`;
    case 'unanswered':
      return undelivered.drainMs > 0
        ? `The gateway shut down before request ${JSON.stringify(undelivered.id)} was answered: the shutdown deadline of ${undelivered.drainMs} ms passed`
        : `The gateway closed the connection before request ${JSON.stringify(undelivered.id)} was answered`;
    case 'full':
      return `The gateway could not deliver the request: ${detail(undelivered, to)}; retry the request`;
    case 'reported':
    case 'ended':
      // The medium's own words (no responders, silence, too large) say it best.
      return detail(undelivered, to);
  }
}

export function forward(front: Transport, back: Transport, hooks: ForwardHooks = {}): Forwarding {
  const joined = join(front, back, {
    names: ['client', 'server'],
    maxInFlight: MAX_IN_FLIGHT,
    flushMs: FLUSH_MS,
    // A modern POST the client closed is that request's cancellation (the HTTP side marks only those frames
    // `cancels`; a legacy stream lost is none): the server behind the gateway hears it and stops the work.
    cancelOnExchangeClose: true,
    words: gatewayWords,
    hooks,
  });
  return { close: (options) => joined.close(options) };
}
