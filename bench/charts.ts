/**
 * Dependency-free SVG charts for the benchmark report: line charts (linear or log axes) and grouped bar charts.
 * Pure functions from data to SVG text; `writeCharts` puts them on disk. Colours follow the Okabe–Ito palette
 * (distinguishable with the common colour-vision deficiencies) and every series also has its own marker shape,
 * so a chart still reads in greyscale.
 *
 *   const svg = lineChartSvg({ title: 'tools/call over stdio', xLabel: 'in flight', yLabel: 'calls/s', xScale: 'log',
 *                              series: [{ name: 'rxmcp', points: [{ x: 1, y: 300_000 }, { x: 64, y: 320_000 }] }] });
 *   writeCharts('bench/charts', [{ file: 'stdio.svg', svg }]);
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export type ScaleKind = 'linear' | 'log';

export interface ChartPoint {
  readonly x: number;
  readonly y: number;
}

export interface LineSeries {
  readonly name: string;
  readonly points: readonly ChartPoint[];
  /** Draws the line dashed (for floors and other reference series). */
  readonly dashed?: boolean;
}

export interface LineChartOptions {
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly xScale: ScaleKind;
  /** Default linear; a linear y axis starts at 0 unless a value is negative. */
  readonly yScale?: ScaleKind;
  readonly series: readonly LineSeries[];
  /** Pixels, default 760 × 440. */
  readonly width?: number;
  readonly height?: number;
  /** Tick positions to use instead of computed ones (say the concurrency levels measured: 1, 8, 64). */
  readonly xTicks?: readonly number[];
  readonly yTicks?: readonly number[];
  /** A line under the title (units, machine, date). */
  readonly subtitle?: string;
}

export interface BarSeries {
  readonly name: string;
  /** One value per group, in the order of `groups`; null, undefined or a non-finite number leaves a gap marked "n/a". */
  readonly values: readonly (number | null | undefined)[];
}

export interface BarChartOptions {
  readonly title: string;
  /** The categories along the x axis (say transports: in-process, stdio, HTTP, NATS). */
  readonly groups: readonly string[];
  /** One series per contender: one bar in each group. */
  readonly series: readonly BarSeries[];
  readonly yLabel: string;
  readonly xLabel?: string;
  readonly yScale?: ScaleKind;
  readonly width?: number;
  readonly height?: number;
  /** Print each bar's value above it (default true). */
  readonly valueLabels?: boolean;
  readonly subtitle?: string;
}

export interface ChartFile {
  /** A file name (or path) relative to the directory given to {@link writeCharts}. */
  readonly file: string;
  readonly svg: string;
}

/** Okabe–Ito colours, then a few more distinct ones. */
export const chartColors: readonly string[] = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000', '#8C564B', '#7F7F7F'];

export type MarkerShape = 'circle' | 'square' | 'triangle' | 'diamond' | 'cross' | 'triangle-down' | 'plus' | 'star';
export const markerShapes: readonly MarkerShape[] = ['circle', 'square', 'triangle', 'diamond', 'cross', 'triangle-down', 'plus', 'star'];

const FONT = "system-ui, -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif";
const AXIS = '#333333';
const GRID = '#e3e3e3';
const MINOR_GRID = '#f1f1f1';

// ---------------------------------------------------------------------------------------------------------
// Numbers and text

/** Escapes text for SVG content and attribute values. */
export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** Rounds for SVG coordinates: two decimals, no trailing zeros. */
function px(value: number): string {
  return String(Math.round(value * 100) / 100);
}

/** Up to `digits` significant decimals, trailing zeros removed. */
function trim(value: number, digits: number): string {
  const fixed = value.toFixed(digits);
  return fixed.includes('.') ? fixed.replace(/\.?0+$/, '') : fixed;
}

/**
 * A short, readable label for a tick or a value: 1k, 10k, 2.5k, 100k, 1.2M, 3G; 0.5, 0.05; plain integers below
 * 1000. Negative numbers keep their sign.
 */
export function formatTick(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (value === 0) return '0';
  const sign = value < 0 ? '-' : '';
  const abs = Math.abs(value);
  const units: readonly [number, string][] = [[1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'k']];
  for (const [scale, suffix] of units) {
    if (abs >= scale) {
      const scaled = abs / scale;
      return `${sign}${trim(scaled, scaled >= 100 ? 0 : scaled >= 10 ? 1 : 2)}${suffix}`;
    }
  }
  if (abs >= 100) return `${sign}${trim(abs, 0)}`;
  if (abs >= 1) return `${sign}${trim(abs, 2)}`;
  // Small numbers: two significant digits.
  const digits = Math.min(10, 1 - Math.floor(Math.log10(abs)));
  return `${sign}${trim(abs, digits)}`;
}

