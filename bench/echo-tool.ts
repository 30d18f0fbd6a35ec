/**
 * The tool every call benchmark measures, in one place: `echo` (input `{ text, count, upper }`, one text block
 * back), its JSON Schema (rxmcp's native path), the arguments of each call and the text they must produce (and
 * the check a contender passes before it is measured), and the names the benchmark peers introduce themselves with. The zod form of the schema is in
 * bench/echo-zod.ts, so a program that does not need zod does not load it.
 */
import type { JsonObject } from '../core/jsonrpc.ts';

export type EchoArgs = { text: string; count: number; upper: boolean };

export const echo = (a: EchoArgs): { content: { type: 'text'; text: string }[] } => ({
  content: [{ type: 'text', text: `${a.upper ? a.text.toUpperCase() : a.text} x${a.count}` }],
});

/** The arguments of every benchmarked `tools/call`, and the text its answer carries. */
export const callArgs = Object.freeze({ text: 'hello', count: 3, upper: true });
export const expectedText = 'HELLO x3';

/** The input schema as JSON Schema (rxmcp's native path). */
export const echoJsonSchema = (description = 'Text to echo'): JsonObject => ({
  type: 'object',
  properties: { text: { type: 'string', description }, count: { type: 'integer', minimum: 0 }, upper: { type: 'boolean' } },
  required: ['text', 'count', 'upper'],
  additionalProperties: false,
});

export type CallResult = { content?: unknown; isError?: unknown };
/** Checks that a contender answers the echo and rejects a negative count. */
export async function checkEcho(name: string, call: (a: object) => Promise<CallResult>): Promise<void> {
  const ok = await call(callArgs);
  const text = (ok.content as { text?: string }[] | undefined)?.[0]?.text;
  if (ok.isError === true || text !== expectedText) throw new Error(`${name}: echo answered ${JSON.stringify(ok)}`);
  const bad = await call({ ...callArgs, count: -1 });
  if (bad.isError !== true) throw new Error(`${name}: a negative count was not rejected: ${JSON.stringify(bad)}`);
}

export const serverInfo = { name: 'bench-server', version: '0.0.0' };
export const clientInfo = { name: 'bench-client', version: '0.0.0' };
