/**
 * Keeping bench/RESULTS.md whole across partial runs (`bench/run.ts --only=transports`): the sections and commands
 * of the parts not run this time are taken over from the previous report.
 */
import { existsSync, readFileSync } from 'node:fs';

export type Part = 'foundation' | 'features' | 'transports' | 'modern' | 'nats' | 'scale' | 'micro';
export const parts: readonly Part[] = ['foundation', 'features', 'transports', 'modern', 'nats', 'scale', 'micro'];

/** The scripts whose commands belong to a part (to sort the previous "Commands run" list). */
const scripts: Record<Part, readonly string[]> = {
  foundation: ['ping-roundtrip.ts', 'idle-session-heap.ts'],
  features: ['tools-call.ts', 'tools-list-scaling.ts'],
  transports: ['stdio-calls.ts', 'http-calls.ts', 'transport-programs.ts', 'http-idle-sessions.ts'],
  modern: ['modern-calls.ts'],
  nats: ['nats-calls.ts'],
  scale: ['scale-idle.ts', 'scale-pairs.ts', 'scale-churn.ts', 'scale-http.ts'],
  micro: ['micro-suites.ts'],
};

export interface PreviousReport {
  /** When each part was measured (its stamp, else the report's "- Date:" line), if it says. */
  readonly dates: Record<Part, string | undefined>;
  /** Its sections (each from its `## ` heading to the next), by part. */
  readonly sections: Record<Part, string>;
  /** Its command lines (without the list marker), by part. */
  readonly commands: Record<Part, string[]>;
  /** Its sections that no part produces (measured by hand, such as "Package"), kept as they are. */
  readonly byHand: string;
}

/**
 * The `## ` headings each part writes (`## Charts` and `## Commands run` belong to no part). Exact forms, not
 * prefixes: sections written by hand whose titles begin alike ("NATS near the floor", "Modern era as lean as
 * legacy") are not a part's, and a partial run keeps them.
 */
const headings: Record<Part, RegExp> = {
  foundation: /^Foundation (figures|method)\b/,
  features: /^Features(:| method\b)/,
  transports: /^Transports(:| method\b)/,
  modern: /^Modern era (\(2026-07-28\):|method\b)/,
  nats: /^NATS(:| method\b)/,
  scale: /^Scale\s*$/m,
  micro: /^Micro benchmarks\b/,
};

const partOf = (heading: string): Part | undefined => parts.find((part) => headings[part].test(heading.split('\n', 1)[0] ?? ''));

/** Sections another command owns and puts back itself (`npm run fuzz`: Reliability). */
const ownedElsewhere = (heading: string): boolean => heading.startsWith('Charts') || heading.startsWith('Reliability');

export function readPreviousReport(file: string): PreviousReport {
  const sections: Record<Part, string> = { foundation: '', features: '', transports: '', modern: '', nats: '', scale: '', micro: '' };
  const commands: Record<Part, string[]> = { foundation: [], features: [], transports: [], modern: [], nats: [], scale: [], micro: [] };
  const dates: Record<Part, string | undefined> = { foundation: undefined, features: undefined, transports: undefined, modern: undefined, nats: undefined, scale: undefined, micro: undefined };
  let byHand = '';
  if (!existsSync(file)) return { dates, sections, commands, byHand };
  const text = readFileSync(file, 'utf8');
  const date = /^- Date: (.+)$/m.exec(text)?.[1];
  for (const part of parts) dates[part] = new RegExp(`<!-- ${part} measured (\\S+) -->`).exec(text)?.[1] ?? date;
  for (const chunk of text.split(/^(?=## )/m)) {
    if (!chunk.startsWith('## ')) continue;
    const heading = chunk.slice(3);
    if (heading.startsWith('Commands run')) {
      for (const line of chunk.split('\n')) {
        const command = /^- `(.+)`$/.exec(line)?.[1];
        const part = command === undefined ? undefined : parts.find((p) => scripts[p].some((script) => command.includes(script)));
        if (command !== undefined && part !== undefined) commands[part].push(command);
      }
      continue;
    }
    const part = partOf(heading);
    const whole = chunk.endsWith('\n\n') ? chunk : `${chunk.trimEnd()}\n\n`;
    if (part !== undefined) sections[part] += whole;
    else if (!ownedElsewhere(heading)) byHand += whole;
  }
  return { dates, sections, commands, byHand };
}

/**
 * Marks a part's sections with the time they were measured (an HTML comment after the first heading), so that
 * later partial runs can say how old the sections they keep are. Sections already marked are left as they are.
 */
export function stamp(part: Part, sections: string, at: string | undefined): string {
  if (at === undefined || sections === '' || sections.includes(`<!-- ${part} measured `)) return sections;
  const newline = sections.indexOf('\n');
  return `${sections.slice(0, newline + 1)}<!-- ${part} measured ${at} -->\n${sections.slice(newline + 1)}`;
}
