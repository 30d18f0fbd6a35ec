/**
 * A child's stderr as an Observable of text lines. The stream is read from the start (a child blocks once
 * its stderr pipe is full), and the most recent lines are replayed to late subscribers, so what a server
 * printed while starting is not lost. Lines are split on `\n` (a trailing `\r` is dropped); a line longer
 * than `maxLineChars` arrives in pieces of that size, so a child that never writes a newline cannot grow
 * memory. Completes when stderr ends.
 */
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { type Observable, ReplaySubject } from 'rxjs';

export const STDERR_REPLAY_LINES = 100;
export const STDERR_MAX_LINE_CHARS = 16 * 1024;

export function stderrLines(stream: Readable, maxLineChars = STDERR_MAX_LINE_CHARS, replay = STDERR_REPLAY_LINES): Observable<string> {
  const lines = new ReplaySubject<string>(replay);
  const decoder = new StringDecoder('utf8');
  let partial = '';
  let done = false;
  const emit = (line: string): void => lines.next(line.endsWith('\r') ? line.slice(0, -1) : line);
  const take = (text: string): void => {
    const rest = partial + text;
    let start = 0;
    for (let newline = rest.indexOf('\n'); newline !== -1; newline = rest.indexOf('\n', start)) {
      emit(rest.slice(start, newline));
      start = newline + 1;
    }
    for (; rest.length - start > maxLineChars; start += maxLineChars) lines.next(rest.slice(start, start + maxLineChars));
    partial = rest.slice(start);
  };
  const finish = (): void => {
    if (done) return;
    done = true;
    take(decoder.end());
    if (partial.length > 0) emit(partial);
    partial = '';
    lines.complete();
  };
  stream.on('data', (chunk: Buffer | string) => {
    if (!done) take(typeof chunk === 'string' ? chunk : decoder.write(chunk));
  });
  stream.once('end', finish);
  stream.once('close', finish);
  // After an error the stream closes; what was read is kept.
  stream.on('error', () => undefined);
  return lines.asObservable();
}
