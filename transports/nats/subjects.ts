/**
 * The subjects of one MCP server name on NATS. Everything lives under `<prefix>.<name>` so that NATS subject
 * permissions can grant or refuse a whole server, one method, or the session subjects:
 *
 *   <prefix>.<name>.call.<method tokens>   requests without a session (modern era, and legacy `initialize`), queue group
 *   <prefix>.<name>.s.<session id>         one legacy session's client-to-server messages, served by its owner
 *   <prefix>.<name>.adopt                  a legacy session's request whose owner is gone, queue group
 *   <prefix>.<name>.cancel                 modern-era cancellations, every process hears them
 *   <prefix>.<name>.changes                list and resource changes, every process hears them
 *   <prefix>.<name>.p.<process id>.ping    liveness of one server process
 *   <prefix>.<name>.p.<process id>.taken   told by the process that took one of its legacy sessions over
 *
 * The method rides in the subject with `/` turned into `.` (`tools/call` -> `call.tools.call`), so a request's
 * subject, its `Mcp-Method` header and its body must agree.
 */

/** A subject token: no separators, wildcards or whitespace. */
const TOKEN = /^[A-Za-z0-9_-]+$/;
/** A full subject a peer may name (an inbox): tokens separated by dots, no wildcards. */
const SUBJECT = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;
/** Method names that map to subject tokens one to one. */
const METHOD = /^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*$/;

export function isSubjectToken(value: string): boolean {
  return TOKEN.test(value);
}

export function isPlainSubject(value: string): boolean {
  return value.length <= 512 && SUBJECT.test(value);
}

/**
 * Methods already turned into tokens: every request asks (the client for its subject, the server to check the
 * subject against the body), and a server speaks a few dozen methods. Bounded: emptied when full.
 */
const knownTokens = new Map<string, string | undefined>();
const MAX_KNOWN_TOKENS = 256;

/** The subject tokens of a method (`tools/call` -> `tools.call`), or undefined when it has no such form. */
export function methodTokens(method: string): string | undefined {
  const known = knownTokens.get(method);
  if (known !== undefined || knownTokens.has(method)) return known;
  const tokens = METHOD.test(method) ? method.replaceAll('/', '.') : undefined;
  if (knownTokens.size >= MAX_KNOWN_TOKENS) knownTokens.clear();
  knownTokens.set(method, tokens);
  return tokens;
}

export interface ServerSubjects {
  readonly base: string;
  readonly callPrefix: string;
  readonly callWildcard: string;
  readonly adopt: string;
  readonly cancel: string;
  readonly changes: string;
  call(method: string): string | undefined;
  session(sessionId: string): string;
  ping(processId: string): string;
  /** Where a process that took a legacy session over tells the previous owner (the body is the session id). */
  taken(processId: string): string;
}

export function serverSubjects(prefix: string, name: string): ServerSubjects {
  if (!isPlainSubject(prefix)) throw new TypeError(`NATS subject prefix ${JSON.stringify(prefix)} must be dot-separated tokens of [A-Za-z0-9_-]`);
  if (!isSubjectToken(name)) throw new TypeError(`MCP server name ${JSON.stringify(name)} must be one NATS subject token ([A-Za-z0-9_-]+)`);
  const base = `${prefix}.${name}`;
  const callPrefix = `${base}.call.`;
  // A client asks for the call subject of every request it sends without a session: each is made once.
  const calls = new Map<string, string | undefined>();
  return {
    base,
    callPrefix,
    callWildcard: `${base}.call.>`,
    adopt: `${base}.adopt`,
    cancel: `${base}.cancel`,
    changes: `${base}.changes`,
    call(method) {
      const known = calls.get(method);
      if (known !== undefined || calls.has(method)) return known;
      const tokens = methodTokens(method);
      const subject = tokens === undefined ? undefined : callPrefix + tokens;
      if (calls.size >= MAX_KNOWN_TOKENS) calls.clear();
      calls.set(method, subject);
      return subject;
    },
    session: (sessionId) => `${base}.s.${sessionId}`,
    ping: (processId) => `${base}.p.${processId}.ping`,
    taken: (processId) => `${base}.p.${processId}.taken`,
  };
}

export const DEFAULT_PREFIX = 'mcp';
/** The queue group every server process of a name joins. */
export const DEFAULT_QUEUE = 'mcp-servers';
