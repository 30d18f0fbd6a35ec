/**
 * What the serial group waits for, when asked: `RXMCP_SPEC_SERIAL_AFTER` names files (separated as PATH is) that
 * other jobs create when they end. CI runs the package and conformance lanes beside the concurrent spec files, which
 * share the machine by design, and the serial files (which must not share it) only once those lanes are done. Unset,
 * nothing is waited for. The wait is bounded: past it, the serial group starts anyway and the log says so.
 */
import { existsSync } from 'node:fs';
import { delimiter } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export const SERIAL_AFTER_ENV = 'RXMCP_SPEC_SERIAL_AFTER';
const POLL_MS = 500;
const MAX_WAIT_MS = 45 * 60_000;

/** The files named by `value`, empty ones dropped. */
export function gateFiles(value: string | undefined): string[] {
  return (value ?? '').split(delimiter).filter((path) => path !== '');
}

/** Waits until every file exists (or `maxMs` passed); the line for the log, or undefined when there was nothing to wait for. */
export async function waitForGate(files: readonly string[], signal: AbortSignal, maxMs = MAX_WAIT_MS): Promise<string | undefined> {
  if (files.length === 0) return undefined;
  const started = performance.now();
  const missing = (): string[] => files.filter((file) => !existsSync(file));
  while (missing().length > 0 && !signal.aborted) {
    if (performance.now() - started > maxMs) return `serial: started after waiting ${Math.round(maxMs / 1000)} s, the limit, for ${missing().join(', ')} (${SERIAL_AFTER_ENV})`;
    await sleep(POLL_MS);
  }
  return `serial: waited ${((performance.now() - started) / 1000).toFixed(1)} s for what ran beside the concurrent files (${SERIAL_AFTER_ENV})`;
}
