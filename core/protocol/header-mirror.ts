/**
 * Mirroring JSON-RPC body fields into transport headers (MCP 2026-07-28, Streamable HTTP; NATS headers later).
 *
 * From 2026-07-28 each POST repeats a few body fields as headers (`MCP-Protocol-Version`, `Mcp-Method`,
 * `Mcp-Name`) and, for tools whose `inputSchema` marks a property with `x-mcp-header`, the argument value as
 * `Mcp-Param-<Name>`. Gateways and load balancers can then route and enforce policy without parsing JSON, and
 * the server refuses a request whose headers disagree with its body (`-32020`), so an intermediary can never be
 * shown one thing while the server acts on another.
 *
 * Everything here is pure: the transports own the actual headers and only hand us a case-insensitive lookup.
 * One module serves both sides so that what a client sends and what a server accepts cannot drift apart.
 */
import type { JsonObject } from '../jsonrpc.ts';
import { declarationOf } from './declarations/index.ts';
import { isJsonObject } from './guards.ts';

// ---- header names ----

export const PROTOCOL_VERSION_HEADER = 'MCP-Protocol-Version';
export const METHOD_HEADER = 'Mcp-Method';
export const NAME_HEADER = 'Mcp-Name';
export const PARAM_HEADER_PREFIX = 'Mcp-Param-';

/** The `_meta` key whose value `MCP-Protocol-Version` must repeat. */
export const PROTOCOL_VERSION_META_KEY = 'io.modelcontextprotocol/protocolVersion';

/**
 * The params field that `Mcp-Name` mirrors for `method` (its declaration's `modern.nameHeader`, an extension's
 * included), or `undefined` when the method has no `Mcp-Name`.
 */
export function nameFieldOf(method: string): string | undefined {
  return declarationOf(method)?.modern?.nameHeader;
}

/** The header that mirrors the argument marked `x-mcp-header: <name>`. */
export function paramHeaderName(name: string): string {
  return `${PARAM_HEADER_PREFIX}${name}`;
}

// ---- value encoding ----

const SENTINEL_PREFIX = '=?base64?';
const SENTINEL_SUFFIX = '?=';

/** Visible ASCII plus the space; whether spaces sit at the ends is checked separately. */
const PLAIN_CHARS = /^[\x20-\x7e]*$/;
/** RFC 4648 standard alphabet, length a multiple of four, padding only at the end. */
const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const DECIMAL_INTEGER = /^-?[0-9]+$/;

const utf8Encoder = new TextEncoder();
// `fatal` makes malformed UTF-8 an error instead of silently becoming U+FFFD, which could then match a body value.
const utf8Decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Whether `value` would be taken for an encoded value. Case-insensitive on purpose: our decoder only honours
 * lowercase markers, but a more lenient peer might not, and encoding costs nothing.
 */
function looksLikeSentinel(value: string): boolean {
  const lower = value.toLowerCase();
  return lower.startsWith(SENTINEL_PREFIX) && lower.endsWith(SENTINEL_SUFFIX);
}

/** True when `value` can travel as a header value unchanged (and will read back unchanged). */
export function isPlainHeaderValue(value: string): boolean {
  if (!PLAIN_CHARS.test(value)) return false;
  // HTTP strips surrounding whitespace, so a value with outer spaces would arrive shortened.
  if (value.startsWith(' ') || value.endsWith(' ')) return false;
  return !looksLikeSentinel(value);
}

function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** Always emits the `=?base64?…?=` form, whatever the value. */
export function base64HeaderValue(value: string): string {
  return `${SENTINEL_PREFIX}${bytesToBase64(utf8Encoder.encode(value))}${SENTINEL_SUFFIX}`;
}

/** A number as decimal text; integers never in exponent form, since peers compare them as decimal integers. */
function numberText(value: number): string {
  return Number.isInteger(value) ? BigInt(value).toString() : String(value);
}

