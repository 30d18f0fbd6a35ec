/**
 * Who is calling, as a server's transport established it (a verified bearer token over HTTP, an identity vouched
 * for across NATS, or whatever an embedding program's own `authenticate` decided). Handlers read it as
 * `ctx.auth`; interceptors, `sessions$` and the request log see its `principal`.
 *
 * Plain data on purpose: it crosses process boundaries (the gateway carries it over NATS) and is shared by every
 * request of a session, so it holds no token and no functions.
 */
export interface AuthInfo {
  /**
   * The key sessions and tasks are bound to: a session opened by one principal is not found by another. The
   * resource-server kit sets it to the token's subject, qualified by its issuer when a server trusts several.
   */
  readonly principal: string;
  /** The token's subject (`sub`), when it has one (a client-credentials token may not). */
  readonly subject?: string | undefined;
  /** The OAuth client the token was issued to (`client_id` / `azp`). */
  readonly clientId?: string | undefined;
  /** The issuer that vouched for the caller (`iss`). */
  readonly issuer?: string | undefined;
  /** The scopes the token grants. */
  readonly scopes: readonly string[];
  /** When the credentials stop being valid, in milliseconds since the epoch. */
  readonly expiresAt?: number | undefined;
  /** The verified claims (or the introspection answer), for decisions the fields above do not cover. */
  readonly claims: Readonly<Record<string, unknown>>;
}

/** Whether `auth` grants every scope in `required`. */
export function hasScopes(auth: AuthInfo | undefined, required: readonly string[]): boolean {
  if (required.length === 0) return true;
  if (auth === undefined) return false;
  for (const scope of required) if (!auth.scopes.includes(scope)) return false;
  return true;
}

/**
 * Why a caller is refused before anything runs, as an `authenticate` hook throws it: the HTTP endpoint answers
 * with `status` and, when given, the `WWW-Authenticate` challenge (RFC 6750 section 3) that tells a client what
 * to fetch or ask for. Any other error an `authenticate` hook throws is a bare 401.
 */
export class AuthRefusal extends Error {
  override readonly name = 'AuthRefusal';

  constructor(
    /** 401: no usable credentials (missing, malformed, expired, not for this resource). 403: not enough of them. */
    readonly status: 401 | 403,
    /** Why, for the response body and for logs (never the token itself). */
    message: string,
    /** The `WWW-Authenticate` value, if any. */
    readonly challenge?: string,
  ) {
    super(message);
  }
}

/** Whether `error` is an {@link AuthRefusal} (also one from another copy of this module). */
export function isAuthRefusal(error: unknown): error is AuthRefusal {
  return error instanceof AuthRefusal || (error instanceof Error && error.name === 'AuthRefusal' && ((error as { status?: unknown }).status === 401 || (error as { status?: unknown }).status === 403));
}
