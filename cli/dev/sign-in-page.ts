/**
 * The one page of `rxmcp dev auth-server` a person sees: who asks for what, a name to sign in under (any name: it is
 * a development server), and Allow or Deny. Everything shown comes from the authorization request, so all of it is
 * escaped; the page loads nothing and may not be framed.
 */

export interface SignInView {
  /** The interaction the form answers (`/interaction/<uid>`). */
  readonly uid: string;
  /** The client's registered name, else its id. */
  readonly client: string;
  readonly resources: readonly string[];
  readonly scopes: readonly string[];
  /** Already signed in (a consent for more scope): the account; else the form asks for a name. */
  readonly account?: string | undefined;
  /** Why the last submission was refused. */
  readonly problem?: string | undefined;
}

/** Names the page accepts: they become the token's `sub`, so plain and short. */
export const ACCOUNT_NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;

export const SIGN_IN_PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  // No script at all; the form posts to this origin, whose answer redirects to the client (so no form-action).
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

const STYLE = 'body{font:16px/1.5 system-ui,sans-serif;max-width:38rem;margin:3rem auto;padding:0 1rem}'
  + '.dev{background:#fff3cd;border:1px solid #d9b44a;padding:.5rem 1rem}.problem{color:#a00}code{font-size:90%}'
  + 'button{font:inherit;padding:.3rem 1rem;margin-right:.5rem}input{font:inherit}';

export function signInPage(view: SignInView): string {
  const asked = view.resources.length === 0 ? 'this authorization server' : view.resources.map((resource) => `<code>${escapeHtml(resource)}</code>`).join(', ');
  const scopes = view.scopes.length === 0 ? 'no particular scope' : `the scopes ${view.scopes.map((scope) => `<code>${escapeHtml(scope)}</code>`).join(' ')}`;
  const who = view.account === undefined
    ? `<p><label>Sign in as <input name="name" value="alice" required maxlength="64" autofocus></label> (any name)</p>`
    : `<p>Signed in as <strong>${escapeHtml(view.account)}</strong>.</p>`;
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>Sign in: rxmcp development authorization server</title><style>${STYLE}</style></head>
<body>
<p class="dev">rxmcp development authorization server: anyone may sign in here under any name. For trying things on this machine only.</p>
<h1>Sign in</h1>
<p><strong>${escapeHtml(view.client)}</strong> asks for access to ${asked} with ${scopes}.</p>
${view.problem === undefined ? '' : `<p class="problem">${escapeHtml(view.problem)}</p>\n`}<form method="post" action="/interaction/${encodeURIComponent(view.uid)}">
${who}
<p><button name="decision" value="allow">Allow</button><button name="decision" value="deny">Deny</button></p>
</form>
</body>
</html>
`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
