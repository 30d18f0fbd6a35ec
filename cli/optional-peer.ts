/**
 * Optional peers of rxmcp that some commands need: `nats` (bridge, gateway, a nats:// target) and `oidc-provider`
 * (`rxmcp dev auth-server`). Those commands load their modules when they run, so `rxmcp --help`, serve and demo
 * work without either installed, and a missing one is named with the command that installs it.
 */
export async function withPeer<M>(name: string, install: string, load: () => Promise<M>): Promise<M> {
  try {
    return await load();
  } catch (error) {
    // Only the peer itself missing: a package it needs that is missing is another problem, reported as it is.
    const missing = (error as { readonly code?: unknown }).code === 'ERR_MODULE_NOT_FOUND' && (error as Error).message.includes(`'${name}'`);
    if (!missing) throw error;
    throw new Error(`the "${name}" package is needed: install it beside rxmcp (${install})`, { cause: error });
  }
}

export function withNats<M>(load: () => Promise<M>): Promise<M> {
  return withPeer('nats', 'npm install nats', load);
}

/** `rxmcp dev auth-server` only: a development tool, so a devDependency of the user's project. */
export const OIDC_PROVIDER_INSTALL = 'npm install -D oidc-provider';

export function withOidcProvider<M>(load: () => Promise<M>): Promise<M> {
  return withPeer('oidc-provider', OIDC_PROVIDER_INSTALL, load);
}
