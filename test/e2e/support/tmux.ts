import { execFileSync } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";

/**
 * An interactive host program in a detached tmux session, for the suites that
 * press keys a person would (Esc mid-turn). Each TUI gets its own tmux server
 * (`-L`), so ending it never touches anyone else's sessions.
 */

/** Whether tmux is on PATH: the interactive suites are skipped without it. */
export const hasTmux = (() => {
  try {
    execFileSync("tmux", ["-V"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

export interface Tui {
  /** The visible pane, as text. */
  screen(): string;
  /** Keys by tmux name (`Escape`, `Enter`, `C-u`). */
  keys(...names: string[]): void;
  /** Literal text, typed as is. */
  type(text: string): void;
  /** Polls `check` every 250 ms; on timeout fails with the screen. */
  until(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void>;
  /**
   * Types `text` and presses Enter until `sent()` holds: typed text arriving
   * at once reads as a paste, and Enter during a paste is swallowed.
   */
  submit(text: string, sent: () => boolean, timeoutMs?: number): Promise<void>;
  /**
   * Ends the tmux server and waits until the program's process group is gone
   * (killed after 5 s): a program still writing into its folder would race
   * the test's cleanup of that folder.
   */
  kill(): Promise<void>;
}

/**
 * Starts `argv` in `cwd` with exactly `env` (nothing inherited) in a 160x50
 * pane of a private tmux server named `socket`.
 */
export function startTui(options: {
  socket: string;
  cwd: string;
  env: Record<string, string>;
  argv: string[];
}): Tui {
  const { socket } = options;
  const tmux = (...args: string[]) => execFileSync("tmux", ["-L", socket, ...args]).toString();
  const envArgs = Object.entries(options.env).map(([k, v]) => `${k}=${v}`);
  tmux(
    "new-session",
    "-d",
    "-s",
    "tui",
    "-x",
    "160",
    "-y",
    "50",
    "-c",
    options.cwd,
    "env",
    "-i",
    ...envArgs,
    ...options.argv,
  );
  const screen = () => {
    try {
      return tmux("capture-pane", "-p", "-t", "tui");
    } catch (error) {
      return `(no pane: ${error instanceof Error ? error.message : String(error)})`;
    }
  };
  const until = async (
    what: string,
    check: () => boolean | Promise<boolean>,
    timeoutMs: number,
  ) => {
    const end = Date.now() + timeoutMs;
    while (Date.now() < end) {
      if (await check()) return;
      await sleep(250);
    }
    if (await check()) return;
    throw new Error(`timed out waiting for ${what}; screen:\n${screen()}`);
  };
  return {
    screen,
    keys: (...names) => {
      tmux("send-keys", "-t", "tui", ...names);
    },
    type: (text) => {
      tmux("send-keys", "-t", "tui", "-l", text);
    },
    until,
    submit: async (text, sent, timeoutMs = 60_000) => {
      tmux("send-keys", "-t", "tui", "-l", text);
      const end = Date.now() + timeoutMs;
      while (!sent() && Date.now() < end) {
        await sleep(1_500);
        if (sent()) return;
        tmux("send-keys", "-t", "tui", "Enter");
        // Give the program time to take the prompt before Enter is pressed again.
        const settle = Date.now() + 1_500;
        while (!sent() && Date.now() < settle) await sleep(100);
      }
      if (!sent()) throw new Error(`the prompt ${JSON.stringify(text)} was not sent:\n${screen()}`);
    },
    kill: async () => {
      let group = Number.NaN;
      try {
        group = Number(tmux("list-panes", "-t", "tui", "-F", "#{pane_pid}").trim());
        execFileSync("tmux", ["-L", socket, "kill-server"], { stdio: "ignore" });
      } catch {
        // Already gone.
      }
      // The pane's program leads its own session, so its pid names its process group.
      if (!Number.isInteger(group) || group <= 1) return;
      const alive = () => {
        try {
          process.kill(-group, 0);
          return true;
        } catch {
          return false;
        }
      };
      const end = Date.now() + 10_000;
      for (let killed = false; alive() && Date.now() < end; await sleep(100)) {
        if (!killed && Date.now() > end - 5_000) {
          killed = true;
          try {
            process.kill(-group, "SIGKILL");
          } catch {
            // Gone meanwhile.
          }
        }
      }
    },
  };
}