/** Encodes one primitive for a header: plain text when safe, otherwise the base64 sentinel form. */
export function encodeHeaderValue(value: string | number | boolean): string {
  if (typeof value === 'number') return numberText(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return isPlainHeaderValue(value) ? value : base64HeaderValue(value);
}

export type DecodedHeaderValue =
  | { readonly ok: true; readonly value: string }
  | { readonly ok: false; readonly problem: string };

/** Drops the optional whitespace (spaces, tabs) that HTTP does not count as part of a field value. */
export function trimHeaderWhitespace(raw: string): string {
  return raw.replace(/^[ \t]+|[ \t]+$/g, '');
}

/**
 * Reads a received header value back into the string the sender meant.
 *
 * Only a value wrapped exactly in lowercase `=?base64?` … `?=` is decoded; anything else, including a half
 * wrapper, is literal. The payload must be strict standard base64 (padding included) of valid UTF-8: a lenient
 * decoder would let two different header texts stand for one value, which defeats the point of checking.
 * A literal containing characters a sender was obliged to encode (controls, non-ASCII) is refused, so a peer
 * that skipped encoding cannot slip a differently-encoded value past the comparison.
 */
export function decodeHeaderValue(raw: string): DecodedHeaderValue {
  const value = trimHeaderWhitespace(raw);
  const wrapped =
    value.length >= SENTINEL_PREFIX.length + SENTINEL_SUFFIX.length &&
    value.startsWith(SENTINEL_PREFIX) &&
    value.endsWith(SENTINEL_SUFFIX);
  if (!wrapped) {
    if (!PLAIN_CHARS.test(value)) {
      return { ok: false, problem: 'contains control or non-ASCII characters that must be base64-encoded' };
    }
    return { ok: true, value };
  }
  const payload = value.slice(SENTINEL_PREFIX.length, value.length - SENTINEL_SUFFIX.length);
  if (!STRICT_BASE64.test(payload)) {
    return { ok: false, problem: 'is not valid padded standard base64 inside =?base64?…?=' };
  }
  const binary = atob(payload);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  try {
    return { ok: true, value: utf8Decoder.decode(bytes) };
  } catch {
    return { ok: false, problem: 'does not decode to valid UTF-8' };
  }
}

// ---- header lookup ----

/**
 * Case-insensitive header access, given the lowercase name. Node's `IncomingHttpHeaders` is already keyed in
 * lowercase; a NATS adapter can fold its own map. A function keeps this module free of any transport's types.
 */
export type HeaderLookup = (lowercaseName: string) => string | undefined;

/**
 * Builds a lookup over a plain record whose keys may use any case. Repeated fields (an array) are joined with
 * ", " as HTTP defines, so a duplicated header reads as one value that will not match the body.
 */
export function headerLookup(headers: Readonly<Record<string, string | readonly string[] | undefined>>): HeaderLookup {
  const folded = new Map<string, string>();
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const text = typeof value === 'string' ? value : value.join(', ');
    const key = name.toLowerCase();
    const previous = folded.get(key);
    folded.set(key, previous === undefined ? text : `${previous}, ${text}`);
  }
  return (lowercaseName) => folded.get(lowercaseName);
}

// ---- standard headers ----

/** The parts of a request or notification the standard headers mirror. */
export type MirroredMessage = { readonly method: string; readonly params?: JsonObject };

/** The body's `_meta` protocol version, when it is a string (what the version header mirrors). */
export function protocolVersionOf(message: MirroredMessage): string | undefined {
  const meta = message.params?.['_meta'];
  if (!isJsonObject(meta)) return undefined;
  const version = meta[PROTOCOL_VERSION_META_KEY];
  return typeof version === 'string' ? version : undefined;
}

/** The body's name field (`name` or `uri`, by method), when it is a string (what `Mcp-Name` mirrors). */
export function nameOf(message: MirroredMessage): string | undefined {
  const field = nameFieldOf(message.method);
  if (field === undefined) return undefined;
  const value = message.params?.[field];
  return typeof value === 'string' ? value : undefined;
}

/**
 * Client side: the standard headers for one outgoing message, values already encoded. A header whose body
 * field is missing is left out rather than invented; the server answers that with its own params error.
 */
export function standardHeaders(message: MirroredMessage): Readonly<Record<string, string>> {
  const headers: Record<string, string> = {};
  const version = protocolVersionOf(message);
  if (version !== undefined) headers[PROTOCOL_VERSION_HEADER] = encodeHeaderValue(version);
  headers[METHOD_HEADER] = encodeHeaderValue(message.method);
  const name = nameOf(message);
  if (name !== undefined) headers[NAME_HEADER] = encodeHeaderValue(name);
  return headers;
}

