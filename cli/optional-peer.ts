/**
 * Optional peers of rxmcp that some commands need: the nats.js v3 packages (bridge, gateway, a nats:// target) and `oidc-provider`
 * (`rxmcp dev auth-server`). Those commands load their modules when they run, so `rxmcp --help`, serve and demo
 * work without either installed, and a missing one is named with the command that installs it.
 */
export async function withPeer<M>(name: string, install: string, load: () => Promise<M>): Promise<M> {
  try {
    return await load();
  } catch (error) {
    // Only the peer itself missing: a package it needs that is missing is another problem, reported as it is.
    // `name` ending in "/" is a family of packages (the nats.js v3 ones): whichever of them is missing is named.
    const message = (error as Error).message;
    const missing = (error as { readonly code?: unknown }).code === 'ERR_MODULE_NOT_FOUND' && (name.endsWith('/') ? message.includes(`'${name}`) : message.includes(`'${name}'`));
    if (!missing) throw error;
    const start = message.indexOf(`'${name}`);
    const named = name.endsWith('/') ? message.slice(start + 1, message.indexOf("'", start + 1)) : name;
    throw new Error(`the "${named}" package is needed: install it beside rxmcp (${install})`, { cause: error });
  }
}

/** What the NATS commands need: the nats.js v3 packages (`@nats-io/...`). */
export const NATS_INSTALL = 'npm install @nats-io/transport-node @nats-io/jetstream @nats-io/kv';

export function withNats<M>(load: () => Promise<M>): Promise<M> {
  return withPeer('@nats-io/', NATS_INSTALL, load);
}

/** `rxmcp dev auth-server` only: a development tool, so a devDependency of the user's project. */
export const OIDC_PROVIDER_INSTALL = 'npm install -D oidc-provider';

export function withOidcProvider<M>(load: () => Promise<M>): Promise<M> {
  return withPeer('oidc-provider', OIDC_PROVIDER_INSTALL, load);
}
