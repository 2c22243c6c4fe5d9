import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/** The process ids of the watchers running from `folder` (their pid files). */
export function watcherPids(folder: string): number[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder)
    .filter((name) => name.endsWith(".pid"))
    .map((name) => Number(readFileSync(join(folder, name), "utf8").split("\n")[0]))
    .filter((pid) => Number.isInteger(pid) && pid > 0 && alive(pid));
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits until a watcher of `folder` listens (its pid file is written once it does). */
export async function waitForWatcher(folder: string, timeoutMs = 10_000): Promise<number> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const [pid] = watcherPids(folder);
    if (pid !== undefined) return pid;
    if (Date.now() > until) throw new Error(`no watcher came up in ${folder}`);
    await sleep(20);
  }
}

/** Ends the watchers of `folder` (tests and the bench never leave one running). */
export function stopWatchers(folder: string, signal: NodeJS.Signals = "SIGTERM"): void {
  for (const pid of watcherPids(folder)) process.kill(pid, signal);
}

/** Every watcher process whose command line names `text` (its cache file), found in /proc. */
export function watcherProcesses(text: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, "utf8");
      if (cmd.includes("watcher-main.js") && cmd.includes(text)) pids.push(Number(name));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}
