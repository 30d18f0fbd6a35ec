/**
 * `metrics()`: request figures as an interceptor (operation duration, in-flight requests, errors), and
 * `sessionMetrics()`: a server's sessions from `server.sessions$` (open sessions, session duration). The
 * duration histograms are the MCP semantic conventions' ones; the rest, which they do not name, are `rxmcp.*`.
 */
import type { Attributes, Meter, MeterProvider } from '@opentelemetry/api';
import { metrics as otelMetrics } from '@opentelemetry/api';
import { Observable, type Subscription } from 'rxjs';
import { ATTR, TOOL_ERROR, errorTypeOf, isToolError, metricAttributesOf, statusCodeOf, unsettledTypeOf } from './attributes.ts';
import type { Interceptor, RequestEvent } from './interceptor-contract.ts';
import { INSTRUMENTATION_NAME } from './tracing.ts';

/** Bucket boundaries (seconds) the conventions advise for MCP durations. */
const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

export interface MetricsOptions {
  /** Where meters come from (default: the global meter provider, read when the instruments are made). */
  readonly meterProvider?: MeterProvider;
}

function meterOf(options: MetricsOptions): Meter {
  return (options.meterProvider ?? otelMetrics.getMeterProvider()).getMeter(INSTRUMENTATION_NAME);
}

const now = (): number => performance.now();

/**
 * An interceptor recording, per side (a server's requests to its client count as client operations):
 * `mcp.{server|client}.operation.duration` (histogram, seconds, with `error.type` on failure),
 * `rxmcp.{server|client}.active_requests` (up-down counter) and `rxmcp.{server|client}.errors` (counter).
 */
export function metrics(options: MetricsOptions = {}): Interceptor {
  const meter = meterOf(options);
  const duration = {
    incoming: meter.createHistogram('mcp.server.operation.duration', {
      unit: 's',
      description: 'MCP request duration as observed on the receiver, from its arrival until the answer is sent.',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    }),
    outgoing: meter.createHistogram('mcp.client.operation.duration', {
      unit: 's',
      description: 'MCP request duration as observed on the sender, from sending it until the answer arrives.',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    }),
  };
  const active = {
    incoming: meter.createUpDownCounter('rxmcp.server.active_requests', { unit: '{request}', description: 'MCP requests being served.' }),
    outgoing: meter.createUpDownCounter('rxmcp.client.active_requests', { unit: '{request}', description: 'MCP requests sent and not yet answered.' }),
  };
  const errors = {
    incoming: meter.createCounter('rxmcp.server.errors', { unit: '{request}', description: 'MCP requests served that failed, by error.type.' }),
    outgoing: meter.createCounter('rxmcp.client.errors', { unit: '{request}', description: 'MCP requests sent that failed, by error.type.' }),
  };
  return (request, next) =>
    new Observable<RequestEvent>((subscriber) => {
      const side = request.direction;
      const attributes: Attributes = metricAttributesOf(request);
      const started = now();
      active[side].add(1, attributes);
      let settled = false;
      const settle = (errorType: string | undefined, statusCode?: string): void => {
        if (settled) return;
        settled = true;
        active[side].add(-1, attributes);
        const recorded: Attributes = errorType === undefined ? attributes : { ...attributes, [ATTR.errorType]: errorType };
        if (statusCode !== undefined) recorded[ATTR.statusCode] = statusCode;
        duration[side].record((now() - started) / 1000, recorded);
        if (errorType !== undefined) errors[side].add(1, recorded);
      };
      const subscription = next(request).subscribe({
        next: (event) => {
          // The result settles the request: whoever consumes it may unsubscribe at once, before completion.
          if (event.type === 'result') settle(isToolError(request.method, event.result) ? TOOL_ERROR : undefined);
          subscriber.next(event);
        },
        error: (error: unknown) => {
          // A timeout keeps its own error.type (RequestTimeout), apart from a cancellation: as the spans do.
          if (request.signal.aborted) settle(unsettledTypeOf(request.signal));
          else settle(errorTypeOf(error), statusCodeOf(error));
          subscriber.error(error);
        },
        complete: () => {
          settle(undefined);
          subscriber.complete();
        },
      });
      return () => {
        subscription.unsubscribe();
        if (!settled) settle(unsettledTypeOf(request.signal));
      };
    });
}

/** What `sessionMetrics` needs of a server: its `sessions$` (structurally, so otel/ imports no server code). */
export interface SessionEventSource {
  readonly sessions$: Observable<{
    readonly type: 'opened' | 'closed';
    readonly session: object;
    readonly era: 'legacy' | 'modern';
    readonly revision: string | undefined;
    readonly transport: string | undefined;
    readonly reason?: unknown;
  }>;
}

/**
 * Records a server's sessions from `server.sessions$`: `rxmcp.server.sessions` (up-down counter of open
 * sessions, by era and transport) and `mcp.server.session.duration` (histogram, seconds). Unsubscribe to stop.
 * Sessions already open when it starts are not counted (their close is ignored too).
 */
export function sessionMetrics(server: SessionEventSource, options: MetricsOptions = {}): Subscription {
  const meter = meterOf(options);
  const open = meter.createUpDownCounter('rxmcp.server.sessions', { unit: '{session}', description: 'MCP sessions open on this server.' });
  const duration = meter.createHistogram('mcp.server.session.duration', {
    unit: 's',
    description: 'The duration of an MCP session as observed on the server.',
    advice: { explicitBucketBoundaries: DURATION_BUCKETS },
  });
  const opened = new WeakMap<object, { readonly at: number; readonly attributes: Attributes }>();
  return server.sessions$.subscribe((event) => {
    if (event.type === 'opened') {
      const attributes: Attributes = { 'rxmcp.session.era': event.era };
      if (event.revision !== undefined) attributes[ATTR.protocolVersion] = event.revision;
      if (event.transport !== undefined) attributes['rxmcp.transport'] = event.transport;
      opened.set(event.session, { at: now(), attributes });
      open.add(1, attributes);
      return;
    }
    const entry = opened.get(event.session);
    if (entry === undefined) return;
    opened.delete(event.session);
    open.add(-1, entry.attributes);
    duration.record((now() - entry.at) / 1000, event.reason === undefined ? entry.attributes : { ...entry.attributes, [ATTR.errorType]: errorTypeOf(event.reason) });
  });
}
