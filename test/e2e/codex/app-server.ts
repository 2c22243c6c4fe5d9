import { type ChildProcess, spawn } from "node:child_process";

/**
 * A JSON-RPC client on `codex app-server` (stdio, one JSON message a line):
 * what the Codex UI speaks. It lets a test do what only a person at the UI
 * can do with `codex exec`: steer a running turn, set a goal.
 */

export interface Notification {
  method: string;
  params: Record<string, unknown>;
}

export interface AppServer {
  request<T = Record<string, unknown>>(method: string, params: unknown): Promise<T>;
  readonly notifications: readonly Notification[];
  /** Resolves with the first notification (seen so far or later) that matches. */
  waitFor(match: (n: Notification) => boolean, timeoutMs?: number): Promise<Notification>;
  close(): Promise<void>;
}

export async function openAppServer(
  bin: string,
  cwd: string,
  env: Record<string, string>,
  track: (child: ChildProcess) => void,
): Promise<AppServer> {
  const child = spawn(bin, ["app-server"], {
    cwd,
    env,
    stdio: ["pipe", "pipe", "pipe"],
    detached: true,
  });
  track(child);
  let next = 1;
  let buffer = "";
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  const notifications: Notification[] = [];
  const waiters = new Set<() => void>();
  child.stderr?.resume();
  child.stdout?.on("data", (d: Buffer) => {
    buffer += d.toString("utf8");
    const lines = buffer.split("\n");
    buffer = lines.pop() ?? "";
    for (const line of lines) {
      if (!line.startsWith("{")) continue;
      const message = JSON.parse(line) as {
        id?: number;
        method?: string;
        result?: unknown;
        error?: { message?: string };
        params?: Record<string, unknown>;
      };
      if (message.id !== undefined && message.method === undefined) {
        const waiting = pending.get(message.id);
        pending.delete(message.id);
        if (message.error) waiting?.reject(new Error(JSON.stringify(message.error)));
        else waiting?.resolve(message.result);
      } else if (message.method !== undefined && message.id === undefined) {
        notifications.push({ method: message.method, params: message.params ?? {} });
        for (const waiter of [...waiters]) waiter();
      }
    }
  });
  const send = (message: unknown) => child.stdin?.write(`${JSON.stringify(message)}\n`);
  const request = <T>(method: string, params: unknown): Promise<T> => {
    const id = next++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${method}: no answer in 60 s`)), 60_000);
      pending.set(id, {
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v as T);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      send({ jsonrpc: "2.0", id, method, params });
    });
  };
  await request("initialize", { clientInfo: { name: "e2e", version: "1" } });
  send({ jsonrpc: "2.0", method: "initialized" });
  return {
    request,
    notifications,
    waitFor: (match, timeoutMs = 60_000) =>
      new Promise<Notification>((resolve, reject) => {
        const check = () => {
          const found = notifications.find(match);
          if (found === undefined) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `no matching notification in ${timeoutMs} ms; saw ${notifications.map((n) => n.method).join(", ")}`,
            ),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
    close: async () => {
      const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
      child.stdin?.end();
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 3_000))]);
      if (child.pid !== undefined) {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {
          // Already gone.
        }
      }
    },
  };
}
