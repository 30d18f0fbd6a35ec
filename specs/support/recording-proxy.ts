/**
 * A plain HTTP proxy on 127.0.0.1 in front of one endpoint, recording every request a client makes through it (its
 * method, `Last-Event-ID` and the status it got) and how many exchanges are open: what a spec reads to prove that
 * a client did (or did not) reconnect, and that nothing it opened stays open. Bodies stream through untouched in
 * both directions, so event streams arrive as the server writes them.
 */
import { type IncomingMessage, type ServerResponse, createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  readonly method: string;
  /** The `Last-Event-ID` header, when the request carried one. */
  readonly lastEventId: string | undefined;
  /** The status the server answered (undefined until the head arrived). */
  status: number | undefined;
}

export interface RecordingProxy extends AsyncDisposable {
  /** The endpoint's URL through the proxy (same path). */
  readonly url: string;
  readonly requests: readonly RecordedRequest[];
  /** Exchanges whose response has not finished yet (open event streams included). */
  readonly open: number;
  close(): Promise<void>;
}

export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const upstream = new URL(target);
  const requests: RecordedRequest[] = [];
  let open = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const lastEventId = req.headers['last-event-id'];
    const recorded: RecordedRequest = { method: req.method ?? 'GET', lastEventId: typeof lastEventId === 'string' ? lastEventId : undefined, status: undefined };
    requests.push(recorded);
    open++;
    let counted = true;
    const done = (): void => {
      if (!counted) return;
      counted = false;
      open--;
    };
    const forwarded = httpRequest(
      { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: { ...req.headers, host: upstream.host } },
      (answer) => {
        recorded.status = answer.statusCode;
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        res.flushHeaders();
        answer.pipe(res);
        answer.once('close', () => res.destroyed || res.end());
      },
    );
    forwarded.once('error', () => res.destroy());
    req.pipe(forwarded);
    // Either side leaving ends the other: a client that lets go of a stream lets go of it at the server too.
    res.once('close', () => {
      done();
      forwarded.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const close = (): Promise<void> =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return {
    url: `http://127.0.0.1:${port}${upstream.pathname}`,
    requests,
    get open() {
      return open;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
