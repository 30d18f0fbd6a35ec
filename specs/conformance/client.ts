/**
 * The conformance client program: `npm run conformance:client -- <url>`. The official suite starts a mock
 * server per scenario, appends its URL as the last argument, names the scenario in MCP_CONFORMANCE_SCENARIO,
 * passes scenario data in MCP_CONFORMANCE_CONTEXT (JSON) and, from suite 0.2.0-alpha on, the wire version in
 * MCP_CONFORMANCE_PROTOCOL_VERSION: a dated revision means the legacy `initialize` handshake at that revision,
 * 2026-07-28 the modern stateless wire (no handshake; `server/discover` first). Exit 0 when the scenario's
 * flow completed.
 */
import { createClient } from '../../client/create-client.ts';
import type { ClientSession } from '../../client/session-api.ts';
import type { JsonObject } from '../../core/jsonrpc.ts';
import type { Tool } from '../../core/protocol/index.ts';
import { type LegacyRevision, LEGACY_REVISIONS, MODERN_REVISIONS } from '../../core/protocol/versions.ts';
import { createStreamableHttpClientTransport } from '../../transports/http/client/index.ts';
import { authFor, authorizedFlow, isAuthScenario } from './client-auth-flows.ts';
import { skillsFlows } from './client-skills-flows.ts';

interface ScenarioContext {
  readonly toolCalls?: readonly { readonly name: string; readonly arguments?: JsonObject }[];
}

type Flow = (session: ClientSession, context: ScenarioContext) => Promise<void>;

/** Calls a tool and fails the flow when the tool reports an error. */
async function callOk(session: ClientSession, name: string, args: JsonObject = {}): Promise<void> {
  const result = await session.callTool(name, args);
  if (result.isError === true) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
}

const SAMPLE_VALUES: Readonly<Record<string, unknown>> = { integer: 1, number: 1, boolean: true, object: {}, array: [], null: null };

/** Arguments for a tool nobody told us how to call: a plain value of the declared type for each required property. */
function sampleArguments(tool: Tool): JsonObject {
  const schema = tool.inputSchema as JsonObject;
  const properties = (schema['properties'] ?? {}) as Record<string, JsonObject>;
  const required: readonly unknown[] = Array.isArray(schema['required']) ? schema['required'] : [];
  const args: Record<string, unknown> = {};
  for (const name of required) {
    if (typeof name !== 'string') continue;
    const property = properties[name] ?? {};
    const type = property['type'];
    const choices = property['enum'];
    args[name] = Array.isArray(choices) && choices.length > 0 ? choices[0] : typeof type === 'string' && type in SAMPLE_VALUES ? SAMPLE_VALUES[type] : 'conformance';
  }
  return args;
}

