/**
 * The page of the CORS browser spec: rxmcp's client on the fetch Streamable HTTP transport, talking to an MCP
 * endpoint on another origin (`?mcp=<url>`, `?era=legacy|modern`). It lists the tools, calls `weather` (whose
 * `region` argument a modern client mirrors as an `Mcp-Param-Region` header), closes the session, and writes
 * what happened into #status: `done: <tools> | <result>` or `failed: <error>`.
 */
import { createClient } from '../../../client/create-client.ts';
import { createFetchHttpClientTransport } from '../../../transports/http/web.ts';

function status(text: string): void {
  const element = document.getElementById('status');
  if (element !== null) element.textContent = text;
}

async function main(): Promise<void> {
  const params = new URLSearchParams(location.search);
  const endpoint = params.get('mcp');
  if (endpoint === null) throw new Error('the page needs ?mcp=<url>');
  const era = params.get('era') === 'legacy' ? 'legacy' : 'modern';
  const client = await createClient({ name: 'rxmcp-cross-origin-page', version: '1.0.0', era }).connect(createFetchHttpClientTransport(new URL(endpoint)));
  const tools = (await client.listTools()).map((tool) => tool.name);
  const result = await client.callTool('weather', { region: 'eu-west' });
  const first = result.content[0];
  await client.close();
  status(`done: ${tools.join(',')} | ${first !== undefined && first.type === 'text' ? first.text : JSON.stringify(result)}`);
}

main().catch((error: unknown) => status(`failed: ${error instanceof Error ? error.message : String(error)}`));
