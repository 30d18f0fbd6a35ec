/**
 * A session's inbound side as one stream: the transport's source of frames, through admission by the lifecycle
 * machine's state, into the routing to the request actors (actors/inbound-router.ts):
 *
 *   transport.incoming$.subscribe(inboundStream(session))
 *
 * Admission notes every frame's arrival (activity, the message tap) and lets through only what a session that is
 * not closed may still read; routing hands each admitted frame to its actor, and turns the source's end (complete,
 * or error) into the session's. What a request answers goes to the session's writer, the sink of its outbound side.
 *
 * Lean on purpose: a million idle sessions each hold this chain. The stages are observers composed in one
 * subscription, each a small object with its methods on the prototype: about 40 bytes per session and nothing per
 * frame. (As RxJS operators, `pipe(admittedBy(session))`, each stage costs a Subscriber of its own, with its
 * finalizers: measured at about 330 bytes per idle Streamable HTTP session, a fifth of one.)
 */
import type { Observer } from 'rxjs';
import { routeFrame } from '../actors/inbound-router.ts';
import type { SessionContext } from '../actors/session-context.ts';
import type { InboundFrame } from '../core/transport.ts';

/** What the stream needs from its session beyond what the actors use. */
export interface InboundHost extends SessionContext {
  /** A frame arrived (admitted or not): the session's activity clock and its message tap. */
  arrived(frame: InboundFrame): void;
  /** The source failed. */
  transportFailed(error: unknown): void;
  /** The source completed: the transport closed. */
  transportClosed(): void;
}

/** The observer a session subscribes to its transport's frames with: admission, then routing. */
export function inboundStream(host: InboundHost): Observer<InboundFrame> {
  return new Admission(host, new FrameRouting(host));
}

/** Admission: the frames of a session that is not closed, each noted as it arrives. */
class Admission implements Observer<InboundFrame> {
  constructor(
    private readonly host: InboundHost,
    private readonly downstream: Observer<InboundFrame>,
  ) {}

  next(frame: InboundFrame): void {
    this.host.arrived(frame);
    if (!this.host.admits('closed')) this.downstream.next(frame);
  }

  error(error: unknown): void {
    this.downstream.error(error);
  }

  complete(): void {
    this.downstream.complete();
  }
}

/** Routing: each admitted frame to its actor; the end of the source is the end of the session's transport. */
class FrameRouting implements Observer<InboundFrame> {
  constructor(private readonly host: InboundHost) {}

  next(frame: InboundFrame): void {
    routeFrame(this.host, frame);
  }

  error(error: unknown): void {
    this.host.transportFailed(error);
  }

  complete(): void {
    this.host.transportClosed();
  }
}
