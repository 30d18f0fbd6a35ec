/**
 * STAND-IN for the interceptor API (issue 16), which is built on another branch. These are the agreed shapes;
 * when that API lands, this file re-exports the real `InterceptedRequest` and `Interceptor` instead, and
 * nothing else in limits/ changes.
 */
import type { Observable } from 'rxjs';
import type { RequestEvent, SessionView } from '../actors/handler-types.ts';
import type { JsonObject, RequestId } from '../core/jsonrpc.ts';

/** One request on its way to its handler (incoming) or to the peer (outgoing), as an interceptor sees it. */
export interface InterceptedRequest {
  readonly method: string;
  readonly params: JsonObject | undefined;
  readonly meta: JsonObject | undefined;
  readonly id: RequestId;
  readonly direction: 'incoming' | 'outgoing';
  /** The tool or prompt name, or the resource URI, the request is about. */
  readonly target: string | undefined;
  readonly session: SessionView & { readonly principal?: string; readonly sessionId?: string };
  readonly signal: AbortSignal;
}

/** Sees a request and the rest of the chain; may pass it on, rewrite it, or answer it itself. */
export type Interceptor = (request: InterceptedRequest, next: (request: InterceptedRequest) => Observable<RequestEvent>) => Observable<RequestEvent>;
