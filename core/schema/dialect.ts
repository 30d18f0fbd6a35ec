/**
 * Which JSON Schema dialect a schema is written in. MCP (2025-11-25 on) says a schema without `$schema`
 * is 2020-12; we also accept draft-07, which many generators still emit. Nothing else is accepted: a
 * schema in another dialect would be validated by rules its author did not mean.
 */
import type { JsonObject } from '../jsonrpc.ts';
import { SchemaError } from './schema-error.ts';

export type Dialect = '2020-12' | 'draft-07';

/** The canonical `$schema` URI of each supported dialect. */
export const DIALECT_URIS: { readonly [D in Dialect]: string } = {
  '2020-12': 'https://json-schema.org/draft/2020-12/schema',
  'draft-07': 'http://json-schema.org/draft-07/schema#',
};

/** Dialects we recognise only to name them in the refusal. */
const KNOWN_UNSUPPORTED: ReadonlyArray<readonly [RegExp, string]> = [
  [/^https?:\/\/json-schema\.org\/draft-0([346])\/schema#?$/, 'draft-0$1'],
  [/^https?:\/\/json-schema\.org\/draft\/2019-09\/schema#?$/, '2019-09'],
];

/** The URI without its scheme and trailing empty fragment, so http/https and `#`/no `#` compare equal. */
function normalise(uri: string): string {
  return uri.replace(/^https?:\/\//, '').replace(/#$/, '');
}

const BY_NORMALISED = new Map<string, Dialect>([
  [normalise(DIALECT_URIS['2020-12']), '2020-12'],
  [normalise(DIALECT_URIS['draft-07']), 'draft-07'],
]);

const SUPPORTED = `supported: 2020-12 (${DIALECT_URIS['2020-12']}, the default when $schema is absent) and draft-07 (${DIALECT_URIS['draft-07']})`;

/**
 * The dialect of `schema`: no `$schema` means 2020-12. Throws {@link SchemaError} `UnsupportedDialect` for
 * any other dialect and `InvalidSchema` when `$schema` is not a string.
 */
export function detectDialect(schema: JsonObject): Dialect {
  const uri = schema['$schema'];
  if (uri === undefined) return '2020-12';
  if (typeof uri !== 'string') {
    throw new SchemaError('InvalidSchema', `"$schema" must be a string naming the dialect; ${SUPPORTED}`);
  }
  const dialect = BY_NORMALISED.get(normalise(uri));
  if (dialect !== undefined) return dialect;
  const known = KNOWN_UNSUPPORTED.find(([pattern]) => pattern.test(uri));
  const name = known === undefined ? 'an unknown dialect' : `JSON Schema ${uri.replace(known[0], known[1])}`;
  throw new SchemaError('UnsupportedDialect', `Unsupported JSON Schema dialect "${uri}" (${name}); ${SUPPORTED}`);
}
