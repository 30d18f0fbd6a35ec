/**
 * A request's progress for the user, on stderr: a bar (cli-progress) on a terminal, one plain line per report
 * when stderr is piped (a log or another program reads it).
 */
import cliProgress from 'cli-progress';

export interface ProgressView {
  update(progress: number, total: number | undefined, message: string | undefined): void;
  /** Takes the bar off the line it was drawing on (before anything else is written). */
  stop(): void;
}

export function progressView(stream: NodeJS.WriteStream, label: string): ProgressView {
  return stream.isTTY === true ? barView(stream, label) : lineView(stream, label);
}

function lineView(stream: NodeJS.WritableStream, label: string): ProgressView {
  return {
    update(progress, total, message) {
      stream.write(`${label}: progress ${progress}${total === undefined ? '' : `/${total}`}${message === undefined ? '' : ` ${message}`}\n`);
    },
    stop: () => undefined,
  };
}

function barView(stream: NodeJS.WriteStream, label: string): ProgressView {
  let bar: cliProgress.SingleBar | undefined;
  return {
    update(progress, total, message) {
      if (bar === undefined) {
        // Without a total there is nothing to fill: the bar shows the count.
        const format = total === undefined ? `${label} {value} {message}` : `${label} [{bar}] {value}/{total} {message}`;
        bar = new cliProgress.SingleBar({ stream, format, hideCursor: true, clearOnComplete: true, barsize: 30 }, cliProgress.Presets.shades_classic);
        bar.start(total ?? progress, progress, { message: message ?? '' });
        return;
      }
      if (total !== undefined) bar.setTotal(total);
      bar.update(progress, { message: message ?? '' });
    },
    stop() {
      bar?.stop();
      bar = undefined;
    },
  };
}
