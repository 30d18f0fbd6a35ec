/**
 * `tracing()`: a span per request on both sides, as an interceptor. The sending side makes a CLIENT span and
 * writes its trace context into the request's `_meta`; the serving side reads it from there and makes a SERVER
 * span, its child. `_meta` travels inside the JSON-RPC message, so one trace crosses every transport (memory,
 * stdio, HTTP, NATS, the gateway) with no help from it.
 */
import {
  type Context,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapPropagator,
  type Tracer,
  type TracerProvider,
  context,
  propagation,
  trace,
} from '@opentelemetry/api';
import { Observable } from 'rxjs';
import {
  ATTR,
  CANCELLED,
  TIMED_OUT,
  TOOL_ERROR,
  errorTypeOf,
  isTimeout,
  isToolError,
  messageOf,
  spanAttributesOf,
  spanNameOf,
  statusCodeOf,
  unsettledTypeOf,
} from './attributes.ts';
import type { InterceptedRequest, Interceptor, RequestEvent } from './interceptor-contract.ts';
import { metaGetter } from './meta-carrier.ts';

type Meta = Record<string, unknown>;

/** The instrumentation scope spans and metrics are reported under. */
export const INSTRUMENTATION_NAME = 'rxmcp';

export interface TracingOptions {
  /** Where tracers come from (default: the global tracer provider, read per request so it may be set later). */
  readonly tracerProvider?: TracerProvider;
  /** How trace context is read from and written to `_meta` (default: the global propagator). */
  readonly propagator?: TextMapPropagator<Record<string, unknown>>;
  /** Name resource requests `{method} {uri}` (off by default: URIs make names of high cardinality). */
  readonly resourceUriInSpanName?: boolean;
  /** Report progress notifications as span events (default true). */
  readonly progressEvents?: boolean;
}

/** The name of the span event a progress notification becomes. */
export const PROGRESS_EVENT = 'mcp.progress';
/** The attribute of a `cancelled` event saying why, when it is not the caller's or the peer's wish (`timeout`). */
export const CANCEL_REASON = 'rxmcp.cancel.reason';

function tracerOf(options: TracingOptions): Tracer {
  return (options.tracerProvider ?? trace.getTracerProvider()).getTracer(INSTRUMENTATION_NAME);
}

function extract(options: TracingOptions, parent: Context, meta: Meta): Context {
  return options.propagator ? options.propagator.extract(parent, meta, metaGetter) : propagation.extract(parent, meta, metaGetter);
}

function inject(options: TracingOptions, spanContext: Context, carrier: Meta): void {
  if (options.propagator) options.propagator.inject(spanContext, carrier, { set: (target, key, value) => { target[key] = value; } });
  else propagation.inject(spanContext, carrier);
}

/** Marks a span failed: `error.type`, the JSON-RPC code when there is one, status ERROR. */
function fail(span: Span, type: string, message: string, statusCode?: string): void {
  span.setAttribute(ATTR.errorType, type);
  if (statusCode !== undefined) span.setAttribute(ATTR.statusCode, statusCode);
  span.setStatus({ code: SpanStatusCode.ERROR, message });
}

/** Ends `span` as timed out: `error.type` `RequestTimeout`, status ERROR, the exception recorded. */
function timedOut(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : messageOf(error));
  fail(span, TIMED_OUT, messageOf(error));
}

/**
 * An interceptor making a span per request, for `server.use` and `client.use` (both directions: a server's
 * requests to its client are traced too). Span names, kinds and attributes follow the MCP semantic conventions;
 * a failure sets `error.type` and status ERROR, a cancellation ends the span with a `cancelled` event and
 * `error.type` `cancelled`. A timeout is a failure of its own, `error.type` `RequestTimeout`; a sent request that
 * timed out is then cancelled (`notifications/cancelled`, reason "timeout"), which its span records as a
 * `cancelled` event with `rxmcp.cancel.reason` `timeout`.
 */
export function tracing(options: TracingOptions = {}): Interceptor {
  const progressEvents = options.progressEvents ?? true;
  return (request: InterceptedRequest, next) =>
    new Observable<RequestEvent>((subscriber) => {
      const incoming = request.direction === 'incoming';
      const active = context.active();
      const parent = incoming && request.meta !== undefined ? extract(options, active, request.meta) : active;
      const span = tracerOf(options).startSpan(
        spanNameOf(request, options.resourceUriInSpanName),
        { kind: incoming ? SpanKind.SERVER : SpanKind.CLIENT, attributes: spanAttributesOf(request) },
        parent,
      );
      const spanContext = trace.setSpan(parent, span);
      let passed = request;
      if (!incoming) {
        const carrier: Meta = {};
        inject(options, spanContext, carrier);
        if (Object.keys(carrier).length > 0) passed = request.with({ meta: { ...request.meta, ...(carrier as Record<string, string>) } });
      }
      let ended = false;
      const end = (): void => {
        ended = true;
        span.end();
      };
      // The handler (incoming) or the send (outgoing) runs in the span's context, so what it does is its child.
      const subscription = context.with(spanContext, () =>
        next(passed).subscribe({
          next: (event) => {
            if (event.type === 'progress') {
              if (progressEvents) {
                const attributes: Record<string, string | number> = { 'mcp.progress.value': event.progress };
                if (event.total !== undefined) attributes['mcp.progress.total'] = event.total;
                if (event.message !== undefined) attributes['mcp.progress.message'] = event.message;
                span.addEvent(PROGRESS_EVENT, attributes);
              }
              subscriber.next(event);
              return;
            }
            // The result settles the request: whoever consumes it may unsubscribe at once, before completion.
            if (!ended) {
              if (isToolError(request.method, event.result)) fail(span, TOOL_ERROR, 'the tool reported an error');
              end();
            }
            subscriber.next(event);
          },
          error: (error: unknown) => {
            if (ended) {
              subscriber.error(error);
              return;
            }
            if (request.signal.aborted && isTimeout(request.signal.reason)) {
              timedOut(span, request.signal.reason);
            } else if (request.signal.aborted) {
              span.addEvent(CANCELLED);
              fail(span, CANCELLED, messageOf(error));
            } else if (!incoming && isTimeout(error)) {
              // The sender gave up waiting and cancelled the request with the peer (initialize is not intercepted).
              span.addEvent(CANCELLED, { [CANCEL_REASON]: 'timeout' });
              timedOut(span, error);
            } else {
              span.recordException(error instanceof Error ? error : messageOf(error));
              fail(span, errorTypeOf(error), messageOf(error), statusCodeOf(error));
            }
            end();
            subscriber.error(error);
          },
          complete: () => {
            if (!ended) end();
            subscriber.complete();
          },
        }),
      );
      return () => {
        subscription.unsubscribe();
        if (ended) return;
        // Let go before it settled: cancelled (by the caller or the peer), or the handler's timeout (serving side).
        if (unsettledTypeOf(request.signal) === TIMED_OUT) timedOut(span, request.signal.reason);
        else {
          span.addEvent(CANCELLED);
          fail(span, CANCELLED, 'cancelled before it settled');
        }
        end();
      };
    });
}
