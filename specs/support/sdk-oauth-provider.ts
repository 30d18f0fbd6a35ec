/**
 * The application side of the official SDKs' OAuth client (their `OAuthClientProvider`, the same shape in 1.x
 * and 2.x), for specs: client metadata with a loopback redirect URI, registration and tokens kept in memory, and
 * `redirectToAuthorization` completed headlessly against oidc-provider (specs/support/oidc-provider.ts). The SDK
 * then throws its `UnauthorizedError`; the spec reads `takeCallback()` (state checked) and calls the transport's
 * `finishAuth`, as an application would after its redirect listener fired.
 */
import { authorize } from './oidc-provider.ts';

export const SDK_REDIRECT_URI = 'http://127.0.0.1:7/sdk-callback';

type Json = Record<string, unknown>;

export interface HeadlessSdkOAuthOptions {
  /** Register for refresh tokens too (default true). */
  readonly refreshTokens?: boolean;
}

export class HeadlessSdkOAuthProvider {
  readonly redirectUrl = SDK_REDIRECT_URI;
  readonly clientMetadata: Readonly<Record<string, unknown>>;
  /** Every authorization URL the SDK asked the user agent to open. */
  readonly authorizationUrls: URL[] = [];
  private information: Json | undefined;
  private stored: Json | undefined;
  private verifier = '';
  private expectedState = '';
  private pending: URL | undefined;

  constructor(options: HeadlessSdkOAuthOptions = {}) {
    this.clientMetadata = {
      client_name: 'sdk interop client',
      redirect_uris: [SDK_REDIRECT_URI],
      grant_types: options.refreshTokens === false ? ['authorization_code'] : ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  state(): string {
    this.expectedState = crypto.randomUUID();
    return this.expectedState;
  }
  clientInformation(): Json | undefined {
    return this.information;
  }
  saveClientInformation(information: Json): void {
    this.information = information;
  }
  tokens(): Json | undefined {
    return this.stored;
  }
  saveTokens(tokens: Json): void {
    this.stored = tokens;
  }
  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }
  codeVerifier(): string {
    return this.verifier;
  }
  async redirectToAuthorization(url: URL): Promise<void> {
    this.authorizationUrls.push(url);
    this.pending = (await authorize(url)).redirect;
  }

  /** The callback parameters of the last headless authorization (state checked); throws on an error redirect. */
  takeCallback(): URLSearchParams {
    const redirect = this.pending;
    this.pending = undefined;
    if (redirect === undefined) throw new Error('no authorization happened');
    if (redirect.searchParams.get('state') !== this.expectedState) throw new Error('state mismatch');
    if (!redirect.searchParams.has('code')) throw new Error(`authorization failed: ${redirect.searchParams.get('error') ?? 'no code'} ${redirect.searchParams.get('error_description') ?? ''} (asked: ${this.authorizationUrls.at(-1)?.searchParams.get('scope') ?? ''}; registered: ${JSON.stringify(this.information?.['scope'])})`);
    return redirect.searchParams;
  }

  /** The access token the SDK holds now. */
  accessToken(): string | undefined {
    const token = this.stored?.['access_token'];
    return typeof token === 'string' ? token : undefined;
  }
}
