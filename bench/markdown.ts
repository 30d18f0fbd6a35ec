/** Small Markdown helpers for the RESULTS.md report. */
import { type Loader, repoRoot } from './lib.ts';

export const table = (header: readonly string[], body: readonly (readonly string[])[]): string =>
  [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...body.map((r) => `| ${r.join(' | ')} |`)].join('\n');

export const verdict = (met: boolean): string => (met ? 'met' : '**missed**');

/** A child's command line as one would type it in the repo root. */
export const rel = (command: string): string => command.replaceAll(`${repoRoot}/`, '').replace(process.execPath, 'node');

export const tag = (loader: Loader): string => (loader === 'tsx' ? 'tsx' : 'types stripped, no keepNames');
