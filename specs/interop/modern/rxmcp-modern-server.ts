/**
 * The rxmcp server the official SDK 2.x client talks to in the modern-era interop specs (this directory): one
 * dual-era server (`eras: 'both'`, the default) whose tools use the era-neutral handler context, so the same
 * code elicits, samples and lists roots through legacy server-to-client requests or through 2026-07-28
 * `input_required` rounds. Served in process (Streamable HTTP) or as a child program
 * (specs/support/interop-fixtures/modern/rxmcp-modern-stdio-server.ts).
 *
 * Every accepted transport (one per stdio connection, one per modern HTTP POST, one per legacy HTTP session) is
 * wrapped with the schema oracle (role `server`): what OUR server sends is checked against the official schema
 * of the revision each message belongs to. `oracle-report` hands the findings to a client in another process.
 *
 * Tools:
 *   echo {text}              -> "echo: <text>"
 *   whoami                   -> "<revision> <client name>" as the server saw the request
 *   confirm {what}           -> elicits {ok: boolean}; "confirmed <what>: ok=<ok>" / "not confirmed (<action>)"
 *   summarize {text}         -> samples the client's model; "model <model> said: <text>"
 *   where                    -> lists the client's roots; "roots: <uri> <uri> ..."
 *   add-tool {name}          -> registers a tool <name> (answers "dynamic <name>"); "added <name>"
 *   count {steps, settleMs?} -> progress 1..steps (total steps, message "step <n>"), waits settleMs, "counted <steps>"
 *   log                      -> logs debug, info, warning, error (logger "interop"), then "logged"
 *   hang {key}               -> never answers; records the abort of its signal under <key>
 *   hang-state {key}         -> "unknown" | "running" | "aborted"
 *   touch                    -> announces that memo://note changed (resources/updated), "touched memo://note"
 *   oracle-report            -> JSON {checked, violations, sent, received} over every transport this process accepted
 * Resource: memo://note ("a note"). Prompt: greet {name} -> "Hello <name>, nice to meet you."
 */
import { tap } from 'rxjs';
import type { JsonObject } from '../../../core/jsonrpc.ts';
import type { OutboundFrame, SessionAcceptorPort, Transport } from '../../../core/transport.ts';
import { type McpServer, createServer } from '../../../server/create-server.ts';
import type { McpSession } from '../../../session/session-core.ts';
import { type SchemaOracle, formatViolations, withSchemaOracle } from '../../support/schema-oracle.ts';

const MODERN_REVISION = '2026-07-28';

export const NOTE_URI = 'memo://note';
export const NOTE_TEXT = 'a note';
export const RXMCP_SERVER_NAME = 'rxmcp-modern-interop';
export const RXMCP_TOOLS = ['add-tool', 'confirm', 'count', 'echo', 'hang', 'hang-state', 'log', 'oracle-report', 'summarize', 'touch', 'where', 'whoami'] as const;

export interface OracleReport {
  readonly checked: number;
  /** Formatted violations of every oracle; empty when every message was valid. */
  readonly violations: string;
  /** What the server sent, by kind: `input_required` results, and requests to the client (by method). */
  readonly sent: { readonly inputRequired: number; readonly requests: readonly string[] };
  /** The methods of the requests the server received, in order. */
  readonly received: readonly string[];
}

export interface ModernInteropServer {
  readonly server: McpServer;
  /** The server behind the schema oracle: hand this to a transport. */
  readonly acceptor: SessionAcceptorPort;
  /** One oracle per accepted transport, in order. */
  readonly oracles: readonly SchemaOracle[];
  report(): OracleReport;
}

