/**
 * The page the NATS browser spec drives: rxmcp's client over the NATS client transport (rxmcp/nats/client), on a
 * nats.js v3 WebSocket connection (`wsconnect` of @nats-io/nats-core), bundled for the browser by esbuild. It
 * connects to the nats-server named by `?ws=`, asks for `?era=` (legacy or modern), lists the tools, calls
 * `greet` and `count` (noting count's progress), and writes what it got as JSON into #report: all the spec reads.
 */
import { wsconnect } from '@nats-io/nats-core';
import { createClient } from '../../../client/create-client.ts';
import { connectNatsClientTransport } from '../../../transports/nats/client/index.ts';

interface Report {
  readonly tools: readonly string[];
  readonly greeting: string;
  readonly progress: readonly string[];
  readonly counted: string;
  readonly era: string;
}

function textOf(result: { readonly content: readonly { readonly type: string; readonly text?: string }[] }): string {
  const first = result.content[0];
  return first !== undefined && first.type === 'text' ? (first.text ?? '') : JSON.stringify(result);
}

async function main(): Promise<Report> {
  const query = new URLSearchParams(location.search);
  const servers = query.get('ws') ?? '';
  const name = query.get('name') ?? '';
  const era = query.get('era') === 'modern' ? 'modern' : 'legacy';
  // The transport connects by itself and owns the connection: closing the client drains it.
  const transport = await connectNatsClientTransport({ connect: () => wsconnect({ servers }), name });
  const client = await createClient({ name: 'rxmcp-nats-browser-page', version: '1.0.0', era }).connect(transport);
  try {
    const tools = (await client.listTools()).map((tool) => tool.name);
    const greeting = textOf(await client.callTool('greet', { name: 'Chromium' }));
    const progress: string[] = [];
    const counted = textOf(await client.callTool('count', { n: 3 }, { onProgress: (event) => void progress.push(`${event.progress}/${event.total ?? '?'}`) }));
    return { tools, greeting, progress, counted, era: client.session.era };
  } finally {
    await client.close();
  }
}

const report = document.getElementById('report') as HTMLElement;
main().then(
  (result) => (report.textContent = JSON.stringify(result)),
  (error: unknown) => (report.textContent = JSON.stringify({ failed: error instanceof Error ? `${error.message}\n${error.stack ?? ''}` : String(error) })),
);
