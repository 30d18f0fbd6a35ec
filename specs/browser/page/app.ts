/**
 * The page the browser spec drives: rxmcp's client on the fetch Streamable HTTP transport, bundled for the
 * browser by esbuild. It connects to /mcp on its own origin, lists the tools, and offers two buttons: `count`
 * with a live progress display, and a `count` that the page cancels once the first progress arrives.
 * `?era=legacy` or `?era=modern` picks the protocol era (default: negotiated). Everything it does is written
 * into the DOM, which is all the spec looks at.
 */
import { createClient } from '../../../client/create-client.ts';
import { createFetchHttpClientTransport } from '../../../transports/http/web.ts';

function element(id: string): HTMLElement {
  const found = document.getElementById(id);
  if (found === null) throw new Error(`the page has no #${id}`);
  return found;
}

function log(listId: string, text: string): void {
  const item = document.createElement('li');
  item.textContent = text;
  element(listId).append(item);
}

async function main(): Promise<void> {
  const transport = createFetchHttpClientTransport(new URL('/mcp', location.href));
  const era = new URLSearchParams(location.search).get('era');
  const options: { era?: 'legacy' | 'modern' } = era === 'legacy' ? { era: 'legacy' } : era === 'modern' ? { era: 'modern' } : {};
  const client = await createClient({ name: 'rxmcp-browser-page', version: '1.0.0', ...options }).connect(transport);
  for (const tool of await client.listTools()) log('tools', tool.name);
  element('status').textContent = 'connected';

  element('count').addEventListener('click', () => {
    void client
      .callTool('count', { n: 4 }, { onProgress: (event) => log('progress', `${event.progress}/${event.total ?? '?'}`) })
      .then((result) => {
        const first = result.content[0];
        element('result').textContent = first !== undefined && first.type === 'text' ? first.text : JSON.stringify(result);
      })
      .catch((error: unknown) => (element('result').textContent = `failed: ${String(error)}`));
  });

  element('count-cancel').addEventListener('click', () => {
    const controller = new AbortController();
    void client
      .callTool('count', { n: 20 }, {
        signal: controller.signal,
        onProgress: (event) => {
          log('cancel-progress', `${event.progress}/${event.total ?? '?'}`);
          controller.abort();
        },
      })
      .then(() => (element('cancel-status').textContent = 'completed (not cancelled)'))
      .catch((error: unknown) => {
        const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : 'unknown';
        element('cancel-status').textContent = `cancelled (${code})`;
      });
  });
}

main().catch((error: unknown) => {
  element('status').textContent = `failed: ${error instanceof Error ? `${error.message}\n${error.stack ?? ''}` : String(error)}`;
});
