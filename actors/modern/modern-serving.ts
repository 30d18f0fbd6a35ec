/**
 * What a server needs to serve modern (2026-07-28) requests, shared by all of its connections: the modern
 * handler table, the capabilities it declares in this era, how results are completed for the wire
 * (`resultType`, `serverInfo`, caching hints) and how input rounds are sealed and opened.
 */
import { encodeBase64url } from '../../core/bytes.ts';
import { sha256 } from '../../core/crypto/hmac.ts';
import { ErrorCode } from '../../core/error-codes.ts';
import { WireError } from '../../core/errors.ts';
import type { JsonObject } from '../../core/jsonrpc.ts';
import { copyOwn, withFields } from '../../core/objects.ts';
import { withJsonText } from '../../core/codecs/json-text.ts';
import type { Implementation, ServerCapabilities } from '../../core/protocol/capabilities.ts';
import { CACHEABLE_METHODS, type CacheHints, INPUT_CAPABLE_METHODS, MODERN_CLIENT_REQUESTS, MODERN_SERVER_CAPABILITIES, MetaKey, type RequestEnvelope } from '../../core/protocol/modern.ts';
import type { ModernRevision } from '../../core/protocol/versions.ts';
import type { StateSealer } from '../../core/request-state.ts';
import type { RequestHandler } from '../handler-types.ts';
import type { MethodDeclaration } from '../../core/protocol/declarations/declaration.ts';
import { RequestInputRound, type SealedInputs, readInputResponses } from './input-round.ts';

export interface ModernServingOptions {
  readonly supported: readonly ModernRevision[];
  /** False for a modern-only server: `initialize` is then refused. */
  readonly acceptsLegacy: boolean;
  readonly handlers: ReadonlyMap<string, RequestHandler>;
  readonly capabilities: () => ServerCapabilities;
  readonly serverInfo: Implementation;
  readonly cache: CacheHints;
  readonly sealer: StateSealer;
  /** Methods whose requests stay open until cancelled (listen streams): no handler timeout. */
  readonly untimed: ReadonlySet<string>;
  /**
   * Checks body fields a medium mirrored into its envelope that only the server can interpret (tool arguments
   * marked `x-mcp-header`); returns a description of the first mismatch.
   */
  /** The client requests of the extensions this server serves, by method (their modern flags apply as a core method's). */
  readonly extensionMethods?: ReadonlyMap<string, MethodDeclaration>;
  readonly checkMirror?: (method: string, params: JsonObject | undefined, mirror: (lowercaseName: string) => string | undefined) => string | undefined;
}

/** What serving a method in this era takes, fixed when the server is made (core methods and its extensions'). */
export interface ModernMethodFacts {
  /** A client request of this era: a core one, or one of an extension this server serves. */
  readonly request: boolean;
  /** The server capability it needs (`tools` for `tools/call`), if any. */
  readonly needs: keyof ServerCapabilities | undefined;
  /** It may ask the client for input (multi round-trip). */
  readonly inputCapable: boolean;
  /** It stays open until cancelled (a listen stream): no handler timeout. */
  readonly untimed: boolean;
  /** Its complete results carry caching hints. */
  readonly cacheable: boolean;
}

const NOT_A_REQUEST: ModernMethodFacts = Object.freeze({ request: false, needs: undefined, inputCapable: false, untimed: false, cacheable: false });

export class ModernServing {
  readonly supported: readonly ModernRevision[];
  readonly acceptsLegacy: boolean;
  readonly handlers: ReadonlyMap<string, RequestHandler>;
  readonly untimed: ReadonlySet<string>;
  private readonly serverMeta: JsonObject;
  /** The facts of each request method seen, so a request looks its method up once (not in five sets and maps). */
  private readonly factsByMethod = new Map<string, ModernMethodFacts>();

  constructor(private readonly options: ModernServingOptions) {
    this.supported = options.supported;
    this.acceptsLegacy = options.acceptsLegacy;
    this.handlers = options.handlers;
    this.untimed = options.untimed;
    // Made with its JSON text: the JSON codec writes that on every result instead of encoding the info again.
    this.serverMeta = withJsonText({ [MetaKey.serverInfo]: options.serverInfo as unknown as JsonObject });
  }

  capabilities(): ServerCapabilities {
    return this.options.capabilities();
  }

  /** The declaration of an extension's client request this server serves, if `method` is one. */
  extensionMethod(method: string): MethodDeclaration | undefined {
    return this.options.extensionMethods?.get(method);
  }

