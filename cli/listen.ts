/** Listening on a port, with the usual failures said in words that tell the user which flag to change. */

/** Runs `listen`; an address in use, a privileged port or an unknown address becomes an error naming the fix. */
export async function listenOrExplain<T>(listen: () => Promise<T>, port: number, host: string): Promise<T> {
  try {
    return await listen();
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code === 'EADDRINUSE') throw new Error(`port ${port} on ${host} is in use: pick another with --port`, { cause: error });
    if (code === 'EACCES') throw new Error(`port ${port} on ${host} needs privileges this process lacks: pick one above 1023 with --port`, { cause: error });
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
      throw new Error(`cannot listen on ${host}: it is not an address of this machine (${String(code)}): pick another with --host`, { cause: error });
    }
    throw error;
  }
}