/** A step of 1, 2, 2.5 or 5 × 10^k near `raw`. */
function niceStep(raw: number): number {
  if (!(raw > 0) || !Number.isFinite(raw)) return 1;
  const power = 10 ** Math.floor(Math.log10(raw));
  const fraction = raw / power;
  const nice = fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 2.5 ? 2.5 : fraction <= 5 ? 5 : 10;
  return nice * power;
}

// ---------------------------------------------------------------------------------------------------------
// Scales

interface Scale {
  readonly kind: ScaleKind;
  readonly min: number;
  readonly max: number;
  /** Labelled ticks. */
  readonly ticks: readonly number[];
  /** Unlabelled grid lines between ticks (log scales). */
  readonly minor: readonly number[];
  /** Maps a value in [min, max] to [0, 1]. */
  unit(value: number): number;
}

function linearScale(values: readonly number[], fromZero: boolean, fixed: readonly number[] | undefined, targetTicks = 6): Scale {
  let lo = Math.min(...values, ...(fixed ?? []));
  let hi = Math.max(...values, ...(fixed ?? []));
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) [lo, hi] = [0, 1];
  if (fromZero && lo > 0) lo = 0;
  if (fromZero && hi < 0) hi = 0;
  if (lo === hi) [lo, hi] = lo === 0 ? [0, 1] : [lo - Math.abs(lo) * 0.5, hi + Math.abs(hi) * 0.5];
  let ticks: number[];
  if (fixed !== undefined && fixed.length > 0) {
    ticks = [...fixed].sort((a, b) => a - b);
  } else {
    const step = niceStep((hi - lo) / (targetTicks - 1));
    lo = Math.floor(lo / step + 1e-9) * step;
    hi = Math.ceil(hi / step - 1e-9) * step;
    ticks = [];
    for (let v = lo; v <= hi + step * 1e-6; v += step) ticks.push(Math.abs(v) < step * 1e-9 ? 0 : v);
  }
  const [min, max] = [lo, hi];
  return { kind: 'linear', min, max, ticks, minor: [], unit: (v) => (v - min) / (max - min) };
}

function logScale(values: readonly number[], fixed: readonly number[] | undefined): Scale {
  const positive = [...values, ...(fixed ?? [])].filter((v) => v > 0 && Number.isFinite(v));
  let lo = positive.length === 0 ? 1 : Math.min(...positive);
  let hi = positive.length === 0 ? 10 : Math.max(...positive);
  let ticks: number[];
  const minor: number[] = [];
  if (fixed !== undefined && fixed.length > 0) {
    // The ticks given, with a little room either side so end points are not on the frame.
    ticks = [...fixed].filter((v) => v > 0).sort((a, b) => a - b);
    const pad = Math.max(0.08, (Math.log10(hi) - Math.log10(lo)) * 0.06);
    lo = 10 ** (Math.log10(lo) - pad);
    hi = 10 ** (Math.log10(hi) + pad);
  } else {
    const first = Math.floor(Math.log10(lo) + 1e-9);
    let last = Math.ceil(Math.log10(hi) - 1e-9);
    if (last === first) last = first + 1;
    lo = 10 ** first;
    hi = 10 ** last;
    const decades = last - first;
    ticks = [];
    for (let e = first; e <= last; e++) {
      const decade = 10 ** e;
      ticks.push(decade);
      if (e === last) break;
      for (let m = 2; m <= 9; m++) {
        // Few decades: label 2 and 5 too, so the axis has enough numbers to read values from.
        if (decades <= 2 && (m === 2 || m === 5)) ticks.push(m * decade);
        else minor.push(m * decade);
      }
    }
  }
  const [lmin, lmax] = [Math.log10(lo), Math.log10(hi)];
  return { kind: 'log', min: lo, max: hi, ticks, minor, unit: (v) => (Math.log10(v) - lmin) / (lmax - lmin) };
}

