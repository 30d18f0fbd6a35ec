/**
 * The auth/* scenarios of the conformance client: every one connects through our OAuth client
 * (`rxmcp/auth/client`) as the transport's `auth`, then lists the tools and calls `test-tool` (step-up is
 * triggered by the call). No browser: the mock authorization server redirects at once, so the authorization URL
 * is requested without following the redirect and the code read from its `Location`.
 */
import { createOAuthClient } from '../../auth/client/index.ts';
import { followAuthorizationRedirect } from '../../testing.ts';
import type { HttpClientAuth } from '../../auth/client/index.ts';
import type { ClientSession } from '../../client/session-api.ts';
import { extensionAuth } from './client-auth-extension-flows.ts';

/** The URL the suite expects as the client id when the authorization server takes metadata documents. */
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';
/** Nothing listens there: the redirect is read, never followed. */
const REDIRECT_URI = 'http://localhost:3000/callback';

interface AuthContext {
  readonly client_id?: string;
  readonly client_secret?: string;
}

/** Whether the scenario is one of ours (the auth extensions are another flow's). */
export function isAuthScenario(scenario: string): boolean {
  return scenario.startsWith('auth/');
}

/** The transport's `auth` for an auth scenario. */
export function authFor(scenario: string, scenarioContext: object): HttpClientAuth | undefined {
  if (!isAuthScenario(scenario)) return undefined;
  const context = scenarioContext as AuthContext;
  const preRegistered =
    scenario === 'auth/pre-registration' && context.client_id !== undefined
      ? { clientId: context.client_id, ...(context.client_secret === undefined ? {} : { clientSecret: context.client_secret }) }
      : undefined;
  return createOAuthClient({
    redirectUri: REDIRECT_URI,
    onAuthorizationUrl: followAuthorizationRedirect(),
    clientMetadataUrl: CLIENT_METADATA_URL,
    clientMetadata: { client_name: 'rxmcp-conformance-client' },
    ...(preRegistered === undefined ? {} : { preRegistered }),
    // The extension scenarios' grant (client credentials, JWT bearer, ID-JAG) or DPoP: client-auth-extension-flows.ts.
    ...extensionAuth(scenario, scenarioContext as Readonly<Record<string, unknown>>),
  });
}

/** After authorization: the tools, and a call of the mock's one tool. */
export async function authorizedFlow(session: ClientSession): Promise<void> {
  await session.listTools();
  const result = await session.callTool('test-tool', {});
  if (result.isError === true) throw new Error(`test-tool failed: ${JSON.stringify(result.content)}`);
}
