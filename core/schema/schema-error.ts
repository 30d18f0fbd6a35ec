/**
 * The error a schema is refused with at registration (never at call time): an unsupported dialect, a
 * malformed or oversized schema, or a `$ref` we will not follow. It is a local error: it says what is wrong
 * with the caller's own schema and is never sent to a peer as is.
 */
export type SchemaErrorCode =
  /** `$schema` names a JSON Schema dialect other than 2020-12 and draft-07. */
  | 'UnsupportedDialect'
  /** The schema is malformed, too deep or too large, or breaks an MCP rule (a non-object tool schema). */
  | 'InvalidSchema'
  /** A `$ref` that is not local (does not start with `#`), or a local one whose target does not exist. */
  | 'UnresolvableRef';

export class SchemaError extends Error {
  readonly _tag = 'SchemaError' as const;
  readonly code: SchemaErrorCode;

  constructor(code: SchemaErrorCode, message: string, options?: { readonly cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SchemaError';
    this.code = code;
  }
}

export function isSchemaError(error: unknown, code?: SchemaErrorCode): error is SchemaError {
  return error instanceof SchemaError && (code === undefined || error.code === code);
}
