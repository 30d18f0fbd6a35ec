/**
 * Runs a callback on a later turn of the event loop, after every pending promise reaction: `setImmediate`
 * where the runtime has it (Node, Bun: it runs before timers, with no 1 ms floor), else `setTimeout(0)`
 * (browsers, Deno, edge workers).
 */
type Schedule = (callback: () => void) => void;

const runtimeSetImmediate = (globalThis as { readonly setImmediate?: (callback: () => void) => unknown }).setImmediate;

export const nextTurn: Schedule =
  runtimeSetImmediate === undefined ? (callback) => void setTimeout(callback, 0) : (callback) => void runtimeSetImmediate(callback);
