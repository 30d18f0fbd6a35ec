/**
 * Latency kept in HDR histograms (hdr-histogram-js): microseconds from 1 µs to an hour, three significant
 * digits, whatever the count. Summaries are read in milliseconds; a histogram travels in a result as the
 * library's compressed base64 text, so results can be merged and compared later.
 */
import * as hdr from 'hdr-histogram-js';

const HIGHEST_US = 3_600_000_000;

export type LatencyHistogram = hdr.Histogram;

export function newHistogram(): LatencyHistogram {
  return hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: HIGHEST_US, numberOfSignificantValueDigits: 3, bitBucketSize: 32 });
}

/** Records milliseconds (as whole microseconds, clamped to the range). */
export function recordMs(histogram: LatencyHistogram, ms: number): void {
  const us = Math.round(ms * 1000);
  histogram.recordValue(us < 1 ? 1 : us > HIGHEST_US ? HIGHEST_US : us);
}

/** Percentiles and the rest of a histogram, in milliseconds. */
export interface LatencySummary {
  readonly count: number;
  readonly minMs: number | undefined;
  readonly meanMs: number | undefined;
  readonly p50Ms: number | undefined;
  readonly p90Ms: number | undefined;
  readonly p99Ms: number | undefined;
  readonly p999Ms: number | undefined;
  readonly maxMs: number | undefined;
}

export function summarize(histogram: LatencyHistogram): LatencySummary {
  const count = histogram.totalCount;
  if (count === 0) return { count, minMs: undefined, meanMs: undefined, p50Ms: undefined, p90Ms: undefined, p99Ms: undefined, p999Ms: undefined, maxMs: undefined };
  const maxMs = histogram.maxValue / 1000;
  // A percentile is read as the top of its bucket, which may lie above the largest value recorded.
  const at = (percentile: number): number => Math.min(maxMs, histogram.getValueAtPercentile(percentile) / 1000);
  return {
    count,
    minMs: histogram.minNonZeroValue / 1000,
    meanMs: histogram.mean / 1000,
    p50Ms: at(50),
    p90Ms: at(90),
    p99Ms: at(99),
    p999Ms: at(99.9),
    maxMs,
  };
}

/** The percentiles the distribution chart plots (the HDR "latency by percentile" spectrum). */
export const SPECTRUM = [0, 10, 20, 30, 40, 50, 60, 70, 75, 80, 85, 90, 92.5, 95, 96, 97, 97.5, 98, 98.5, 99, 99.25, 99.5, 99.75, 99.9, 99.95, 99.99, 99.999, 100] as const;

/** Latency (ms) at each percentile of {@link SPECTRUM}. */
export function spectrum(histogram: LatencyHistogram): { readonly percentile: number; readonly ms: number }[] {
  if (histogram.totalCount === 0) return [];
  return SPECTRUM.map((percentile) => ({ percentile, ms: histogram.getValueAtPercentile(percentile) / 1000 }));
}

export function encodeHistogram(histogram: LatencyHistogram): string {
  return hdr.encodeIntoCompressedBase64(histogram);
}
