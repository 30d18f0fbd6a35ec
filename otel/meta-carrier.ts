/**
 * The request's `_meta` as a carrier of trace context (`traceparent`, `tracestate`, `baggage`: whatever the
 * global propagator writes): read on the serving side, written on the sending side.
 */
import type { TextMapGetter } from '@opentelemetry/api';

type Meta = Readonly<Record<string, unknown>>;

/** Reads string entries of `_meta` (anything else is not trace context). */
export const metaGetter: TextMapGetter<Meta> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key];
    return typeof value === 'string' ? value : undefined;
  },
};
