import { existsSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { claimStart } from "../../../verify/private-folder.js";
import {
  DEFAULT_IDLE_MS,
  prepareServerFolder,
  SERVER_IDLE_ENV,
  SERVER_SCRIPT,
  type ServerFiles,
} from "./server-files.js";

// Through require, on first use: most hook processes never start a server.
const require = createRequire(import.meta.url);

/** The server's script beside the hook bundles (`dist/hook/../hosts/hook-kit/server/`). */
export function serverScript(hookDir: string): string {
  return join(hookDir, "..", "hosts", "hook-kit", "server", SERVER_SCRIPT);
}

/**
 * Starts the resident hook server of `files`, detached, without waiting for
 * it: the hook that starts one has answered its own event already. At most
 * one start at a time: the start claim is created exclusively, and the server
 * removes it once it listens. False when nothing was started.
 */
export function startServer(files: ServerFiles, env: Record<string, string | undefined>): boolean {
  const script = serverScript(files.hookDir);
  if (!existsSync(script) || prepareServerFolder(files.folder) !== null) return false;
  if (!claimStart(files.start)) return false;
  try {
    const { spawn } = require("node:child_process") as typeof import("node:child_process");
    const idle = Number(env[SERVER_IDLE_ENV]);
    const idleMs = Number.isSafeInteger(idle) && idle > 0 ? idle : DEFAULT_IDLE_MS;
    const child = spawn(process.execPath, [script, files.folder, files.hookDir, String(idleMs)], {
      // Nothing of the hook's but what Node reads at start: no stdio (the host waits on the
      // hook's pipes), no folder; each event brings its own environment.
      detached: true,
      stdio: "ignore",
      cwd: "/",
      env: files.nodeEnv,
    });
    child.on("error", () => rmSync(files.start, { force: true }));
    child.unref();
    return true;
  } catch {
    rmSync(files.start, { force: true });
    return false;
  }
}
