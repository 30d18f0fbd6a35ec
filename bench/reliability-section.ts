/**
 * The "## Reliability" section of bench/RESULTS.md belongs to `npm run fuzz` (bench/fuzz.ts), not to the
 * benchmark parts: the fuzz run replaces it in place (or appends it), and a benchmark run that rewrites the
 * report carries it over unchanged.
 */
const HEADING = '## Reliability';

/** The section as it stands in `text` (from its heading to the next `## ` heading), or ''. */
export function reliabilitySectionOf(text: string): string {
  const chunk = text.split(/^(?=## )/m).find((part) => part.startsWith(`${HEADING}\n`));
  return chunk === undefined ? '' : `${chunk.trimEnd()}\n`;
}

/** `text` with its Reliability section replaced by `section`, or with `section` appended. */
export function withReliabilitySection(text: string, section: string): string {
  const chunks = text.split(/^(?=## )/m);
  const at = chunks.findIndex((part) => part.startsWith(`${HEADING}\n`));
  const own = `${section.trimEnd()}\n`;
  if (at < 0) return `${text.trimEnd()}\n\n${own}`;
  chunks[at] = at === chunks.length - 1 ? own : `${own}\n`;
  return chunks.join('');
}
