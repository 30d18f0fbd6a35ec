/**
 * `nats` is an optional peer of rxmcp: the commands that need it (bridge, gateway, a nats:// target) load
 * their NATS modules when they run, so `rxmcp --help`, serve and demo work without it installed.
 */
export async function withNats<M>(load: () => Promise<M>): Promise<M> {
  try {
    return await load();
  } catch (error) {
    const missing = (error as { readonly code?: unknown }).code === 'ERR_MODULE_NOT_FOUND' && /'nats'/.test((error as Error).message);
    if (!missing) throw error;
    throw new Error('the "nats" package is needed: install it beside rxmcp (npm install nats)', { cause: error });
  }
}
