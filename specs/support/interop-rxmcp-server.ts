/**
 * The rxmcp server the official SDK clients are pointed at (specs/interop/sdk*-client-vs-rxmcp.spec.ts): one
 * catalog with every legacy-era server feature an SDK client can drive, served in process (Streamable HTTP,
 * HTTP+SSE) or as a child program (interop-fixtures/rxmcp-stdio-server.ts).
 *
 * Every session's transport is wrapped with the schema oracle (role `server`), so what OUR server sends is
 * checked against the official schema whichever client talks to it. The `session-report` tool hands the
 * oracle's findings (and the negotiated revision) to the client, which is how a test reads them when the
 * server runs in another process.
 *
 * Tools:
 *   echo {text}            -> "echo: <text>"
 *   count {steps?, confirm?} -> progress 1..steps (total steps), [an elicitation], then "counted <steps>"
 *   ask                    -> elicits {name} (form mode), then "hello <name>" / "no name (<action>)"
 *   summarize {text}       -> samples the client's model, then "model <model> said: <text>"
 *   log                    -> logs debug, info, warning, error (logger "interop"), then "logged"
 *   touch {uri}            -> notifies subscribers that <uri> changed, then "touched <uri>"
 *   hang {key}             -> never answers; records the abort of its signal under <key>
 *   hang-state {key}       -> "unknown" | "running" | "aborted"
 *   toggle-tool            -> registers the tool "transient" ("here for now"), or removes it: "added" / "removed"
 *   session-report         -> JSON {revision, client, checked, violations} of the calling session
 */
import type { JsonObject } from '../../core/jsonrpc.ts';
import type { SessionAcceptorPort } from '../../core/transport.ts';
import { type McpServer, type Registration, createServer } from '../../server/create-server.ts';
import { type SchemaOracle, formatViolations, withSchemaOracle } from './schema-oracle.ts';

export const INTEROP_TOOLS = ['echo', 'count', 'ask', 'summarize', 'log', 'touch', 'hang', 'hang-state', 'toggle-tool', 'session-report'] as const;
export const COUNTER_URI = 'memo://counter';
export const LOGO_URI = 'memo://logo';
export const DAY_TEMPLATE = 'memo://days/{day}';
/** A 1x1 transparent PNG. */
export const LOGO_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';
export const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'] as const;

export interface SessionReport {
  readonly revision: string | undefined;
  readonly client: string | undefined;
  /** Messages of this session the oracle checked so far. */
  readonly checked: number;
  /** The oracle's violations, formatted; empty when every message was valid. */
  readonly violations: string;
}

export interface InteropServer {
  readonly server: McpServer;
  /** The server behind the schema oracle: give this to a transport (`serveStdio`, `createStreamableHttpServer`). */
  readonly acceptor: SessionAcceptorPort;
  /** One oracle per accepted session, in order. */
  readonly oracles: readonly SchemaOracle[];
}

const objectSchema = (properties: JsonObject, required: readonly string[] = []): JsonObject => ({
  type: 'object',
  properties,
  ...(required.length === 0 ? {} : { required: [...required] }),
});

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const completeDay = (value: string): string[] => DAYS.filter((day) => day.toLowerCase().startsWith(value.toLowerCase()));

