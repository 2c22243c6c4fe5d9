import { spawn } from "node:child_process";
import type { Store } from "../../core/types.js";
import type { FollowStatus } from "../../ui/events.js";
import type { CommandSpec } from "../command.js";
import { judgeOptions } from "../context.js";
import { UsageError } from "../errors.js";
import { storeTarget } from "../global-options.js";
import { fileRoot, storeDescription } from "../store.js";

/** Loopback addresses: binding anything else exposes the dashboard to the network. */
const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

/** Longest wait between Ctrl-C and the process ending, whatever is still closing. */
const SHUTDOWN_DEADLINE_MS = 500;

function portOption(value: string | boolean | undefined): number {
  if (value === undefined) return 0;
  const text = String(value);
  if (!/^\d+$/.test(text) || Number(text) > 65535) {
    throw new UsageError(
      `--port: expected a port number from 0 to 65535, got ${JSON.stringify(text)}`,
    );
  }
  return Number(text);
}

/** Opens a URL in the desktop's browser; failing to is not an error (the URL is printed). */
function openInBrowser(url: string): void {
  const [command, args] =
    process.platform === "darwin"
      ? ["open", [url]]
      : process.platform === "win32"
        ? ["cmd", ["/c", "start", "", url]]
        : ["xdg-open", [url]];
  try {
    const child = spawn(command, args as string[], { stdio: "ignore", detached: true });
    child.on("error", () => {});
    child.unref();
  } catch {
    // No browser launcher on this machine.
  }
}

export const uiCommand: CommandSpec = {
  name: "ui",
  summary: "Serve a live dashboard of every scope and decision, and print its URL",
  usage: ["ui [--port <n>] [--host <address>] [--open]"],
  details: [
    "Serves a local web page over the configured store (files or PostgreSQL): every scope with",
    "its counts, state, budgets and last decision; each scope's list, decision timeline and `why`;",
    "stop, resume, clear and edit with confirmation. Pages update live as any process writes.",
    "The printed URL carries a random token that every request needs; cross-origin requests are",
    "refused. Binds 127.0.0.1 unless --host says otherwise. `GET /metrics` serves Prometheus",
    "metrics (pass the token as `?token=` or `Authorization: Bearer`). Runs until interrupted.",
  ],
  options: {
    port: {
      type: "string",
      valueName: "n",
      description: "Port to listen on (default: a free one).",
    },
    host: {
      type: "string",
      valueName: "address",
      description: "Address to bind (default: 127.0.0.1).",
    },
    open: { type: "boolean", description: "Open the dashboard in the default browser." },
  },
  args: { min: 0, max: 0 },
  examples: ["ui", "ui --port 8477 --open", "--database-url postgres://localhost/todo ui"],
  async run(ctx) {
    const port = portOption(ctx.values.port);
    const host = typeof ctx.values.host === "string" ? ctx.values.host : "127.0.0.1";
    if (host.trim() === "")
      throw new UsageError("--host: expected an address, got an empty string");
    const target = storeTarget(ctx.global, ctx.io.env);
    const store = await ctx.store();
    const runtime = await ctx.runtime();
    const { startDashboard } = await import("../../ui/server.js");
    const { projectOfStore } = await import("../../ui/project.js");
    // Ctrl-C works from here on, also during the first read of a large store; a second one
    // does not wait for anything.
    const interrupted = new AbortController();
    let interrupts = 0;
    const onSignal = () => {
      interrupts++;
      if (interrupts > 1) process.exit(130);
      interrupted.abort(new Error("interrupted"));
      // Closing waits for nothing long (the dashboard only reads, and writes are atomic
      // renames), but a busy machine must not turn Ctrl-C into a wait: a deadline.
      setTimeout(() => process.exit(0), SHUTDOWN_DEADLINE_MS).unref();
    };
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
    // A large store takes a while to read: say so, and that Ctrl-C works meanwhile.
    ctx.err(ctx.style.dim("Reading the store (Ctrl-C stops)..."));
    try {
      let dashboard: Awaited<ReturnType<typeof startDashboard>>;
      try {
        dashboard = await startDashboard({
          runtime,
          storeDescription: storeDescription(ctx.global, ctx.io.env),
          project: target.kind === "file" ? projectOfStore(fileRoot(ctx.global)) : null,
          host,
          port,
          follow: (onChange, onStatus) => followStore(store, target, onChange, onStatus),
          signal: interrupted.signal,
          judge: judgeOptions(ctx.global, ctx.io.env),
        });
      } catch (error) {
        if (interrupted.signal.aborted) return 0;
        throw error;
      }
      ctx.onClose(() => dashboard.close());
      if (ctx.global.json) ctx.json({ url: dashboard.url, port: dashboard.port });
      else {
        ctx.out(`Dashboard of ${storeDescription(ctx.global, ctx.io.env)}:`);
        ctx.out(`  ${dashboard.url}`);
        if (!LOOPBACK.has(host)) {
          ctx.err(
            `warning: listening on ${host}, reachable from other machines; the token is the only lock.`,
          );
        }
        ctx.out(ctx.style.dim("Press Ctrl-C to stop."));
      }
      if (ctx.values.open === true) openInBrowser(dashboard.url);
      if (!interrupted.signal.aborted) {
        await new Promise((resolve) => interrupted.signal.addEventListener("abort", resolve));
      }
    } finally {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    }
    return 0;
  },
};

/** Follows writes from every process: a folder watch on files, LISTEN/NOTIFY on PostgreSQL. */
async function followStore(
  store: Store,
  target: ReturnType<typeof storeTarget>,
  onChange: (keys: string[] | "all") => void,
  onStatus: (status: FollowStatus) => void,
): Promise<() => Promise<void>> {
  if (target.kind === "postgres") {
    const { listenForChanges } = await import("../../store/postgres/changes.js");
    const schema = (store as { schema?: string }).schema ?? "todo_continuation";
    const listener = await listenForChanges(target.connectionString, schema, onChange);
    return () => listener.close();
  }
  const { watchFileStore } = await import("../../store/file/watch.js");
  const todoDir = (store as { todoDir?: string }).todoDir;
  if (todoDir === undefined) return async () => {};
  const watcher = watchFileStore(todoDir, onChange, { onStatus });
  await watcher.ready;
  return async () => watcher.close();
}
