/**
 * The report's charts, drawn here as inline SVG (no library, no network): line charts over time or over the
 * percentile spectrum, on a linear or logarithmic axis, and stacked bars, with shaded bands and marked moments
 * (the warm-up, each fault from its start to its recovery). Each series is one `<path>`; a chart with nothing
 * to draw says so in words instead of drawing empty axes.
 */

export interface ChartSeries {
  readonly name: string;
  readonly color: string;
  /** x, y; an undefined y leaves a gap. */
  readonly points: readonly (readonly [number, number | undefined])[];
  readonly dashed?: boolean;
}

export interface ChartBand {
  readonly from: number;
  readonly to: number;
  readonly label: string;
  readonly color: string;
}

export interface ChartOptions {
  readonly id: string;
  readonly title: string;
  readonly yLabel: string;
  readonly xLabel: string;
  readonly series: readonly ChartSeries[];
  readonly bands?: readonly ChartBand[];
  /** Logarithmic y (latency): values at or below 0 are left out. */
  readonly logY?: boolean;
  /** Stacked bars per x (counts per interval) instead of lines. */
  readonly bars?: boolean;
  readonly formatX?: (x: number) => string;
  readonly formatY?: (y: number) => string;
  /** Fixed x ticks (the percentile spectrum's nines), as [x, label]. */
  readonly xTicks?: readonly (readonly [number, string])[];
}

const WIDTH = 880;
const HEIGHT = 260;
const MARGIN = { left: 64, right: 16, top: 28, bottom: 40 };

export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function niceStep(span: number, count: number): number {
  const raw = span / Math.max(1, count);
  const power = 10 ** Math.floor(Math.log10(raw));
  const fraction = raw / power;
  return (fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10) * power;
}

const defaultFormat = (value: number): string => (Math.abs(value) >= 1000 ? value.toLocaleString('en-US', { maximumFractionDigits: 0 }) : Number(value.toPrecision(3)).toString());

