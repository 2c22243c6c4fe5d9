import type { IncomingMessage, ServerResponse } from "node:http";
import { SECURITY_HEADERS } from "./security.js";

/** How the dashboard follows the store: change events, or rescans because events failed. */
export type FollowStatus =
  | { mode: "watching" }
  | { mode: "polling"; everyMs: number; reason: string };

/** A comment line on every open stream, so proxies and browsers keep it open. */
const KEEP_ALIVE_MS = 20_000;

/**
 * The open Server-Sent Event streams. Each page subscribes to every change
 * (the overview) or to one scope's (a scope's page) and is sent
 * `event: change` with the changed keys; the page then fetches its live part.
 */
export class EventStreams {
  readonly #streams = new Set<{ res: ServerResponse; key: string | null }>();
  #status: FollowStatus = { mode: "watching" };

  open(req: IncomingMessage, res: ServerResponse, key: string | null): void {
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      "content-type": "text/event-stream; charset=utf-8",
      connection: "keep-alive",
    });
    res.write("retry: 1000\n\n");
    res.write(statusEvent(this.#status));
    const stream = { res, key };
    this.#streams.add(stream);
    const alive = setInterval(() => res.write(": keep-alive\n\n"), KEEP_ALIVE_MS);
    req.on("close", () => {
      clearInterval(alive);
      this.#streams.delete(stream);
    });
  }

  /** Tells every stream that follows one of `keys` (an empty list reaches all). */
  announce(keys: readonly string[]): void {
    for (const { res, key } of this.#streams) {
      if (key !== null && keys.length > 0 && !keys.includes(key)) continue;
      res.write(`event: change\ndata: ${JSON.stringify(keys)}\n\n`);
    }
  }

  /** Tells every stream how changes are followed now (the page's badge says it). */
  setStatus(status: FollowStatus): void {
    this.#status = status;
    for (const { res } of this.#streams) res.write(statusEvent(status));
  }

  get status(): FollowStatus {
    return this.#status;
  }

  closeAll(): void {
    for (const { res } of this.#streams) res.end();
    this.#streams.clear();
  }
}

function statusEvent(status: FollowStatus): string {
  return `event: status\ndata: ${JSON.stringify(status)}\n\n`;
}
