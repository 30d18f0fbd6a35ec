/**
 * The conformance client program: `npm run conformance:client -- <url>`. The official suite starts a mock
 * server per scenario, appends its URL as the last argument and names the scenario in
 * MCP_CONFORMANCE_SCENARIO. Exit 0 when the scenario's flow completed.
 */
import { createClient } from '../../machines/client.ts';
import { createStreamableHttpClientTransport } from '../../transports/http/client/index.ts';

type Flow = (session: Awaited<ReturnType<ReturnType<typeof createClient>['connect']>>) => Promise<void>;

const flows: Record<string, Flow> = {
  // The initialize mock declares no tools: list them only when the server offers them.
  initialize: async (session) => {
    if (session.serverCapabilities?.tools !== undefined) await session.listTools();
  },
  tools_call: async (session) => {
    await session.listTools();
    const result = await session.callTool('add_numbers', { a: 5, b: 3 });
    if (result.isError === true) throw new Error(`add_numbers failed: ${JSON.stringify(result.content)}`);
  },
  'elicitation-sep1034-client-defaults': async (session) => {
    await session.listTools();
    await session.callTool('test_client_elicitation_defaults', {});
  },
  'sse-retry': async (session) => {
    await session.listTools();
    await session.callTool('test_reconnection', {});
  },
};

async function main(): Promise<number> {
  const url = process.argv.at(-1);
  const scenario = process.env['MCP_CONFORMANCE_SCENARIO'] ?? 'initialize';
  const flow = flows[scenario];
  if (url === undefined || !/^https?:\/\//.test(url)) {
    process.stderr.write('usage: conformance client <server url>\n');
    return 2;
  }
  if (flow === undefined) {
    process.stderr.write(`scenario ${scenario} is not implemented by this client\n`);
    return 1;
  }
  const client = createClient({ era: 'legacy',
    name: 'rxmcp-conformance-client',
    version: '0.1.0',
    // Accepting with no content: the client fills every omitted field from the schema's defaults.
    elicitation: { form: () => ({ action: 'accept', content: {} }) },
  });
  const session = await client.connect(createStreamableHttpClientTransport(url));
  try {
    await flow(session);
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
