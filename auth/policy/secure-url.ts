/**
 * The transport rule of both sides of the auth kit: a token, a client secret or a document that decides where
 * they go (metadata, keys, introspection, the OAuth endpoints) travels over HTTPS, or over plain http to this
 * machine only.
 *
 * "This machine" is decided on the URL's host as the WHATWG URL parser leaves it (lower case, IPv4 in dotted
 * form, IPv6 compressed in brackets), so `http://127.1/`, `http://LOCALHOST/` and `http://[0:0::1]/` are read as
 * the loopback hosts they are:
 * - `127.0.0.0/8`, and `[::1]`;
 * - `localhost` itself. Its subdomains (`auth.localhost`) are not: browsers pin them to loopback, but Node asks
 *   the system resolver, which may send them anywhere. IPv4-mapped IPv6 (`[::ffff:127.0.0.1]`) is not either:
 *   it is a way to spell an address, not one a loopback server is configured with.
 */

/** Whether `hostname` (a URL's `hostname`, brackets kept for IPv6) names this machine. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  if (host === 'localhost' || host === '[::1]') return true;
  const quad = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  return quad !== null && quad.slice(1).every((octet) => Number(octet) <= 255);
}

/**
 * Why `url` may not be used for OAuth traffic (a phrase naming it), or undefined when it may: `https:`, or `http:`
 * on a loopback host when `loopbackHttp` allows it (the OAuth client always does; the resource server only with
 * `allowLoopbackHttp`).
 */
export function insecureUrlReason(url: URL, loopbackHttp: boolean): string | undefined {
  if (url.protocol === 'https:') return undefined;
  if (url.protocol !== 'http:') return `a ${url.protocol} URL is neither HTTPS nor loopback http`;
  if (!isLoopbackHost(url.hostname)) return `${url.origin} is neither HTTPS nor loopback`;
  return loopbackHttp ? undefined : `${url.origin} is plain http, allowed for loopback hosts only with allowLoopbackHttp`;
}
