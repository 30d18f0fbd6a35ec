/**
 * The OpenTelemetry SDK set up as an application would, with in-memory exporters: a tracer provider with an
 * in-memory span exporter behind a simple span processor, the AsyncLocalStorage context manager and the W3C
 * trace-context propagator registered globally, and a meter provider whose reader the specs collect on demand.
 */
import { context, metrics, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { type DataPoint, type Histogram, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';

class OnDemandReader extends MetricReader {
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }

  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
}

export interface Telemetry {
  readonly spans: InMemorySpanExporter;
  readonly meterProvider: MeterProvider;
  /** The data points of a metric, by name, as collected now. */
  points(name: string): Promise<DataPoint<number | Histogram>[]>;
}

let installed: Telemetry | undefined;

/** Registers the SDK globally, once per process (spec files run in their own processes). */
export function installTelemetry(): Telemetry {
  if (installed) return installed;
  const spans = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(tracerProvider);
  const reader = new OnDemandReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  metrics.setGlobalMeterProvider(meterProvider);
  installed = {
    spans,
    meterProvider,
    async points(name) {
      const { resourceMetrics } = await reader.collect();
      return resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics.filter((metric) => metric.descriptor.name === name).flatMap((metric) => metric.dataPoints as DataPoint<number | Histogram>[]));
    },
  };
  return installed;
}

/** The finished spans whose name is `name`. */
export function spansNamed(spans: InMemorySpanExporter, name: string): ReadableSpan[] {
  return spans.getFinishedSpans().filter((span) => span.name === name);
}

/** Waits until `predicate` holds (spans of the far side end a little after the near side sees its answer). */
export async function eventually(predicate: () => boolean, what = 'the condition', timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`${what} did not hold within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
