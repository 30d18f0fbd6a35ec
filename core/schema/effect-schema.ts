/**
 * `rxmcp/effect`: Effect Schema for tool schemas. Kept behind its own import path so that only applications
 * that use Effect Schema load `effect` (an optional peer of rxmcp). Handlers that return an Effect need no
 * import from here: the runtime loads `effect` on the first one.
 */
import * as Schema from 'effect/Schema';

/**
 * An Effect Schema as a Standard Schema with Standard JSON Schema, the form a tool's `inputSchema` and
 * `outputSchema` take: `server.tool({ name, inputSchema: effectSchema(Schema.Struct({ city: Schema.String })) }, ...)`.
 * The handler's arguments are typed with the schema's `Type`.
 */
export function effectSchema<S extends Schema.ConstraintDecoder<unknown>>(schema: S) {
  return Schema.toStandardJSONSchemaV1(Schema.toStandardSchemaV1(schema));
}
