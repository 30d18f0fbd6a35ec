/**
 * What actors need from the session they work for. The session (machines/) implements it; actors never see
 * the lifecycle machine itself, only the tags of its current state.
 */
import type { MachineInspector } from '../machines/executor.ts';
import type { AuthInfo } from '../core/auth.ts';
import type { Clock } from '../core/clock.ts';
import type { LocalError } from '../core/errors.ts';
import type { LazyTable } from '../core/lazy-table.ts';
import type { JsonObject, RequestId } from '../core/jsonrpc.ts';
import type { Limits } from '../core/limits.ts';
import type { AnyCapabilities } from '../core/protocol/capabilities.ts';
import type { LifecycleTag } from '../core/protocol/lifecycle-tags.ts';
import type { Role } from '../core/protocol/methods.ts';
import type { LegacyRevision } from '../core/protocol/versions.ts';
import type { ExchangeKey } from '../core/transport.ts';
import type { HandlerTable, SessionView } from './handler-types.ts';
import type { ModernServing } from './modern/modern-serving.ts';
import type { OutboundWriter } from './outbound-writer.ts';

/** Something that happened and was handled without failing anything, reported for observability. */
export interface SessionDiagnostic {
  readonly type:
    | 'dropped-response'
    | 'dropped-notification'
    | 'dropped-progress'
    | 'invalid-message'
    | 'malformed-frame'
    | 'handler-error'
    /** The medium cut off a stream of the session whose client stopped reading (the detail says which bound). */
    | 'stream-cut';
  readonly detail: string;
}

/** The part of an outgoing request the session tracks (by id, for responses and progress). */
export interface PendingRequest {
  /** When it times out, on the session's clock (`Infinity`: never); read by the session's deadline sweep. */
  readonly deadline: number;
  /** The deadline sweep found it due (actors/request-deadlines.ts). */
  expire(): void;
  onResponse(message: { readonly result?: JsonObject; readonly error?: { readonly code: number; readonly message: string; readonly data?: unknown } }): void;
  onProgress(params: JsonObject): void;
  fail(error: LocalError): void;
}

/** The part of an incoming request the session tracks (by id, for cancellation and close). */
export interface RunningRequest {
  readonly method: string;
  readonly progressToken: string | number | undefined;
  readonly exchange: ExchangeKey | undefined;
  cancel(reason: LocalError): void;
  /** The session started a graceful shutdown: the request may finish, and is told to (its `shutdown` signal). */
  shutdownStarted(): void;
  /**
   * Ends the request with an error answer instead of silence (the session shuts down while it still runs): its
   * handler is aborted with `reason`, the requester is answered with `answer`.
   */
  abandon(reason: LocalError, answer: { readonly code: number; readonly message: string; readonly data?: unknown }): void;
}

export interface SessionContext {
  readonly role: Role;
  /** The runtime's inspection hook of the session's machines (its requests' machines tell it their steps), if any. */
  readonly machineInspector: MachineInspector | undefined;
  /** The session's id in inspection events. */
  readonly inspectionId: string | undefined;
  readonly limits: Limits;
  readonly clock: Clock;
  readonly writer: OutboundWriter;
  readonly handlers: HandlerTable;
  readonly view: SessionView;
  /** Who the transport authenticated for the whole connection (server side), if it did. */
  readonly principal: string | undefined;
  /** The verified identity behind `principal`, when the medium has one. */
  readonly auth: AuthInfo | undefined;
  readonly outgoing: LazyTable<RequestId, PendingRequest>;
  readonly incoming: LazyTable<RequestId, RunningRequest>;
  readonly revision: LegacyRevision | undefined;
  readonly ownCapabilities: AnyCapabilities;
  readonly peerCapabilities: AnyCapabilities | undefined;
  /** Client only, in the modern era: the `_meta` entries every request carries (version, capabilities, info). */
  readonly envelope: JsonObject | undefined;
  /** Server only, when it serves the modern era. */
  readonly modern: ModernServing | undefined;
  admits(tag: LifecycleTag): boolean;
  /** Server: the first message chose the modern era for this connection. */
  becomeModern(): void;
  nextRequestId(): number;
  /**
   * A request in `outgoing` has its deadline set or moved to `deadline` (finite): it is timed out by the
   * session's one deadline sweep (actors/request-deadlines.ts), not by a timer of its own.
   */
  watchDeadline(deadline: number): void;
  /** A request in `outgoing` got its outcome: it leaves the table (the last one to leave stops the sweep). */
  settleOutgoing(id: RequestId): void;
  /**
   * Runs `start` once the session may send requests. Returns an error instead when it never will (closed, or
   * a state that does not defer), or when too many requests already wait.
   */
  whenOutboundOpen(start: () => void): LocalError | undefined;
  /** Removes a deferred start (its request was abandoned before the session opened). */
  cancelDeferred(start: () => void): void;
  diagnose(diagnostic: SessionDiagnostic): void;
  /** Session-level handling of lifecycle requests (`initialize`) and notifications (`initialized`). */
  handleInitialize(id: RequestId, params: JsonObject | undefined, exchange: ExchangeKey | undefined): void;
  handleInitialized(): void;
}
