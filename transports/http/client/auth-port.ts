/**
 * What an HTTP client transport asks of whoever holds its credentials: `rxmcp/auth/client`'s OAuth client, or a
 * program's own. The transport stays ignorant of OAuth: it asks for headers before each HTTP request, shows every
 * refusal that carries a challenge, and sends the request again when told to.
 */

/** One HTTP request the transport is about to send (POST, GET stream, DELETE). */
export interface AuthorizedRequest {
  readonly method: string;
  readonly url: URL;
  /**
   * The MCP endpoint the transport was made for: the server being authorized, also when `url` is another of its
   * URLs (the HTTP+SSE fallback POSTs to the `endpoint` the server named).
   */
  readonly endpoint?: URL;
}

/** What the server answered, as far as authorization cares. */
export interface AuthResponse {
  readonly status: number;
  readonly url: URL;
  readonly method: string;
  /** As in {@link AuthorizedRequest.endpoint}. */
  readonly endpoint?: URL;
  /** Header lookup, case-insensitive (`WWW-Authenticate`, `DPoP-Nonce`). */
  header(name: string): string | undefined;
  /**
   * The headers `headersFor` gave the request this answers (empty when it went out unauthorized), so that a refusal
   * of a token already replaced is told from one of the current token.
   */
  readonly sentWith?: Readonly<Record<string, string>>;
}

export interface HttpClientAuth {
  /**
   * Headers that authorize one request (`Authorization`, and `DPoP` for sender-constrained tokens). Called per
   * request, so it may refresh an expiring token first. An empty object sends the request unauthorized (the
   * server's 401 then starts the flow).
   */
  headersFor(request: AuthorizedRequest): Promise<Readonly<Record<string, string>>>;
  /**
   * The server refused a request with 401, or 403 carrying a `WWW-Authenticate` challenge. Resolves true when new
   * credentials were obtained and the request should be sent again, false when it should fail with the refusal;
   * rejects with the reason when authorization itself failed. The transport sends one request at most
   * `maxAuthRetries` times in a row (default 3), whatever this answers.
   */
  challenged(response: AuthResponse): Promise<boolean>;
  /** Sees every response (a resource server's fresh `DPoP-Nonce` comes on successes too). */
  observe?(response: AuthResponse): void;
}
