/**
 * JSON Schema handling for tool input/output schemas and elicitation forms: dialect detection, compilation
 * once at registration (ajv, bounded, no remote references), Standard Schema adapters, and the MCP rules on
 * tool names and on elicitation's restricted schemas.
 */
export { compileSchema, schemaCompilerStats, SCHEMAS_PER_ENGINE, type CompiledSchema, type CompileOptions } from './compile.ts';
export { detectDialect, DIALECT_URIS, type Dialect } from './dialect.ts';
export { applyElicitationDefaults, checkElicitationSchema } from './elicitation-schema.ts';
export { MAX_SCHEMA_DEPTH, MAX_SUBSCHEMAS } from './bounds.ts';
export { toPointer, type ValidationIssue, type ValidationOutcome } from './outcome.ts';
export { isSchemaError, SchemaError, type SchemaErrorCode } from './schema-error.ts';
export {
  fromStandardSchema,
  isStandardSchema,
  toStandardSchema,
  type FromStandardSchemaOptions,
  type SchemaIo,
  type StandardJSONSchemaV1,
  type StandardSchemaV1,
  type StandardToolSchema,
} from './standard-schema.ts';
export { MAX_TOOL_NAME_LENGTH, validateToolName } from './tool-name.ts';