const objectSchema = (properties: JsonObject, required: readonly string[] = []): JsonObject => ({
  type: 'object',
  properties,
  ...(required.length === 0 ? {} : { required: [...required] }),
});

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export function createModernInteropServer(): ModernInteropServer {
  const server = createServer({ name: RXMCP_SERVER_NAME, version: '3.0.0', instructions: 'A dual-era rxmcp server for the modern interop specs.' });
  const oracles: SchemaOracle[] = [];
  const sent: Tally = { inputRequired: 0, requests: [], received: [] };
  const hangs = new Map<string, 'running' | 'aborted'>();
  const report = (): OracleReport => ({
    checked: oracles.reduce((sum, oracle) => sum + oracle.checked, 0),
    violations: oracles.map((oracle) => formatViolations(oracle.violations)).filter((text) => text.length > 0).join('\n'),
    sent: { inputRequired: sent.inputRequired, requests: [...sent.requests] },
    received: [...sent.received],
  });

  server.tool({ name: 'echo', description: 'Echoes its text', inputSchema: objectSchema({ text: { type: 'string' } }, ['text']) }, ({ text }) => `echo: ${String(text)}`);
  server.tool({ name: 'whoami', description: 'The revision and client name the server saw' }, (_args, ctx) =>
    `${ctx.session.revision ?? '?'} ${ctx.session.peerInfo?.name ?? '?'}`,
  );
  server.tool({ name: 'confirm', description: 'Asks the user to confirm', inputSchema: objectSchema({ what: { type: 'string' } }, ['what']) }, async ({ what }, ctx) => {
    const answer = await ctx.elicit({
      message: `Confirm ${String(what)}?`,
      requestedSchema: { type: 'object', properties: { ok: { type: 'boolean', title: 'OK' } }, required: ['ok'] },
    });
    return answer.action === 'accept' ? `confirmed ${String(what)}: ok=${String(answer.content?.['ok'])}` : `not confirmed (${answer.action})`;
  });
  server.tool({ name: 'summarize', description: "Asks the client's model", inputSchema: objectSchema({ text: { type: 'string' } }, ['text']) }, async ({ text }, ctx) => {
    const sampled = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: `Summarize: ${String(text)}` } }], maxTokens: 32 });
    const blocks = Array.isArray(sampled.content) ? sampled.content : [sampled.content];
    const said = blocks.map((block: { type: string; text?: unknown }) => (block.type === 'text' ? String(block.text) : `[${block.type}]`)).join('');
    return `model ${sampled.model} said: ${said}`;
  });
  server.tool({ name: 'where', description: "Lists the client's roots" }, async (_args, ctx) => {
    const roots = await ctx.roots();
    return `roots: ${roots.map((root) => root.uri).join(' ')}`;
  });
  server.tool({ name: 'add-tool', description: 'Registers a tool', inputSchema: objectSchema({ name: { type: 'string' } }, ['name']) }, ({ name }) => {
    server.tool({ name: String(name), description: 'Added at run time' }, () => `dynamic ${String(name)}`);
    return `added ${String(name)}`;
  });
  server.tool({ name: 'oracle-report', description: 'What the schema oracle saw in this process' }, () => JSON.stringify(report()));
  server.tool(
    {
      name: 'count',
      description: 'Reports progress per step',
      inputSchema: objectSchema({ steps: { type: 'integer', minimum: 1, maximum: 10 }, settleMs: { type: 'integer', minimum: 0, maximum: 1000 } }, ['steps']),
    },
    async ({ steps, settleMs }, ctx) => {
      const total = Number(steps);
      for (let step = 1; step <= total; step++) {
        await delay(2);
        ctx.progress({ progress: step, total, message: `step ${step}` });
      }
      await delay(Number(settleMs ?? 0));
      return `counted ${total}`;
    },
  );
  server.tool({ name: 'log', description: 'Logs at four levels' }, (_args, ctx) => {
    for (const level of ['debug', 'info', 'warning', 'error'] as const) ctx.log(level, { level }, 'interop');
    return 'logged';
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
  server.tool({ name: 'touch', description: 'Announces that the note changed' }, () => {
    server.notifyResourceUpdated(NOTE_URI);
    return `touched ${NOTE_URI}`;
  });

  server.resource({ uri: NOTE_URI, name: 'note', mimeType: 'text/plain' }, () => NOTE_TEXT);
  server.prompt({ name: 'greet', description: 'Greets someone', arguments: [{ name: 'name', required: true }] }, ({ name }) => `Hello ${name ?? '?'}, nice to meet you.`);

  const acceptor: SessionAcceptorPort = {
    // The HTTP transport serves the modern era only to an acceptor that says it speaks it.
    eras: server.eras,
    accept(transport, options) {
      // A modern notification names no revision: the oracle is told the one the session runs (once known).
      const accepted: { session?: McpSession } = {};
      const revision = (): string | undefined => (accepted.session?.era === 'modern' ? MODERN_REVISION : accepted.session?.revision);
      const checked = withSchemaOracle(tallied(transport, sent), { role: 'server', revision });
      oracles.push(checked.oracle);
      accepted.session = server.accept(checked.transport, options);
      return accepted.session;
    },
  };
  return { server, acceptor, oracles, report };
}

interface Tally {
  inputRequired: number;
  readonly requests: string[];
  readonly received: string[];
}

type Fields = { method?: unknown; id?: unknown; result?: { resultType?: unknown } };
const messagesOf = (payload: unknown): Fields[] =>
  (Array.isArray(payload) ? payload : [payload]).filter((message): message is Fields => typeof message === 'object' && message !== null);

/** `inner`, counting what goes out and the requests that come in into `sent`. */
function tallied(inner: Transport, sent: Tally): Transport {
  const count = (fields: Fields): void => {
    if (typeof fields.method === 'string' && fields.id !== undefined) sent.requests.push(fields.method);
    if (fields.result?.resultType === 'input_required') sent.inputRequired++;
  };
  return {
    get kind() {
      return inner.kind;
    },
    incoming$: inner.incoming$.pipe(
      tap((frame) => {
        if (frame.type !== 'message') return;
        for (const fields of messagesOf(frame.payload)) if (typeof fields.method === 'string' && fields.id !== undefined) sent.received.push(fields.method);
      }),
    ),
    negotiated: (revision) => inner.negotiated?.(revision),
    send(frame: OutboundFrame) {
      for (const fields of messagesOf(frame.payload)) count(fields);
      return inner.send(frame);
    },
    close(reason) {
      return inner.close(reason);
    },
  };
}
