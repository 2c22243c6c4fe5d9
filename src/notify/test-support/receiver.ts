import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A real HTTP receiver on 127.0.0.1 that records every request; `delayMs` answers late. */
export async function startReceiver(options: { status?: number; delayMs?: number } = {}): Promise<{
  url: string;
  received: Received[];
  /** Requests answered so far (a slow receiver answers `delayMs` after receiving). */
  answered: () => number;
  close(): Promise<void>;
  server: Server;
}> {
  const received: Received[] = [];
  let answered = 0;
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      body += chunk;
    });
    req.on("end", () => {
      received.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      const answer = () => {
        res.statusCode = options.status ?? 204;
        res.end();
        answered += 1;
      };
      if (options.delayMs === undefined) answer();
      else setTimeout(answer, options.delayMs).unref();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    answered: () => answered,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Polls until `check` holds or `ms` pass. */
export async function waitFor(check: () => boolean, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 20));
  }
}
