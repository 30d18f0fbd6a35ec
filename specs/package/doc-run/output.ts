/**
 * Comparing what a command printed with the output a page shows. The page may elide: a line that is only `...`
 * stands for any number of lines, and `...` inside a line for any text (ids, times, a random port). What a
 * terminal shows is worked out from the raw bytes of a pseudo-terminal first: cursor moves and line erasures
 * applied, so a progress bar redrawn in place and then cleared leaves nothing, as on screen.
 */

const ELLIPSIS = '...';

/** The lines a terminal shows after receiving `raw` (the subset of escape sequences CLIs use for bars and spinners). */
export function renderTerminal(raw: string): string[] {
  const rows: string[][] = [[]];
  let row = 0;
  let column = 0;
  let saved = { row: 0, column: 0 };
  const chars = [...raw];
  const line = (): string[] => (rows[row] ??= []);
  for (let index = 0; index < chars.length; index += 1) {
    const char = chars[index] ?? '';
    if (char === '\x1b') {
      const next = chars[index + 1];
      if (next === '7' || next === '8') {
        if (next === '7') saved = { row, column };
        else ({ row, column } = saved);
        index += 1;
      } else if (next === '[') {
        let end = index + 2;
        while (end < chars.length && !/[@-~]/.test(chars[end] ?? '')) end += 1;
        const params = chars.slice(index + 2, end).join('');
        const count = Number.parseInt(params.replace(/^\?/, ''), 10);
        const final = chars[end];
        if (final === 'G') column = Math.max(0, (Number.isNaN(count) ? 1 : count) - 1);
        else if (final === 'K') {
          const current = line();
          if (Number.isNaN(count) || count === 0) current.length = Math.min(current.length, column);
          else if (count === 1) current.fill(' ', 0, column);
          else current.length = 0;
        } else if (final === 'A') row = Math.max(0, row - (Number.isNaN(count) ? 1 : count));
        else if (final === 'B') row += Number.isNaN(count) ? 1 : count;
        else if (final === 'C') column += Number.isNaN(count) ? 1 : count;
        else if (final === 'D') column = Math.max(0, column - (Number.isNaN(count) ? 1 : count));
        index = end;
      } else if (next === ']') {
        // An operating system command (a window title): up to BEL or ST.
        while (index < chars.length && chars[index] !== '\x07' && !(chars[index] === '\x1b' && chars[index + 1] === '\\')) index += 1;
      } else index += 1;
    } else if (char === '\r') column = 0;
    else if (char === '\n') {
      row += 1;
      column = 0;
      line();
    } else if (char === '\b') column = Math.max(0, column - 1);
    else if (char >= ' ' || char === '\t') {
      const current = line();
      while (current.length < column) current.push(' ');
      current[column] = char;
      column += 1;
    }
  }
  return Array.from({ length: rows.length }, (_, index) => (rows[index] ?? []).join('').trimEnd());
}

/** Lines without trailing spaces, and without the empty lines at either end. */
export function tidyLines(lines: readonly string[]): string[] {
  const tidy = lines.map((text) => text.trimEnd());
  while (tidy.length > 0 && tidy[0] === '') tidy.shift();
  while (tidy.length > 0 && tidy.at(-1) === '') tidy.pop();
  return tidy;
}

/** Undefined when `actual` is what `expected` shows, else a message with both. */
export function outputMismatch(expected: readonly string[], actual: readonly string[]): string | undefined {
  const want = tidyLines(expected);
  const got = tidyLines(actual);
  if (matches(want, 0, got, 0, new Map())) return undefined;
  return `the page shows:\n${indent(want)}\nthe command printed:\n${indent(got)}`;
}

function matches(want: readonly string[], w: number, got: readonly string[], g: number, memo: Map<string, boolean>): boolean {
  const key = `${w}:${g}`;
  const known = memo.get(key);
  if (known !== undefined) return known;
  let result: boolean;
  if (w === want.length) result = g === got.length;
  else if (want[w] === ELLIPSIS) result = matches(want, w + 1, got, g, memo) || (g < got.length && matches(want, w, got, g + 1, memo));
  else result = g < got.length && lineMatches(want[w] ?? '', got[g] ?? '') && matches(want, w + 1, got, g + 1, memo);
  memo.set(key, result);
  return result;
}

function lineMatches(want: string, got: string): boolean {
  if (!want.includes(ELLIPSIS)) return want === got;
  const pattern = want.split(ELLIPSIS).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*?');
  return new RegExp(`^${pattern}$`).test(got);
}

function indent(lines: readonly string[]): string {
  return lines.map((text) => `    | ${text}`).join('\n');
}
