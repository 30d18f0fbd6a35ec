/**
 * Durations, sizes, rates and counts as people write and read them: `30s`, `500ms`, `2m`, `1h`; `64KB`, `2MB`;
 * `1.5%`. Parsing throws a RangeError that echoes what was given and shows what would be right.
 */

const DURATION_UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `30s`, `500ms`, `2m`, `1h`, `1.5s`; a bare number is seconds. Returns milliseconds. */
export function parseDuration(raw: string | number, what = 'a duration'): number {
  if (typeof raw === 'number') {
    if (Number.isFinite(raw) && raw >= 0) return raw * 1000;
    throw new RangeError(`${what} must be zero or more seconds, got ${String(raw)}`);
  }
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(raw);
  if (match === null) throw new RangeError(`${what} must be a duration such as 30s, 500ms, 2m or 1h, got ${JSON.stringify(raw)}`);
  return Number(match[1]) * (DURATION_UNITS[match[2] ?? 's'] ?? 1000);
}

const SIZE_UNITS: Readonly<Record<string, number>> = { b: 1, kb: 1024, k: 1024, mb: 1024 ** 2, m: 1024 ** 2, gb: 1024 ** 3, g: 1024 ** 3 };

/** `2MB`, `512KB`, `1024` (bytes), `1.5GB`: binary units (1 KB = 1024 bytes). Returns bytes. */
export function parseBytes(raw: string | number, what = 'a size'): number {
  if (typeof raw === 'number') {
    if (Number.isFinite(raw) && raw >= 0) return raw;
    throw new RangeError(`${what} must be zero or more bytes, got ${String(raw)}`);
  }
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(raw);
  const unit = SIZE_UNITS[(match?.[2] ?? '').toLowerCase() || 'b'];
  if (match === null || unit === undefined) throw new RangeError(`${what} must be a size such as 2MB, 512KB or 1048576, got ${JSON.stringify(raw)}`);
  return Math.round(Number(match[1]) * unit);
}

/** `1%`, `0.5%` or a fraction `0.01`. Returns a fraction in [0, 1]. */
export function parseFraction(raw: string | number, what = 'a rate'): number {
  const text = String(raw).trim();
  const percent = text.endsWith('%');
  const value = Number(percent ? text.slice(0, -1) : text);
  const fraction = percent ? value / 100 : value;
  if (text === '' || text === '%' || !Number.isFinite(fraction) || fraction < 0 || fraction > 1) {
    throw new RangeError(`${what} must be a percentage such as 1% or a fraction such as 0.01, got ${JSON.stringify(raw)}`);
  }
  return fraction;
}

/** Milliseconds for people: `0.42 ms`, `12.3 ms`, `1.25 s`. */
export function formatMs(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return '-';
  if (ms >= 10_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  if (ms >= 100) return `${ms.toFixed(0)} ms`;
  if (ms >= 10) return `${ms.toFixed(1)} ms`;
  return `${ms.toFixed(2)} ms`;
}

/** A count with thousands separators: `12,345`. */
export function formatCount(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

/** Bytes for people: `84.2 MB`, `512 KB`. */
export function formatBytes(bytes: number | undefined): string {
  if (bytes === undefined || !Number.isFinite(bytes)) return '-';
  if (bytes >= 1024 ** 3) return `${(bytes / 1024 ** 3).toFixed(2)} GB`;
  if (bytes >= 1024 ** 2) return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${Math.round(bytes)} B`;
}

/** Seconds from a run's start, as shown on a timeline: `12.3s`. */
export function formatAt(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

/** A share as a percentage: `12.5%`. */
export function formatPercent(fraction: number | undefined, digits = 1): string {
  if (fraction === undefined || !Number.isFinite(fraction)) return '-';
  return `${(fraction * 100).toFixed(digits)}%`;
}
