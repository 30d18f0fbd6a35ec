/**
 * `hostMetrics(host)`: a session host's figures (`host.metrics()`, see rxmcp's `createSessionHost`) as
 * observable instruments, read when the meter provider collects (nothing is sampled in between).
 */
import type { Attributes, BatchObservableResult } from '@opentelemetry/api';
import { metrics as otelMetrics } from '@opentelemetry/api';
import type { MetricsOptions } from './metrics.ts';
import { INSTRUMENTATION_NAME } from './tracing.ts';

/** The figures `hostMetrics` reads (a session host's `metrics()`, taken structurally). */
export interface HostFigures {
  readonly liveSessions: number;
  readonly inFlightRequests: number;
  readonly queuedFrames: number;
  readonly slowConsumers: number;
  readonly accepted: number;
  readonly refused: number;
  readonly expired: number;
  readonly dropped: number;
  readonly closed: number;
}

export interface HostMetricsOptions extends MetricsOptions {
  /** Attributes on every figure (a host's name when a process runs several). */
  readonly attributes?: Attributes;
}

/**
 * Reports a session host's figures: gauges `rxmcp.host.sessions`, `rxmcp.host.active_requests`,
 * `rxmcp.host.queued_frames`, `rxmcp.host.slow_consumers`, and the counters `rxmcp.host.sessions.accepted`,
 * `.refused`, `.expired`, `.dropped`, `.closed` (totals since the host started).
 * @returns `remove()` stops reporting them
 */
export function hostMetrics(host: { metrics(): HostFigures }, options: HostMetricsOptions = {}): { remove(): void } {
  const meter = (options.meterProvider ?? otelMetrics.getMeterProvider()).getMeter(INSTRUMENTATION_NAME);
  const attributes = options.attributes ?? {};
  const gauge = (name: string, unit: string, description: string) => meter.createObservableGauge(name, { unit, description });
  const counter = (name: string, description: string) => meter.createObservableCounter(name, { unit: '{session}', description });
  const sessions = gauge('rxmcp.host.sessions', '{session}', 'Sessions the host holds now.');
  const active = gauge('rxmcp.host.active_requests', '{request}', 'Requests in flight over all sessions, both ways.');
  const queued = gauge('rxmcp.host.queued_frames', '{frame}', 'Outbound frames waiting for their transports.');
  const slow = gauge('rxmcp.host.slow_consumers', '{session}', 'Sessions whose peers are not keeping up now.');
  const accepted = counter('rxmcp.host.sessions.accepted', 'Sessions accepted since the host started.');
  const refused = counter('rxmcp.host.sessions.refused', 'Sessions refused (the host full or closed), and requests its media refused before any session took them.');
  const expired = counter('rxmcp.host.sessions.expired', 'Sessions closed for idling.');
  const dropped = counter('rxmcp.host.sessions.dropped', 'Sessions dropped because their peers stopped reading.');
  const closed = counter('rxmcp.host.sessions.closed', 'Sessions closed for any reason.');
  const observables = [sessions, active, queued, slow, accepted, refused, expired, dropped, closed];
  const callback = (result: BatchObservableResult): void => {
    const figures = host.metrics();
    result.observe(sessions, figures.liveSessions, attributes);
    result.observe(active, figures.inFlightRequests, attributes);
    result.observe(queued, figures.queuedFrames, attributes);
    result.observe(slow, figures.slowConsumers, attributes);
    result.observe(accepted, figures.accepted, attributes);
    result.observe(refused, figures.refused, attributes);
    result.observe(expired, figures.expired, attributes);
    result.observe(dropped, figures.dropped, attributes);
    result.observe(closed, figures.closed, attributes);
  };
  meter.addBatchObservableCallback(callback, observables);
  return { remove: () => meter.removeBatchObservableCallback(callback, observables) };
}
