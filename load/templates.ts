/**
 * Generated request values. A string may hold placeholders, filled per call:
 *
 *   {{token}}     a text unique to the call in this run (the check looks for it in the answer)
 *   {{seq}}       the call's number in its lane, from 0
 *   {{session}}   the number of the session it goes on
 *   {{random:N}}  a random integer in [0, N)
 *   {{pad:N}}     N bytes of filler (a payload size)
 *
 * Each template is compiled once into parts; filling one is a few concatenations. A value without
 * placeholders is used as it is (the same object every call).
 */
import type { JsonObject } from '../core/jsonrpc.ts';

/** What a call fills the placeholders with. */
export interface CallValues {
  readonly token: string;
  readonly seq: number;
  readonly session: number;
}

type Part = string | ((values: CallValues) => string);

const PLACEHOLDER = /\{\{\s*(token|seq|session|random:(\d+)|pad:(\d+))\s*\}\}/g;
const MAX_PAD = 16 * 1024 * 1024;

/** A string template, or undefined when the text has no placeholder. */
export function compileText(text: string): ((values: CallValues) => string) | undefined {
  const parts: Part[] = [];
  let last = 0;
  for (const match of text.matchAll(PLACEHOLDER)) {
    const index = match.index;
    if (index > last) parts.push(text.slice(last, index));
    last = index + match[0].length;
    const [, name, random, pad] = match;
    if (name === 'token') parts.push((values) => values.token);
    else if (name === 'seq') parts.push((values) => String(values.seq));
    else if (name === 'session') parts.push((values) => String(values.session));
    else if (random !== undefined) {
      const bound = Number(random);
      if (!(bound > 0)) throw new RangeError(`{{random:N}} needs N of 1 or more, got ${JSON.stringify(match[0])}`);
      parts.push(() => String(Math.floor(Math.random() * bound)));
    } else if (pad !== undefined) {
      const size = Number(pad);
      if (size > MAX_PAD) throw new RangeError(`{{pad:N}} takes N up to ${MAX_PAD} bytes, got ${size}`);
      parts.push('x'.repeat(size));
    }
  }
  if (parts.length === 0) return undefined;
  if (last < text.length) parts.push(text.slice(last));
  const joined = mergeConstants(parts);
  if (joined.length === 1 && typeof joined[0] === 'function') return joined[0];
  return (values) => {
    let out = '';
    for (const part of joined) out += typeof part === 'string' ? part : part(values);
    return out;
  };
}

function mergeConstants(parts: readonly Part[]): Part[] {
  const merged: Part[] = [];
  for (const part of parts) {
    const previous = merged[merged.length - 1];
    if (typeof part === 'string' && typeof previous === 'string') merged[merged.length - 1] = previous + part;
    else merged.push(part);
  }
  return merged;
}

/** Whether a text uses {{token}} (so the answer can be checked for it). */
export function usesToken(text: string): boolean {
  return /\{\{\s*token\s*\}\}/.test(text);
}

/** A JSON value template: filled per call, or the value itself when nothing in it is generated. */
export function compileValue<T>(value: T): (values: CallValues) => T {
  const filled = compileNode(value);
  return filled ?? (() => value);
}

function compileNode(value: unknown): ((values: CallValues) => never) | undefined {
  if (typeof value === 'string') return compileText(value) as ((values: CallValues) => never) | undefined;
  if (Array.isArray(value)) {
    const items = value.map((item) => compileNode(item));
    if (items.every((item) => item === undefined)) return undefined;
    return ((values: CallValues) => value.map((item, index) => items[index]?.(values) ?? item)) as (values: CallValues) => never;
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as JsonObject).map(([key, item]) => [key, item, compileNode(item)] as const);
    if (entries.every(([, , filled]) => filled === undefined)) return undefined;
    return ((values: CallValues) => {
      const out: Record<string, unknown> = {};
      for (const [key, item, filled] of entries) out[key] = filled === undefined ? item : filled(values);
      return out;
    }) as (values: CallValues) => never;
  }
  return undefined;
}

/** Whether any string inside a JSON value uses {{token}}. */
export function valueUsesToken(value: unknown): boolean {
  if (typeof value === 'string') return usesToken(value);
  if (Array.isArray(value)) return value.some(valueUsesToken);
  if (value !== null && typeof value === 'object') return Object.values(value).some(valueUsesToken);
  return false;
}