const flows: Record<string, Flow> = {
  ...skillsFlows,
  // The initialize mock declares no tools: list them only when the server offers them.
  initialize: async (session) => {
    if (session.serverCapabilities?.tools !== undefined) await session.listTools();
  },
  tools_call: async (session) => {
    await session.listTools();
    await callOk(session, 'add_numbers', { a: 5, b: 3 });
  },
  'elicitation-sep1034-client-defaults': async (session) => {
    await session.listTools();
    await session.callTool('test_client_elicitation_defaults', {});
  },
  'sse-retry': async (session) => {
    await session.listTools();
    await session.callTool('test_reconnection', {});
  },
  // Hands the focal tool's inputSchema back exactly as the client kept it; the mock diffs the keywords.
  'json-schema-2020-12-preservation': async (session) => {
    const tools = await session.listTools();
    const focal = tools.find((tool) => tool.name === 'json_schema_2020_12_tool');
    if (focal === undefined) throw new Error('json_schema_2020_12_tool is not listed');
    await callOk(session, 'json_schema_echo', { schema: focal.inputSchema as JsonObject });
  },
  // The first request is refused with -32022; the connect (discover) retries it. Then one ordinary request.
  'request-metadata': async (session) => {
    await session.listTools();
  },
  // Input rounds: state echoed, no state invented, nothing leaking into an unrelated call, absent resultType = complete.
  'sep-2322-client-request-state': async (session) => {
    await session.listTools();
    await Promise.all([callOk(session, 'test_mrtr_echo_state'), callOk(session, 'test_mrtr_unrelated')]);
    await callOk(session, 'test_mrtr_no_state');
    await callOk(session, 'test_mrtr_no_result_type');
  },
  // One request of every kind that carries Mcp-Method, and Mcp-Name where the method names a target.
  'http-standard-headers': async (session) => {
    for (const tool of await session.listTools()) await callOk(session, tool.name, sampleArguments(tool));
    for (const resource of await session.listResources()) await session.readResource(resource.uri);
    for (const prompt of await session.listPrompts()) await session.getPrompt(prompt.name);
  },
  'http-custom-headers': async (session, context) => {
    await session.listTools();
    const calls = context.toolCalls ?? [];
    if (calls.length === 0) throw new Error('MCP_CONFORMANCE_CONTEXT names no toolCalls');
    for (const call of calls) await callOk(session, call.name, call.arguments ?? {});
  },
  // The client drops every tool with an invalid x-mcp-header mark: whatever survives the listing is called.
  'http-invalid-tool-headers': async (session) => {
    const tools = await session.listTools();
    if (!tools.some((tool) => tool.name === 'valid_tool')) throw new Error('valid_tool was dropped from the listing');
    for (const tool of tools) await callOk(session, tool.name, sampleArguments(tool));
  },
  // Listing a tool whose schema $refs a network URL must not fetch it.
  'json-schema-ref-no-deref': async (session) => {
    const tools = await session.listTools();
    if (!tools.some((tool) => tool.name === 'lookup_user')) throw new Error('lookup_user is not listed');
  },
};

/** The era and (legacy) revision from MCP_CONFORMANCE_PROTOCOL_VERSION; unset (suite 0.1.16) = legacy at our default. */
function wire(value: string | undefined): { readonly era: 'legacy' | 'modern'; readonly protocolVersion?: LegacyRevision } | string {
  if (value === undefined || value === '') return { era: 'legacy' };
  if ((MODERN_REVISIONS as readonly string[]).includes(value)) return { era: 'modern' };
  if ((LEGACY_REVISIONS as readonly string[]).includes(value)) return { era: 'legacy', protocolVersion: value as LegacyRevision };
  return `MCP_CONFORMANCE_PROTOCOL_VERSION ${JSON.stringify(value)} is not a revision this client speaks`;
}

function scenarioContext(raw: string | undefined): ScenarioContext {
  if (raw === undefined || raw === '') return {};
  const parsed: unknown = JSON.parse(raw);
  return typeof parsed === 'object' && parsed !== null ? (parsed as ScenarioContext) : {};
}

async function main(): Promise<number> {
  const url = process.argv.at(-1);
  const scenario = process.env['MCP_CONFORMANCE_SCENARIO'] ?? 'initialize';
  const flow = isAuthScenario(scenario) ? authorizedFlow : flows[scenario];
  if (url === undefined || !/^https?:\/\//.test(url)) {
    process.stderr.write('usage: conformance client <server url>\n');
    return 2;
  }
  if (flow === undefined) {
    process.stderr.write(`scenario ${scenario} is not implemented by this client\n`);
    return 1;
  }
  const chosen = wire(process.env['MCP_CONFORMANCE_PROTOCOL_VERSION']);
  if (typeof chosen === 'string') {
    process.stderr.write(`${chosen}\n`);
    return 2;
  }
  const context = scenarioContext(process.env['MCP_CONFORMANCE_CONTEXT']);
  const client = createClient({
    ...chosen,
    name: 'rxmcp-conformance-client',
    version: '0.1.0',
    // Accepting with no content: the client fills every omitted field from the schema's defaults.
    elicitation: { form: () => ({ action: 'accept', content: {} }) },
    sampling: (params) => ({
      role: 'assistant',
      content: { type: 'text', text: `conformance answer to ${params.messages.length} message(s)` },
      model: 'rxmcp-conformance',
      stopReason: 'endTurn',
    }),
    roots: [{ uri: 'file:///conformance/root', name: 'Conformance Root' }],
  });
  const auth = authFor(scenario, context);
  const session = await client.connect(createStreamableHttpClientTransport(url, auth === undefined ? {} : { auth }));
  try {
    await flow(session, context);
  } finally {
    await session.close();
  }
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`conformance client failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
