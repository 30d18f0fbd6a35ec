/**
 * The fenced code blocks of a Markdown page and what each says about itself. The info string after the language
 * carries the marker (GitHub shows only the language, so readers never see it):
 *
 *   ```sh run                      commands, run in order in one shell (the directory carries over)
 *   ```console run                 `$ command` lines, each followed by the output it must print
 *   ```sh start="listening at"     one command left running in the background once it printed that text
 *   ```js file=server.js           the text is written to that file (relative to the shell's directory)
 *   ```ts file=app.ts run          ... then compiled (ts) and run with plain node
 *   ```ts check="why not run"      a fragment: type-checked (js too, as TypeScript), not run
 *   ```text output                 the output the block before it must print
 *   ```sh skip="why not run"       not run; checked another way (JSON parses, rxmcp flags exist, npm scripts exist)
 *
 * and modifiers: `tty` (run in a pseudo-terminal, compared as a terminal shows it), `login` (the runner signs in
 * at the authorization URL the command prints, in headless Chromium, as the reader does in a browser),
 * `in=repo` (commands for a clone of this repository), `copy="examples/*.ts"` (before running, those files of the
 * repository are copied into the shell's directory, as the reader copies them). A fragment's missing context (a `server` made above, a
 * function of the reader's) is declared in an HTML comment right above its fence, which Markdown does not show:
 *
 *   <!-- doc-run prelude
 *   declare const server: import('rxmcp').McpServer;
 *   -->
 *
 * Every block must carry a marker, so a new block cannot go unchecked by accident.
 */

export interface DocBlock {
  /** 1-based line of the opening fence, for messages. */
  readonly line: number;
  readonly lang: string;
  readonly attrs: ReadonlyMap<string, string>;
  readonly body: string;
  /** The code of the `doc-run prelude` comment above the fence, if any. */
  readonly prelude?: string | undefined;
}

const KNOWN = new Set(['run', 'start', 'file', 'check', 'output', 'skip', 'tty', 'login', 'in', 'copy']);
/** Markers that say what happens to a block; every block has exactly one of run/start/check/output/skip, or a file. */
const ACTIONS = ['run', 'start', 'check', 'output', 'skip'] as const;
const WITH_REASON = ['check', 'skip', 'start'] as const;

/** The blocks of `markdown`, in order; a block without a valid marker is an error naming its line. */
export function docBlocks(markdown: string, name: string): DocBlock[] {
  const lines = markdown.split('\n');
  const blocks: DocBlock[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const open = /^(\s*)(`{3,})(.*)$/.exec(lines[index] ?? '');
    if (open === null) continue;
    const [, indent = '', fence = '', info = ''] = open;
    const bodyLines: string[] = [];
    let end = index + 1;
    for (; end < lines.length && !new RegExp(`^\\s*${fence}\\s*$`).test(lines[end] ?? ''); end += 1) bodyLines.push((lines[end] ?? '').slice(indent.length));
    if (end >= lines.length) throw new Error(`${name}:${index + 1}: a code fence that is never closed`);
    const where = `${name}:${index + 1}`;
    const { lang, attrs } = parseInfo(info.trim(), where);
    blocks.push({ line: index + 1, lang, attrs, body: bodyLines.join('\n'), prelude: preludeAbove(lines, index) });
    index = end;
  }
  return blocks;
}

function parseInfo(info: string, where: string): { lang: string; attrs: Map<string, string> } {
  const lang = /^\S*/.exec(info)?.[0] ?? '';
  const attrs = new Map<string, string>();
  const rest = info.slice(lang.length);
  const word = /\s+([a-z]+)(?:=(?:"([^"]*)"|([^\s"]+)))?(?=\s|$)/y;
  let read = 0;
  for (let match = word.exec(rest); match !== null; match = word.exec(rest)) {
    const [, key = '', quoted, bare] = match;
    if (!KNOWN.has(key)) throw new Error(`${where}: unknown doc-run marker ${JSON.stringify(key)} (known: ${[...KNOWN].join(', ')})`);
    attrs.set(key, quoted ?? bare ?? '');
    read = word.lastIndex;
  }
  if (rest.slice(read).trim() !== '') throw new Error(`${where}: cannot read the doc-run marker ${JSON.stringify(rest.slice(read).trim())}`);
  const actions = ACTIONS.filter((action) => attrs.has(action));
  if (actions.length === 0 && !attrs.has('file')) {
    throw new Error(`${where}: a \`\`\`${lang} block without a doc-run marker: say what CI does with it (run, start="...", file=..., check="why", output, skip="why")`);
  }
  if (actions.length > 1) throw new Error(`${where}: one of ${actions.join(', ')}, not several`);
  for (const key of WITH_REASON) {
    if (attrs.has(key) && (attrs.get(key) ?? '').trim() === '') throw new Error(`${where}: ${key} needs its text (${key}="...")`);
  }
  return { lang, attrs };
}

/** The code of a `<!-- doc-run prelude ... -->` comment ending on the line just above the fence. */
function preludeAbove(lines: readonly string[], fenceIndex: number): string | undefined {
  if ((lines[fenceIndex - 1] ?? '').trim() !== '-->') return undefined;
  for (let start = fenceIndex - 2; start >= 0; start -= 1) {
    const line = (lines[start] ?? '').trim();
    if (line === '<!-- doc-run prelude') return lines.slice(start + 1, fenceIndex - 1).join('\n');
    if (line.startsWith('<!--') || line.startsWith('```')) return undefined;
  }
  return undefined;
}

/** A `console` block as `$ command` steps, each with the output shown under it. */
export interface TranscriptStep {
  readonly command: string;
  readonly expected: readonly string[];
}

export function transcript(body: string): TranscriptStep[] {
  const steps: { command: string; expected: string[] }[] = [];
  for (const line of body.split('\n')) {
    if (line.startsWith('$ ')) steps.push({ command: line.slice(2), expected: [] });
    else if (steps.length === 0) {
      if (line.trim() !== '') throw new Error(`a console block starts with "$ command", not ${JSON.stringify(line)}`);
    } else steps.at(-1)?.expected.push(line);
  }
  return steps;
}

/** The commands of an `sh` block: its lines (a line ending in `\\` joined with the next), without blanks and comments. */
export function commandLines(body: string): string[] {
  return body
    .replace(/\\\n/g, ' ')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.trim().startsWith('#'));
}