export function chart(options: ChartOptions): string {
  const values = options.series.flatMap((series) => series.points.map(([, y]) => y).filter((y): y is number => y !== undefined && Number.isFinite(y) && (!options.logY || y > 0)));
  const xs = options.series.flatMap((series) => series.points.map(([x]) => x));
  const head = `<figure class="chart" data-chart="${escapeXml(options.id)}"><figcaption>${escapeXml(options.title)}</figcaption>`;
  if (values.length === 0 || xs.length === 0) return `${head}<p class="empty">Nothing to draw: no ${escapeXml(options.yLabel)} was measured.</p></figure>`;
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const xMin = Math.min(...xs, ...(options.bands ?? []).map((band) => band.from));
  const xMax = Math.max(...xs, ...(options.bands ?? []).map((band) => band.to), xMin + 1e-9);
  const stackedMax = options.bars
    ? Math.max(...xs.map((x) => options.series.reduce((total, series) => total + (series.points.find(([px]) => px === x)?.[1] ?? 0), 0)))
    : 0;
  let yMin = options.logY ? Math.min(...values) : 0;
  let yMax = options.bars ? stackedMax : Math.max(...values);
  if (options.logY) {
    yMin = 10 ** Math.floor(Math.log10(yMin));
    yMax = 10 ** Math.ceil(Math.log10(yMax * 1.0001));
    if (yMax <= yMin) yMax = yMin * 10;
  } else {
    yMax = yMax <= 0 ? 1 : yMax * 1.08;
  }
  const sx = (x: number): number => MARGIN.left + ((x - xMin) / (xMax - xMin)) * plotW;
  const sy = options.logY
    ? (y: number): number => MARGIN.top + plotH - ((Math.log10(y) - Math.log10(yMin)) / (Math.log10(yMax) - Math.log10(yMin))) * plotH
    : (y: number): number => MARGIN.top + plotH - ((y - yMin) / (yMax - yMin)) * plotH;
  const formatX = options.formatX ?? defaultFormat;
  const formatY = options.formatY ?? defaultFormat;
  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" role="img" aria-label="${escapeXml(options.title)}">`);
  parts.push(`<rect class="plot" x="${MARGIN.left}" y="${MARGIN.top}" width="${plotW}" height="${plotH}" fill="#fcfcfd" stroke="#d0d4dc"/>`);
  for (const band of options.bands ?? []) {
    const x0 = sx(Math.max(xMin, band.from));
    const x1 = Math.max(x0 + 2, sx(Math.min(xMax, band.to)));
    parts.push(`<rect class="band" x="${x0.toFixed(1)}" y="${MARGIN.top}" width="${(x1 - x0).toFixed(1)}" height="${plotH}" fill="${band.color}" fill-opacity="0.18"><title>${escapeXml(band.label)}</title></rect>`);
    parts.push(`<line class="marker" x1="${x0.toFixed(1)}" x2="${x0.toFixed(1)}" y1="${MARGIN.top}" y2="${MARGIN.top + plotH}" stroke="${band.color}" stroke-width="1.5"/>`);
    parts.push(`<text x="${(x0 + 3).toFixed(1)}" y="${MARGIN.top + 12}" font-size="11" fill="${band.color}">${escapeXml(band.label)}</text>`);
  }
  // y grid and labels
  const yTicks: number[] = [];
  if (options.logY) for (let y = yMin; y <= yMax * 1.0001; y *= 10) yTicks.push(y);
  else {
    const step = niceStep(yMax - yMin, 5);
    for (let y = yMin; y <= yMax + 1e-9; y += step) yTicks.push(y);
  }
  for (const y of yTicks) {
    const py = sy(y).toFixed(1);
    parts.push(`<line x1="${MARGIN.left}" x2="${MARGIN.left + plotW}" y1="${py}" y2="${py}" stroke="#e4e7ec"/>`);
    parts.push(`<text x="${MARGIN.left - 6}" y="${py}" font-size="11" text-anchor="end" dominant-baseline="middle" fill="#555">${escapeXml(formatY(y))}</text>`);
  }
  const xTicks = options.xTicks ?? (() => {
    const step = niceStep(xMax - xMin, 8);
    const ticks: [number, string][] = [];
    for (let x = Math.ceil(xMin / step) * step; x <= xMax + 1e-9; x += step) ticks.push([x, formatX(x)]);
    return ticks;
  })();
  for (const [x, label] of xTicks) {
    const px = sx(x).toFixed(1);
    parts.push(`<line x1="${px}" x2="${px}" y1="${MARGIN.top + plotH}" y2="${MARGIN.top + plotH + 4}" stroke="#888"/>`);
    parts.push(`<text x="${px}" y="${MARGIN.top + plotH + 16}" font-size="11" text-anchor="middle" fill="#555">${escapeXml(label)}</text>`);
  }
  parts.push(`<text x="${MARGIN.left + plotW / 2}" y="${HEIGHT - 4}" font-size="11" text-anchor="middle" fill="#333">${escapeXml(options.xLabel)}</text>`);
  parts.push(`<text transform="translate(14 ${MARGIN.top + plotH / 2}) rotate(-90)" font-size="11" text-anchor="middle" fill="#333">${escapeXml(options.yLabel)}</text>`);
  parts.push(options.bars ? bars(options.series, sx, sy, plotW, xs) : lines(options.series, sx, sy, options.logY === true));
  // legend
  let lx = MARGIN.left;
  for (const series of options.series) {
    parts.push(`<rect x="${lx}" y="8" width="12" height="4" fill="${series.color}"/><text x="${lx + 16}" y="13" font-size="11" fill="#333">${escapeXml(series.name)}</text>`);
    lx += 24 + series.name.length * 6.5;
  }
  parts.push('</svg>');
  return `${head}${parts.join('')}</figure>`;
}

function lines(series: readonly ChartSeries[], sx: (x: number) => number, sy: (y: number) => number, logY: boolean): string {
  return series
    .map((one) => {
      let d = '';
      let pen = false;
      for (const [x, y] of one.points) {
        if (y === undefined || !Number.isFinite(y) || (logY && y <= 0)) {
          pen = false;
          continue;
        }
        d += `${pen ? 'L' : 'M'}${sx(x).toFixed(1)} ${sy(y).toFixed(1)}`;
        pen = true;
      }
      if (d === '') return '';
      return `<path class="series" data-series="${escapeXml(one.name)}" d="${d}" fill="none" stroke="${one.color}" stroke-width="2"${one.dashed === true ? ' stroke-dasharray="5 4"' : ''}/>`;
    })
    .join('');
}

function bars(series: readonly ChartSeries[], sx: (x: number) => number, sy: (y: number) => number, plotW: number, xs: readonly number[]): string {
  const distinct = [...new Set(xs)].sort((a, b) => a - b);
  const width = Math.max(2, (plotW / Math.max(1, distinct.length)) * 0.7);
  const base = new Map<number, number>();
  return series
    .map((one) => {
      let d = '';
      for (const [x, y] of one.points) {
        if (y === undefined || y <= 0) continue;
        const below = base.get(x) ?? 0;
        const top = sy(below + y);
        const bottom = sy(below);
        base.set(x, below + y);
        const left = sx(x) - width / 2;
        d += `M${left.toFixed(1)} ${bottom.toFixed(1)}V${top.toFixed(1)}H${(left + width).toFixed(1)}V${bottom.toFixed(1)}Z`;
      }
      return d === '' ? '' : `<path class="series" data-series="${escapeXml(one.name)}" d="${d}" fill="${one.color}"/>`;
    })
    .join('');
}
