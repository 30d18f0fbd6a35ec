/**
 * The minimal host page of apps.ts. The host's MCP client runs in the host's backend (apps.ts), which reads the
 * tool's view with `rxmcp/apps/client` and calls tools; this page renders the view and relays the dialect with
 * ext-apps' `AppBridge`: it loads the view into a sandboxed iframe under the resource's Content-Security-Policy,
 * sends the tool input once the view is initialized, then the tool result, forwards the view's tool calls to
 * the backend (which calls only tools visible to apps) and shows the view's messages in its chat.
 *
 * A web host in production serves views from a sandbox origin of its own (the SEP's sandbox proxy). This page
 * keeps to one iframe: sandboxed without `allow-same-origin`, so the view runs in an opaque origin and reaches the
 * host only by postMessage, with the CSP as the first element of its document.
 */
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';
import type { CallToolResult } from '@modelcontextprotocol/client';

interface OpenedView {
  readonly html: string;
  readonly contentSecurityPolicy: string;
  readonly permissionsPolicy: string;
  readonly prefersBorder: boolean | undefined;
}

const TOOL = 'show_forecast';
const ARGUMENTS = { city: 'Lisbon' };
const byId = (id: string): HTMLElement => document.getElementById(id) as HTMLElement;

async function post<T>(path: string, body: unknown): Promise<T> {
  const response = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const answer = (await response.json()) as T & { error?: string };
  if (!response.ok) throw new Error(answer.error ?? `${path} answered ${response.status}`);
  return answer;
}

/** The view's document with its policy as the first element of its head (a meta CSP applies from there on). */
function withPolicy(html: string, policy: string): string {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${policy.replace(/"/g, '&quot;')}">`;
  const head = /<head[^>]*>/i.exec(html);
  if (head !== null) return html.slice(0, head.index + head[0].length) + meta + html.slice(head.index + head[0].length);
  return html.replace(/<!doctype html[^>]*>/i, (doctype) => `${doctype}<head>${meta}</head>`);
}

function log(text: string): void {
  const item = document.createElement('li');
  item.textContent = text;
  byId('chat').append(item);
}

async function main(): Promise<void> {
  log(`(the model calls ${TOOL} with ${JSON.stringify(ARGUMENTS)})`);
  const view = await post<OpenedView>('/host/open', { tool: TOOL });
  const frame = document.createElement('iframe');
  frame.id = 'view';
  frame.setAttribute('sandbox', 'allow-scripts');
  if (view.permissionsPolicy !== '') frame.setAttribute('allow', view.permissionsPolicy);
  frame.style.border = view.prefersBorder === false ? 'none' : '1px solid #ccc';
  frame.srcdoc = withPolicy(view.html, view.contentSecurityPolicy);
  byId('views').append(frame);

  const bridge = new AppBridge(null, { name: 'rxmcp-example-host', version: '1.0.0' }, { serverTools: {}, message: { text: {} }, logging: {} });
  bridge.oncalltool = (params) => post<CallToolResult>('/host/app-call', params);
  bridge.onmessage = async ({ content }) => {
    for (const block of content) if (block.type === 'text') log(`view: ${block.text}`);
    return {};
  };
  bridge.onsizechange = ({ height }) => {
    if (height !== undefined) frame.style.height = `${height}px`;
  };
  bridge.oninitialized = () => {
    byId('status').textContent = 'view initialized';
    void (async () => {
      await bridge.sendToolInput({ arguments: ARGUMENTS });
      const result = await post<CallToolResult>('/host/call', { name: TOOL, arguments: ARGUMENTS });
      await bridge.sendToolResult(result);
      byId('status').textContent = 'tool result sent';
    })().catch((error: unknown) => {
      byId('status').textContent = `failed: ${error instanceof Error ? error.message : String(error)}`;
    });
  };
  // Connected before the document loads, so the view's ui/initialize finds the bridge listening.
  await bridge.connect(new PostMessageTransport(frame.contentWindow as Window, frame.contentWindow as Window));
}

main().catch((error: unknown) => {
  byId('status').textContent = `failed: ${error instanceof Error ? error.message : String(error)}`;
});