/**
 * Why a request's headers and body disagree. `reason` lets a caller single out one case: a missing
 * `MCP-Protocol-Version` may be read as an old (2025-03-26) client instead of being refused.
 */
export type HeaderProblem = {
  /** The header concerned, in its canonical spelling. */
  readonly header: string;
  /** `missing`: absent but required; `unexpected`: present with nothing to mirror; `differs`: not the body's
   * value; `invalid`: not a well-formed value. */
  readonly reason: 'missing' | 'unexpected' | 'differs' | 'invalid';
  /** A sentence for the `-32020` error message. */
  readonly message: string;
};

function problem(header: string, reason: HeaderProblem['reason'], message: string): HeaderProblem {
  return { header, reason, message };
}

/** Reads and decodes one header; `undefined` value means absent. */
function readHeader(
  headers: HeaderLookup,
  header: string,
): { readonly value: string | undefined } | { readonly problem: HeaderProblem } {
  const raw = headers(header.toLowerCase());
  if (raw === undefined) return { value: undefined };
  const decoded = decodeHeaderValue(raw);
  if (!decoded.ok) return { problem: problem(header, 'invalid', `${header} ${decoded.problem}`) };
  return { value: decoded.value };
}

/** Compares one required string header with its body value; a missing body value is left to params validation. */
function checkMirroredString(headers: HeaderLookup, header: string, body: string | undefined): HeaderProblem | undefined {
  const read = readHeader(headers, header);
  if ('problem' in read) return read.problem;
  if (read.value === undefined) {
    return body === undefined ? undefined : problem(header, 'missing', `${header} header is required`);
  }
  if (body === undefined) {
    return problem(header, 'unexpected', `${header} header is present but the body has no value for it`);
  }
  if (read.value !== body) {
    return problem(header, 'differs', `${header} header ${JSON.stringify(read.value)} does not match the body value ${JSON.stringify(body)}`);
  }
  return undefined;
}

/**
 * Server side: checks `Mcp-Method`, `Mcp-Name` and `MCP-Protocol-Version` against the body.
 *
 * A missing `MCP-Protocol-Version` is reported last, only when everything else agrees, so a caller that chooses
 * to tolerate it (treating the client as 2025-03-26) has not skipped any other check by doing so. When the body
 * itself lacks a name or `_meta` version, only a header that has nothing to match is reported: the missing
 * body field is an invalid-params error, which the params validator reports more precisely.
 */
export function checkStandardHeaders(headers: HeaderLookup, message: MirroredMessage): HeaderProblem | undefined {
  const method = readHeader(headers, METHOD_HEADER);
  if ('problem' in method) return method.problem;
  if (method.value === undefined) return problem(METHOD_HEADER, 'missing', `${METHOD_HEADER} header is required`);
  if (method.value !== message.method) {
    return problem(
      METHOD_HEADER,
      'differs',
      `${METHOD_HEADER} header ${JSON.stringify(method.value)} does not match the body method ${JSON.stringify(message.method)}`,
    );
  }
  if (nameFieldOf(message.method) !== undefined) {
    const nameProblem = checkMirroredString(headers, NAME_HEADER, nameOf(message));
    if (nameProblem !== undefined) return nameProblem;
  }
  const version = readHeader(headers, PROTOCOL_VERSION_HEADER);
  if ('problem' in version) return version.problem;
  const bodyVersion = protocolVersionOf(message);
  if (version.value !== undefined && bodyVersion !== undefined && version.value !== bodyVersion) {
    return problem(
      PROTOCOL_VERSION_HEADER,
      'differs',
      `${PROTOCOL_VERSION_HEADER} header ${JSON.stringify(version.value)} does not match _meta protocolVersion ${JSON.stringify(bodyVersion)}`,
    );
  }
  if (version.value === undefined) {
    return problem(PROTOCOL_VERSION_HEADER, 'missing', `${PROTOCOL_VERSION_HEADER} header is required`);
  }
  return undefined;
}

// ---- x-mcp-header annotations ----

export const HEADER_ANNOTATION_KEYWORD = 'x-mcp-header';

export type HeaderParamType = 'string' | 'integer' | 'boolean';

/** One valid `x-mcp-header` annotation: the header name suffix, where the argument sits, and its declared type. */
export type HeaderAnnotation = {
  readonly name: string;
  /** Property names from the arguments object down to the annotated value. */
  readonly path: readonly string[];
  readonly type: HeaderParamType;
};

