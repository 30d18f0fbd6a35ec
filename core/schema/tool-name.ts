/**
 * MCP tool names (2025-11-25): 1 to 128 characters, case-sensitive, only ASCII letters, digits, `_`, `-`
 * and `.` (no spaces, commas or other special characters).
 */

export const MAX_TOOL_NAME_LENGTH = 128;

const ALLOWED = /^[A-Za-z0-9_.-]+$/;

/** `undefined` when `name` is a valid tool name, else a sentence saying what is wrong. */
export function validateToolName(name: string): string | undefined {
  if (typeof name !== 'string') return 'a tool name must be a string';
  if (name.length === 0) return 'a tool name must not be empty';
  if (name.length > MAX_TOOL_NAME_LENGTH) {
    return `a tool name must be at most ${MAX_TOOL_NAME_LENGTH} characters (this one has ${name.length})`;
  }
  if (ALLOWED.test(name)) return undefined;
  const index = [...name].findIndex((char) => !ALLOWED.test(char));
  const bad = [...name][index] ?? '';
  return `a tool name may contain only A-Z, a-z, 0-9, "_", "-" and "." (found ${JSON.stringify(bad)} at position ${index + 1})`;
}