  /** What serving `method` takes; a method that is no request of this era is not remembered (any string may come). */
  facts(method: string): ModernMethodFacts {
    const known = this.factsByMethod.get(method);
    if (known !== undefined) return known;
    const declaration = this.extensionMethod(method);
    if (!MODERN_CLIENT_REQUESTS.has(method) && declaration === undefined) return NOT_A_REQUEST;
    const extension = declaration?.modern;
    const facts: ModernMethodFacts = Object.freeze({
      request: true,
      needs: MODERN_SERVER_CAPABILITIES.get(method),
      inputCapable: INPUT_CAPABLE_METHODS.has(method) || extension?.inputCapable === true,
      untimed: this.untimed.has(method) || extension?.untimed === true,
      cacheable: CACHEABLE_METHODS.has(method) || extension?.cacheable !== undefined,
    });
    this.factsByMethod.set(method, facts);
    return facts;
  }

  checkMirror(method: string, params: JsonObject | undefined, mirror: (lowercaseName: string) => string | undefined): string | undefined {
    return this.options.checkMirror?.(method, params, mirror);
  }

  /** Completes a result for the wire: its type, who answered, and for cacheable methods how long it holds. */
  decorate(method: string, result: JsonObject): JsonObject {
    const own = result['_meta'];
    const resultType = result['resultType'] ?? 'complete';
    const meta = typeof own === 'object' && own !== null ? withFields(own as JsonObject, this.serverMeta) : this.serverMeta;
    // One copy of the handler's result (never altered: it may be shared), built field by field (core/objects.ts).
    if (resultType === 'complete' && this.facts(method).cacheable) {
      const { ttlMs, cacheScope } = this.options.cache;
      return withFields(withFields({ ttlMs, cacheScope }, result), { resultType, _meta: meta });
    }
    const decorated = copyResult(result);
    decorated['resultType'] = resultType;
    decorated['_meta'] = meta;
    return decorated as JsonObject;
  }

  /**
   * The input round of a request that may ask for input: the client's answers so far (sealed ones from earlier
   * rounds, which a client cannot alter, over the new `inputResponses`). A state that does not open (forged,
   * tampered, expired, issued for another request or caller) is -32602.
   */
  openRound(method: string, params: JsonObject | undefined, envelope: RequestEnvelope, principal: string | undefined): RequestInputRound | WireError {
    const given = readInputResponses(params);
    if (given instanceof WireError) return given;
    const token = params?.['requestState'];
    if (token === undefined) return new RequestInputRound(envelope, given, Object.keys(given).length > 0 ? 1 : 0);
    const opened = this.options.sealer.open(token, this.binding(method, params, principal));
    if (!opened.ok) {
      return new WireError(ErrorCode.InvalidParams, `Invalid params: requestState was not issued for this request by this server (${opened.reason})`);
    }
    const sealed = opened.payload as unknown as SealedInputs;
    return new RequestInputRound(envelope, { ...given, ...sealed.answers }, sealed.round);
  }

  seal(method: string, params: JsonObject | undefined, principal: string | undefined, inputs: SealedInputs): string {
    return this.options.sealer.seal(inputs as unknown as JsonObject, this.binding(method, params, principal));
  }

  /** A state is bound to the method, its target and its arguments, so it cannot be replayed on another call. */
  private binding(method: string, params: JsonObject | undefined, principal: string | undefined): { purpose: string; principal?: string } {
    const target = params?.['name'] ?? params?.['uri'] ?? '';
    const args = params?.['arguments'];
    const digest = args === undefined ? '' : encodeBase64url(sha256(canonicalJson(args)));
    const purpose = `${method}\u0000${String(target)}\u0000${digest}`;
    return principal === undefined ? { purpose } : { purpose, principal };
  }
}

/**
 * `{ ...result }` by a loop of its own rather than core/objects.ts's shared one: the shared loop's property accesses
 * see every shape the per-request paths copy and turn megamorphic (adding each key through the runtime); this one
 * sees only results, which come in a few shapes. An own `__proto__` key (never in practice) takes the shared copy.
 */
function copyResult(result: JsonObject): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  const keys = Object.keys(result);
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index] as string;
    if (key === '__proto__') return copyOwn(result);
    copy[key] = result[key];
  }
  return copy;
}

/** JSON with object keys sorted, so equal arguments bind equally whatever order a client writes them in. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    return `{${Object.keys(record).sort().map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