export type HeaderAnnotationsResult =
  | { readonly ok: true; readonly annotations: readonly HeaderAnnotation[] }
  | { readonly ok: false; readonly problem: string };

/** RFC 9110 token: what may follow `Mcp-Param-` and still be a single valid field name. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

export function isHeaderToken(name: string): boolean {
  return TOKEN.test(name);
}

// JSON Schema keywords whose values are schemas. Only these are searched for misplaced annotations: walking
// every object would misread data (`const`, `enum`, `default`, `examples`) or property names as annotations.
const SCHEMA_KEYWORDS = [
  'items', 'additionalItems', 'additionalProperties', 'unevaluatedItems', 'unevaluatedProperties',
  'propertyNames', 'contains', 'not', 'if', 'then', 'else',
] as const;
const SCHEMA_ARRAY_KEYWORDS = ['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items'] as const;
const SCHEMA_MAP_KEYWORDS = ['patternProperties', '$defs', 'definitions', 'dependentSchemas', 'dependencies'] as const;

/** JSON Pointer escaping, so a problem names the exact spot even for property names with `/` or `~`. */
function pointer(segments: readonly string[]): string {
  return segments.map((s) => `/${s.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

const HEADER_PARAM_TYPES: readonly string[] = ['string', 'integer', 'boolean'] satisfies HeaderParamType[];

function isHeaderParamType(value: unknown): value is HeaderParamType {
  return typeof value === 'string' && HEADER_PARAM_TYPES.includes(value);
}

/** Mutable state of one walk; kept in an object so the recursive helpers stay small. */
type Walk = { readonly found: HeaderAnnotation[]; readonly seen: Map<string, string>; problem: string | undefined };

/**
 * Visits a schema node. `path` is set while the node is reachable from the root through `properties` alone
 * (the only place an annotation may sit); once the walk leaves that chain it is `undefined`.
 */
function visitSchema(walk: Walk, node: unknown, at: readonly string[], path: readonly string[] | undefined): void {
  if (walk.problem !== undefined || !isJsonObject(node)) return;
  if (Object.hasOwn(node, HEADER_ANNOTATION_KEYWORD)) {
    walk.problem = annotationProblem(walk, node, at, path);
    if (walk.problem !== undefined) return;
  }
  const properties = node['properties'];
  if (isJsonObject(properties)) {
    for (const [key, child] of Object.entries(properties)) {
      visitSchema(walk, child, [...at, 'properties', key], path === undefined ? undefined : [...path, key]);
    }
  }
  for (const keyword of SCHEMA_KEYWORDS) {
    if (Object.hasOwn(node, keyword)) visitSchema(walk, node[keyword], [...at, keyword], undefined);
  }
  for (const keyword of SCHEMA_ARRAY_KEYWORDS) {
    const list = node[keyword];
    if (Object.hasOwn(node, keyword) && Array.isArray(list)) {
      list.forEach((child: unknown, i) => visitSchema(walk, child, [...at, keyword, String(i)], undefined));
    }
  }
  for (const keyword of SCHEMA_MAP_KEYWORDS) {
    const map = node[keyword];
    if (Object.hasOwn(node, keyword) && isJsonObject(map)) {
      for (const [key, child] of Object.entries(map)) visitSchema(walk, child, [...at, keyword, key], undefined);
    }
  }
}

/** Validates the annotation on `node` and records it; returns why it is invalid, if it is. */
function annotationProblem(
  walk: Walk,
  node: Record<string, unknown>,
  at: readonly string[],
  path: readonly string[] | undefined,
): string | undefined {
  const where = at.length === 0 ? 'the root schema' : pointer(at);
  const name = node[HEADER_ANNOTATION_KEYWORD];
  if (path === undefined) {
    return `${HEADER_ANNOTATION_KEYWORD} at ${where} is not reachable from the root through properties alone`;
  }
  if (path.length === 0) return `${HEADER_ANNOTATION_KEYWORD} may not annotate the root schema`;
  if (typeof name !== 'string') return `${HEADER_ANNOTATION_KEYWORD} at ${where} must be a string`;
  if (name === '') return `${HEADER_ANNOTATION_KEYWORD} at ${where} is empty`;
  if (!isHeaderToken(name)) {
    return `${HEADER_ANNOTATION_KEYWORD} ${JSON.stringify(name)} at ${where} has characters not allowed in a header name`;
  }
  const type = node['type'];
  if (!isHeaderParamType(type)) {
    return `${HEADER_ANNOTATION_KEYWORD} ${JSON.stringify(name)} at ${where} needs type string, integer or boolean, not ${JSON.stringify(type) ?? 'none'}`;
  }
  const folded = name.toLowerCase();
  const earlier = walk.seen.get(folded);
  if (earlier !== undefined) {
    return `${HEADER_ANNOTATION_KEYWORD} ${JSON.stringify(name)} at ${where} repeats ${JSON.stringify(earlier)} (names are case-insensitive)`;
  }
  walk.seen.set(folded, name);
  walk.found.push({ name, path, type });
  return undefined;
}

/**
 * Collects and validates the `x-mcp-header` annotations of a tool's `inputSchema`. Any invalid annotation makes
 * the whole tool invalid (clients drop it, servers refuse to register it), so the first problem is returned
 * alone. Run it once per tool listing, not per call.
 */
export function headerAnnotations(inputSchema: unknown): HeaderAnnotationsResult {
  const walk: Walk = { found: [], seen: new Map(), problem: undefined };
  visitSchema(walk, inputSchema, [], []);
  return walk.problem === undefined ? { ok: true, annotations: walk.found } : { ok: false, problem: walk.problem };
}

// ---- Mcp-Param-* headers ----

/** The value at `path` in the arguments, or `undefined` when any step is missing or not an object. */
export function argumentAt(args: JsonObject | undefined, path: readonly string[]): unknown {
  let current: unknown = args;
  for (const key of path) {
    if (!isJsonObject(current) || !Object.hasOwn(current, key)) return undefined;
    current = current[key];
  }
  return current;
}

/** The primitive to mirror for an argument, or `undefined` when there is nothing to send. */
function mirrorable(value: unknown): string | number | boolean | undefined {
  // A value of the wrong JSON type is still mirrored when it is a primitive: the server validates arguments
  // against the schema anyway, and mirroring keeps headers and body consistent so that error is the one the
  // caller sees. Objects and arrays have no header form, so they are left out (and expected absent).
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? value : undefined;
}

/** Client side: the `Mcp-Param-*` headers for one `tools/call`, keyed by header name, values encoded. */
export function paramHeaders(
  annotations: readonly HeaderAnnotation[],
  args: JsonObject | undefined,
): Readonly<Record<string, string>> {
  const headers: Record<string, string> = {};
  for (const annotation of annotations) {
    const value = mirrorable(argumentAt(args, annotation.path));
    if (value !== undefined) headers[paramHeaderName(annotation.name)] = encodeHeaderValue(value);
  }
  return headers;
}

/** Whether a decoded header value stands for the body value; integers compare numerically ("007" is 7). */
function sameValue(header: string, body: string | number | boolean): boolean {
  if (typeof body === 'number' && Number.isInteger(body) && DECIMAL_INTEGER.test(header)) {
    return BigInt(header) === BigInt(body);
  }
  return header === (typeof body === 'string' ? body : encodeHeaderValue(body));
}

/** Server side: checks every annotated argument against its `Mcp-Param-*` header (present iff the value is). */
export function checkParamHeaders(
  headers: HeaderLookup,
  annotations: readonly HeaderAnnotation[],
  args: JsonObject | undefined,
): HeaderProblem | undefined {
  for (const annotation of annotations) {
    const header = paramHeaderName(annotation.name);
    const read = readHeader(headers, header);
    if ('problem' in read) return read.problem;
    const body = mirrorable(argumentAt(args, annotation.path));
    const where = annotation.path.join('.');
    if (read.value === undefined) {
      if (body !== undefined) return problem(header, 'missing', `${header} header is required because argument ${where} is set`);
      continue;
    }
    if (body === undefined) {
      return problem(header, 'unexpected', `${header} header is present but argument ${where} is absent or null`);
    }
    if (!sameValue(read.value, body)) {
      return problem(header, 'differs', `${header} header ${JSON.stringify(read.value)} does not match argument ${where} ${JSON.stringify(body)}`);
    }
  }
  return undefined;
}