export function createInteropServer(): InteropServer {
  const server = createServer({ name: 'rxmcp-interop', version: '1.2.3', instructions: 'An rxmcp server for the SDK interop specs.' });
  const oracles: SchemaOracle[] = [];
  const oracleOf = new WeakMap<object, SchemaOracle>();
  const hangs = new Map<string, 'running' | 'aborted'>();
  let counter = 0;

  server.tool({ name: 'echo', description: 'Echoes its text', inputSchema: objectSchema({ text: { type: 'string' } }, ['text']) }, ({ text }) => `echo: ${String(text)}`);
  server.tool(
    {
      name: 'count',
      description: 'Reports progress once per step; with `confirm`, asks the user before answering',
      inputSchema: objectSchema({ steps: { type: 'integer', minimum: 1, maximum: 10 }, confirm: { type: 'boolean' } }),
    },
    async ({ steps, confirm }, ctx) => {
      const total = typeof steps === 'number' ? steps : 3;
      for (let step = 1; step <= total; step++) {
        await delay(2); // the notifications travel as the work goes, not in one burst
        ctx.progress({ progress: step, total, message: `step ${step}` });
      }
      // An elicitation travels behind the progress notifications and is answered only once the client has
      // read them: the result then cannot overtake them (see the progress test in interop-sdk-client-flow.ts).
      if (confirm === true) await ctx.elicit({ message: `Counted ${total}: report it?`, requestedSchema: { type: 'object', properties: {} } });
      return `counted ${total}`;
    },
  );
  server.tool({ name: 'ask', description: 'Asks the user for a name' }, async (_args, ctx) => {
    const answer = await ctx.elicit({
      message: 'What is your name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string', title: 'Name', minLength: 1 } }, required: ['name'] },
    });
    const name = answer.content?.['name'];
    return answer.action === 'accept' && typeof name === 'string' ? `hello ${name}` : `no name (${answer.action})`;
  });
  server.tool({ name: 'summarize', description: "Asks the client's model", inputSchema: objectSchema({ text: { type: 'string' } }, ['text']) }, async ({ text }, ctx) => {
    const sampled = await ctx.sample({
      messages: [{ role: 'user', content: { type: 'text', text: `Summarize: ${String(text)}` } }],
      maxTokens: 64,
      systemPrompt: 'Be brief.',
    });
    const blocks = Array.isArray(sampled.content) ? sampled.content : [sampled.content];
    const said = blocks.map((block: { type: string; text?: unknown }) => (block.type === 'text' ? String(block.text) : `[${block.type}]`)).join('');
    return `model ${sampled.model} said: ${said}`;
  });
  server.tool({ name: 'log', description: 'Logs at four levels' }, (_args, ctx) => {
    for (const level of ['debug', 'info', 'warning', 'error'] as const) ctx.log(level, { level, n: 1 }, 'interop');
    return 'logged';
  });
  server.tool({ name: 'touch', description: 'Changes a resource', inputSchema: objectSchema({ uri: { type: 'string' } }, ['uri']) }, ({ uri }) => {
    counter++;
    server.notifyResourceUpdated(String(uri));
    return `touched ${String(uri)}`;
  });
  server.tool({ name: 'hang', description: 'Runs until cancelled', inputSchema: objectSchema({ key: { type: 'string' } }, ['key']) }, ({ key }, ctx) =>
    new Promise<string>((_resolve, reject) => {
      hangs.set(String(key), 'running');
      ctx.signal.addEventListener('abort', () => {
        hangs.set(String(key), 'aborted');
        reject(new Error('aborted'));
      }, { once: true });
    }),
  );
  server.tool({ name: 'hang-state', inputSchema: objectSchema({ key: { type: 'string' } }, ['key']) }, ({ key }) => hangs.get(String(key)) ?? 'unknown');
  let transient: Registration | undefined;
  server.tool({ name: 'toggle-tool', description: 'Adds the tool "transient", or removes it' }, () => {
    if (transient === undefined) {
      transient = server.tool({ name: 'transient' }, () => 'here for now');
      return 'added';
    }
    transient.remove();
    transient = undefined;
    return 'removed';
  });
  server.tool({ name: 'session-report', description: 'What the schema oracle saw of this session' }, (_args, ctx) => {
    const oracle = oracleOf.get(ctx.session);
    const report: SessionReport = {
      revision: ctx.session.revision,
      client: ctx.session.peerInfo?.name,
      checked: oracle?.checked ?? 0,
      violations: oracle === undefined ? 'no oracle for this session' : formatViolations(oracle.violations),
    };
    return JSON.stringify(report);
  });

  server.resource({ uri: COUNTER_URI, name: 'counter', title: 'Counter', mimeType: 'text/plain' }, () => `counter=${counter}`);
  server.resource({ uri: LOGO_URI, name: 'logo', mimeType: 'image/png' }, (uri) => [{ uri, mimeType: 'image/png', blob: LOGO_BASE64 }]);
  server.resourceTemplate(
    { uriTemplate: DAY_TEMPLATE, name: 'day', mimeType: 'text/plain', complete: { day: completeDay } },
    (_uri, { day }) => `Plans for ${String(day)}`,
  );
  server.prompt(
    { name: 'plan', description: 'Plans a day', arguments: [{ name: 'day', description: 'Which day', required: true, complete: completeDay }] },
    ({ day }) => `Plan ${day ?? '?'} for me.`,
  );

  const acceptor: SessionAcceptorPort = {
    accept(transport, options) {
      const checked = withSchemaOracle(transport, { role: 'server' });
      oracles.push(checked.oracle);
      const session = server.accept(checked.transport, options);
      oracleOf.set(session, checked.oracle);
      return session;
    },
  };
  return { server, acceptor, oracles };
}

/** Reads the `session-report` tool's text. */
export function parseSessionReport(text: string): SessionReport {
  return JSON.parse(text) as SessionReport;
}