function makeScale(kind: ScaleKind, values: readonly number[], fromZero: boolean, fixed: readonly number[] | undefined): Scale {
  return kind === 'log' ? logScale(values, fixed) : linearScale(values, fromZero, fixed);
}

/** Whether a value can be drawn on a scale of this kind. */
function drawable(kind: ScaleKind, value: number): boolean {
  return Number.isFinite(value) && (kind === 'linear' || value > 0);
}

// ---------------------------------------------------------------------------------------------------------
// Markers

/** An SVG element for a marker of `shape` centred at (x, y), radius about `r`. */
export function markerSvg(shape: MarkerShape, x: number, y: number, r: number, color: string): string {
  const fill = `fill="${color}" stroke="#ffffff" stroke-width="1"`;
  const line = `fill="none" stroke="${color}" stroke-width="2.2" stroke-linecap="round"`;
  const poly = (points: readonly (readonly [number, number])[], attrs: string): string =>
    `<polygon points="${points.map(([a, b]) => `${px(x + a)},${px(y + b)}`).join(' ')}" ${attrs}/>`;
  switch (shape) {
    case 'circle':
      return `<circle cx="${px(x)}" cy="${px(y)}" r="${px(r)}" ${fill}/>`;
    case 'square': {
      const s = r * 0.9;
      return `<rect x="${px(x - s)}" y="${px(y - s)}" width="${px(2 * s)}" height="${px(2 * s)}" ${fill}/>`;
    }
    case 'triangle':
      return poly([[0, -r * 1.15], [r * 1.05, r * 0.75], [-r * 1.05, r * 0.75]], fill);
    case 'triangle-down':
      return poly([[0, r * 1.15], [r * 1.05, -r * 0.75], [-r * 1.05, -r * 0.75]], fill);
    case 'diamond':
      return poly([[0, -r * 1.25], [r * 1.05, 0], [0, r * 1.25], [-r * 1.05, 0]], fill);
    case 'cross': {
      const s = r * 0.85;
      return `<path d="M${px(x - s)},${px(y - s)}L${px(x + s)},${px(y + s)}M${px(x - s)},${px(y + s)}L${px(x + s)},${px(y - s)}" ${line}/>`;
    }
    case 'plus': {
      const s = r * 1.05;
      return `<path d="M${px(x - s)},${px(y)}L${px(x + s)},${px(y)}M${px(x)},${px(y - s)}L${px(x)},${px(y + s)}" ${line}/>`;
    }
    case 'star': {
      const points: [number, number][] = [];
      for (let i = 0; i < 10; i++) {
        const radius = i % 2 === 0 ? r * 1.3 : r * 0.55;
        const angle = -Math.PI / 2 + (i * Math.PI) / 5;
        points.push([radius * Math.cos(angle), radius * Math.sin(angle)]);
      }
      return poly(points, fill);
    }
  }
}

const colorAt = (index: number): string => chartColors[index % chartColors.length] ?? '#000000';
const shapeAt = (index: number): MarkerShape => markerShapes[index % markerShapes.length] ?? 'circle';

// ---------------------------------------------------------------------------------------------------------
// Shared frame: title, axes, legend

interface Box {
  readonly left: number;
  readonly top: number;
  readonly right: number;
  readonly bottom: number;
}

function text(x: number, y: number, content: string, attrs = ''): string {
  return `<text x="${px(x)}" y="${px(y)}"${attrs === '' ? '' : ` ${attrs}`}>${escapeXml(content)}</text>`;
}

