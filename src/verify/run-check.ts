import { spawn } from "node:child_process";
import type { CheckResult } from "../core/types.js";

/** The tail of a check's output kept for the nudge and the log. */
export const TAIL_MAX_BYTES = 8 * 1024;
export const TAIL_MAX_LINES = 40;
/** After SIGTERM to the group, SIGKILL follows this long after. */
export const KILL_GRACE_MS = 1_000;

/** Keeps only the last `max` bytes written to it, whatever the volume. */
export class TailBuffer {
  #chunks: Buffer[] = [];
  #size = 0;
  constructor(readonly max: number = TAIL_MAX_BYTES) {}

  push(chunk: Buffer): void {
    if (chunk.length >= this.max) {
      this.#chunks = [chunk.subarray(chunk.length - this.max)];
      this.#size = this.max;
      return;
    }
    this.#chunks.push(chunk);
    this.#size += chunk.length;
    while (this.#size - (this.#chunks[0]?.length ?? 0) >= this.max) {
      this.#size -= this.#chunks.shift()?.length ?? 0;
    }
  }

  /** The last lines (at most `maxLines`), trimmed, decoded leniently. */
  text(maxLines: number = TAIL_MAX_LINES): string {
    let buffer = Buffer.concat(this.#chunks);
    if (buffer.length > this.max) buffer = buffer.subarray(buffer.length - this.max);
    // A cut may land inside a multi-byte character: drop continuation bytes at the start.
    let start = 0;
    while (start < buffer.length && start < 4 && ((buffer[start] ?? 0) & 0xc0) === 0x80) start += 1;
    const lines = buffer
      .subarray(start)
      .toString("utf8")
      .replace(/\r\n?/g, "\n")
      .trimEnd()
      .split("\n");
    return lines.slice(-maxLines).join("\n");
  }
}

export interface RunCheckOptions {
  command: string;
  cwd: string;
  timeoutMs: number;
  env?: NodeJS.ProcessEnv;
  now?: () => number;
}

/**
 * Runs the check through the shell in its own process group, so a timeout
 * kills everything it started (SIGTERM, then SIGKILL after a grace period).
 * Never throws: a command that cannot start is an `error` result. The tree
 * fingerprint is filled in by the caller.
 */
export function runCheck(options: RunCheckOptions): Promise<Omit<CheckResult, "tree">> {
  const now = options.now ?? Date.now;
  const startedAt = now();
  const t0 = performance.now();
  const tail = new TailBuffer();
  return new Promise((resolve) => {
    let settled = false;
    let timedOut = false;
    let timer: NodeJS.Timeout | undefined;
    let killer: NodeJS.Timeout | undefined;
    const finish = (
      status: CheckResult["status"],
      exitCode: number | null,
      signal: string | null,
    ) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(killer);
      resolve({
        command: options.command,
        status,
        exitCode,
        signal,
        startedAt,
        durationMs: Math.round(performance.now() - t0),
        outputTail: tail.text(),
      });
    };
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(options.command, {
        cwd: options.cwd,
        env: options.env ?? process.env,
        shell: true,
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
      });
    } catch (error) {
      tail.push(Buffer.from(error instanceof Error ? error.message : String(error)));
      finish("error", null, null);
      return;
    }
    const killGroup = (signal: NodeJS.Signals) => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, signal);
      } catch {
        // The group is already gone.
      }
    };
    timer = setTimeout(() => {
      timedOut = true;
      killGroup("SIGTERM");
      killer = setTimeout(() => killGroup("SIGKILL"), KILL_GRACE_MS);
    }, options.timeoutMs);
    child.stdout?.on("data", (chunk: Buffer) => tail.push(chunk));
    child.stderr?.on("data", (chunk: Buffer) => tail.push(chunk));
    child.on("error", (error) => {
      tail.push(Buffer.from(`\n${error.message}`));
      finish("error", null, null);
    });
    child.on("close", (code, signal) => {
      if (timedOut) {
        // Whatever is left of the group goes too.
        killGroup("SIGKILL");
        finish("timed-out", null, signal);
        return;
      }
      finish(code === 0 ? "passed" : "failed", code, signal);
    });
    child.on("exit", () => {
      // Background processes the check left behind may hold its output open;
      // the result does not wait for them beyond a moment.
      setTimeout(() => {
        if (!settled && !timedOut) {
          child.stdout?.destroy();
          child.stderr?.destroy();
        }
      }, 200).unref();
    });
  });
}