/** Rough width of `content` at `size` px in a sans-serif font (for layout only). */
function textWidth(content: string, size: number): number {
  let units = 0;
  for (const ch of content) units += /[il.,:;|!'1 ]/.test(ch) ? 0.32 : /[mwMW@%]/.test(ch) ? 0.85 : /[A-Z0-9]/.test(ch) ? 0.64 : 0.54;
  return units * size;
}

function header(width: number, height: number, title: string, subtitle: string | undefined): string[] {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="${escapeXml(FONT)}" role="img" aria-label="${escapeXml(title)}">`,
    `<title>${escapeXml(title)}</title>`,
    `<rect x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`,
    text(width / 2, 26, title, 'text-anchor="middle" font-size="17" font-weight="600" fill="#111111"'),
    ...(subtitle === undefined ? [] : [text(width / 2, 45, subtitle, 'text-anchor="middle" font-size="12" fill="#555555"')]),
  ];
}

function legendWidth(names: readonly string[]): number {
  return Math.min(230, Math.max(96, ...names.map((n) => 54 + textWidth(n, 12))));
}

interface LegendEntry {
  readonly name: string;
  readonly color: string;
  readonly shape: MarkerShape;
  readonly kind: 'line' | 'bar';
  readonly dashed?: boolean;
}

function legend(entries: readonly LegendEntry[], x: number, y: number, width: number): string[] {
  const rowHeight = 22;
  const out = [
    `<rect x="${px(x)}" y="${px(y)}" width="${px(width)}" height="${px(entries.length * rowHeight + 12)}" rx="4" fill="#ffffff" stroke="#d0d0d0"/>`,
  ];
  entries.forEach((entry, i) => {
    const cy = y + 6 + rowHeight * i + rowHeight / 2;
    if (entry.kind === 'line') {
      out.push(`<line x1="${px(x + 8)}" y1="${px(cy)}" x2="${px(x + 34)}" y2="${px(cy)}" stroke="${entry.color}" stroke-width="2.2"${entry.dashed === true ? ' stroke-dasharray="6 4"' : ''}/>`);
      out.push(markerSvg(entry.shape, x + 21, cy, 4.5, entry.color));
    } else {
      out.push(`<rect x="${px(x + 12)}" y="${px(cy - 7)}" width="18" height="14" fill="${entry.color}"/>`);
    }
    out.push(text(x + 42, cy + 4, entry.name, 'font-size="12" fill="#222222"'));
  });
  return out;
}

/** Gridlines, ticks and tick labels of the y axis, the axis label, and the frame of the plot area. */
function yAxis(scale: Scale, box: Box, label: string): string[] {
  const out: string[] = [];
  const yOf = (v: number): number => box.bottom - scale.unit(v) * (box.bottom - box.top);
  for (const v of scale.minor) {
    if (v < scale.min || v > scale.max) continue;
    out.push(`<line x1="${px(box.left)}" y1="${px(yOf(v))}" x2="${px(box.right)}" y2="${px(yOf(v))}" stroke="${MINOR_GRID}"/>`);
  }
  for (const v of scale.ticks) {
    if (v < scale.min - 1e-9 * Math.abs(scale.max) || v > scale.max * (1 + 1e-9) + 1e-12) continue;
    const y = yOf(v);
    out.push(`<line x1="${px(box.left)}" y1="${px(y)}" x2="${px(box.right)}" y2="${px(y)}" stroke="${GRID}"/>`);
    out.push(`<line x1="${px(box.left - 5)}" y1="${px(y)}" x2="${px(box.left)}" y2="${px(y)}" stroke="${AXIS}"/>`);
    out.push(text(box.left - 8, y + 4, formatTick(v), 'text-anchor="end" font-size="12" fill="#333333"'));
  }
  const mid = (box.top + box.bottom) / 2;
  out.push(text(18, mid, label, `text-anchor="middle" font-size="13" fill="#222222" transform="rotate(-90 18 ${px(mid)})"`));
  return out;
}

function frame(box: Box): string {
  return `<path d="M${px(box.left)},${px(box.top)}V${px(box.bottom)}H${px(box.right)}" fill="none" stroke="${AXIS}" stroke-width="1.2"/>`;
}

// ---------------------------------------------------------------------------------------------------------
// Line chart

/** A line chart: one line with markers per series, log or linear axes, a legend on the right. */
export function lineChartSvg(options: LineChartOptions): string {
  const width = options.width ?? 760;
  const height = options.height ?? 440;
  const yKind = options.yScale ?? 'linear';
  const series = options.series.map((s) => ({
    ...s,
    points: s.points.filter((p) => drawable(options.xScale, p.x) && drawable(yKind, p.y)).sort((a, b) => a.x - b.x),
  }));
  const xs = series.flatMap((s) => s.points.map((p) => p.x));
  const ys = series.flatMap((s) => s.points.map((p) => p.y));
  const xScale = makeScale(options.xScale, xs, false, options.xTicks);
  const yScale = makeScale(yKind, ys, true, options.yTicks);

  const lw = legendWidth(series.map((s) => (s.points.length === 0 ? `${s.name} (no data)` : s.name)));
  const yLabelWidth = Math.max(...yScale.ticks.map((t) => textWidth(formatTick(t), 12)), 20);
  const top = options.subtitle === undefined ? 48 : 64;
  const box: Box = { left: 40 + yLabelWidth, top, right: width - lw - 34, bottom: height - 58 };
  const xOf = (v: number): number => box.left + xScale.unit(v) * (box.right - box.left);
  const yOf = (v: number): number => box.bottom - yScale.unit(v) * (box.bottom - box.top);

  const out = header(width, height, options.title, options.subtitle);
  out.push(...yAxis(yScale, box, options.yLabel));
  for (const v of xScale.minor) {
    if (v < xScale.min || v > xScale.max) continue;
    out.push(`<line x1="${px(xOf(v))}" y1="${px(box.top)}" x2="${px(xOf(v))}" y2="${px(box.bottom)}" stroke="${MINOR_GRID}"/>`);
  }
  for (const v of xScale.ticks) {
    const x = xOf(v);
    out.push(`<line x1="${px(x)}" y1="${px(box.top)}" x2="${px(x)}" y2="${px(box.bottom)}" stroke="${GRID}"/>`);
    out.push(`<line x1="${px(x)}" y1="${px(box.bottom)}" x2="${px(x)}" y2="${px(box.bottom + 5)}" stroke="${AXIS}"/>`);
    out.push(text(x, box.bottom + 19, formatTick(v), 'text-anchor="middle" font-size="12" fill="#333333"'));
  }
  out.push(text((box.left + box.right) / 2, height - 16, options.xLabel, 'text-anchor="middle" font-size="13" fill="#222222"'));
  out.push(frame(box));

  // Clip lines to the plot area; markers are drawn unclipped so a point on the frame stays whole.
  const clipId = `plot-${Math.abs(hash(options.title)).toString(36)}`;
  out.push(`<defs><clipPath id="${clipId}"><rect x="${px(box.left)}" y="${px(box.top - 2)}" width="${px(box.right - box.left + 2)}" height="${px(box.bottom - box.top + 4)}"/></clipPath></defs>`);
  series.forEach((s, i) => {
    const color = colorAt(i);
    const label = escapeXml(s.name);
    out.push(`<g class="series" data-name="${label}">`);
    if (s.points.length > 1) {
      const d = s.points.map((p, j) => `${j === 0 ? 'M' : 'L'}${px(xOf(p.x))},${px(yOf(p.y))}`).join('');
      out.push(`<path d="${d}" fill="none" stroke="${color}" stroke-width="2.2" stroke-linejoin="round"${s.dashed === true ? ' stroke-dasharray="6 4"' : ''} clip-path="url(#${clipId})"/>`);
    }
    for (const p of s.points) {
      out.push(`<g>${markerSvg(shapeAt(i), xOf(p.x), yOf(p.y), 4.5, color)}<title>${label}: ${escapeXml(`${formatTick(p.x)} → ${formatTick(p.y)}`)}</title></g>`);
    }
    out.push('</g>');
  });
  out.push(...legend(series.map((s, i) => ({ name: s.points.length === 0 ? `${s.name} (no data)` : s.name, color: colorAt(i), shape: shapeAt(i), kind: 'line' as const, ...(s.dashed === undefined ? {} : { dashed: s.dashed }) })), box.right + 20, box.top, lw));
  if (series.every((s) => s.points.length === 0)) out.push(text((box.left + box.right) / 2, (box.top + box.bottom) / 2, 'no data', 'text-anchor="middle" font-size="14" fill="#888888"'));
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

/** A small stable string hash (for element ids unique per chart). */
function hash(value: string): number {
  let h = 0;
  for (let i = 0; i < value.length; i++) h = (Math.imul(h, 31) + value.charCodeAt(i)) | 0;
  return h;
}

// ---------------------------------------------------------------------------------------------------------
// Grouped bar chart

/** Grouped bars: one group per category along x, one bar per series in each, a legend on the right. */
export function barChartSvg(options: BarChartOptions): string {
  const width = options.width ?? 760;
  const height = options.height ?? 440;
  const yKind = options.yScale ?? 'linear';
  const valueOf = (s: BarSeries, g: number): number | undefined => {
    const v = s.values[g];
    return typeof v === 'number' && drawable(yKind, v) ? v : undefined;
  };
  const values = options.series.flatMap((s) => options.groups.map((_, g) => valueOf(s, g)).filter((v): v is number => v !== undefined));
  const showValues = options.valueLabels ?? true;
  // Headroom above the tallest bar for its value label (which may stand upright on a narrow bar).
  const peak = values.length === 0 ? undefined : Math.max(...values);
  const headroom = peak === undefined || !showValues ? [] : [yKind === 'log' ? peak * 2 : peak * 1.15];
  const scale = makeScale(yKind, [...values, ...headroom], true, undefined);

  const lw = legendWidth(options.series.map((s) => s.name));
  const yLabelWidth = Math.max(...scale.ticks.map((t) => textWidth(formatTick(t), 12)), 20);
  const top = (options.subtitle === undefined ? 48 : 64) + (showValues ? 8 : 0);
  const box: Box = { left: 40 + yLabelWidth, top, right: width - lw - 34, bottom: height - (options.xLabel === undefined ? 44 : 60) };
  const yOf = (v: number): number => box.bottom - scale.unit(v) * (box.bottom - box.top);
  const base = yKind === 'log' ? box.bottom : yOf(Math.max(scale.min, Math.min(0, scale.max)));

  const out = header(width, height, options.title, options.subtitle);
  out.push(...yAxis(scale, box, options.yLabel));

  const groupCount = Math.max(1, options.groups.length);
  const groupWidth = (box.right - box.left) / groupCount;
  const barCount = Math.max(1, options.series.length);
  const inner = groupWidth * 0.82;
  const barWidth = inner / barCount;
  const valueSize = Math.max(8, Math.min(11, barWidth * 0.42));
  options.groups.forEach((group, g) => {
    const groupLeft = box.left + g * groupWidth + (groupWidth - inner) / 2;
    const centre = box.left + (g + 0.5) * groupWidth;
    out.push(text(centre, box.bottom + 19, group, 'text-anchor="middle" font-size="12.5" fill="#222222"'));
    options.series.forEach((s, i) => {
      const x = groupLeft + i * barWidth + barWidth * 0.06;
      const w = barWidth * 0.88;
      const v = valueOf(s, g);
      if (v === undefined) {
        out.push(text(x + w / 2, base - 4, 'n/a', `text-anchor="middle" font-size="${px(Math.min(valueSize, 9))}" fill="#888888"`));
        return;
      }
      const y = yOf(v);
      const [y0, y1] = [Math.min(y, base), Math.max(y, base)];
      out.push(`<rect x="${px(x)}" y="${px(y0)}" width="${px(w)}" height="${px(Math.max(0.5, y1 - y0))}" fill="${colorAt(i)}"><title>${escapeXml(`${s.name}, ${group}: ${formatTick(v)}`)}</title></rect>`);
      if (!showValues) return;
      const label = formatTick(v);
      if (textWidth(label, valueSize) <= barWidth * 1.02) {
        out.push(text(x + w / 2, y0 - 4, label, `text-anchor="middle" font-size="${px(valueSize)}" fill="#333333"`));
      } else {
        // Too wide for the bar: stand it upright above the bar.
        const [lx, ly] = [x + w / 2 + valueSize * 0.35, y0 - 4];
        out.push(text(lx, ly, label, `text-anchor="start" font-size="${px(valueSize)}" fill="#333333" transform="rotate(-90 ${px(lx)} ${px(ly)})"`));
      }
    });
  });
  if (options.xLabel !== undefined) out.push(text((box.left + box.right) / 2, height - 14, options.xLabel, 'text-anchor="middle" font-size="13" fill="#222222"'));
  out.push(frame(box));
  out.push(...legend(options.series.map((s, i) => ({ name: s.name, color: colorAt(i), shape: shapeAt(i), kind: 'bar' as const })), box.right + 20, box.top, lw));
  if (values.length === 0) out.push(text((box.left + box.right) / 2, (box.top + box.bottom) / 2, 'no data', 'text-anchor="middle" font-size="14" fill="#888888"'));
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

// ---------------------------------------------------------------------------------------------------------
// Files

/** Writes each chart under `dir` (created if missing) and returns the absolute paths written. */
export function writeCharts(dir: string, charts: readonly ChartFile[]): string[] {
  const root = resolve(dir);
  mkdirSync(root, { recursive: true });
  return charts.map(({ file, svg }) => {
    const path = join(root, file);
    if (!path.startsWith(`${root}/`) && path !== root) throw new RangeError(`chart file ${file} is outside ${root}`);
    mkdirSync(resolve(path, '..'), { recursive: true });
    writeFileSync(path, svg);
    return path;
  });
}
