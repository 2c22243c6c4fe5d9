import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CONFIG_FILE, findProjectConfig } from "../load.js";
import { trust } from "../trust.js";

/** A git project under a home of its own, for tests of hosts that read the project config. */
export interface TestProject {
  root: string;
  home: string;
  repo: string;
  /** HOME and XDG_CONFIG_HOME inside `root`: the trust record lives there. */
  env: Record<string, string | undefined>;
  /** Writes the config; `trusted` records it as `todo-continuation trust` does. */
  config(content: unknown, trusted?: boolean): void;
  /** A check that counts its runs (see `runs`) and then runs `check` (default: fails until `DONE` exists). */
  counting(check?: string): string;
  /** How often a `counting` check ran. */
  runs(): number;
  cleanup(): void;
}

export function testProject(prefix: string): TestProject {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const home = join(root, "home");
  const repo = join(home, "repo");
  mkdirSync(repo, { recursive: true });
  execFileSync("git", ["init", "-q"], { cwd: repo });
  const env = { HOME: home, XDG_CONFIG_HOME: join(root, "xdg") };
  const counter = join(root, "runs.txt");
  return {
    root,
    home,
    repo,
    env,
    config(content, trusted = true) {
      writeFileSync(join(repo, CONFIG_FILE), JSON.stringify(content));
      if (!trusted) return;
      const loaded = findProjectConfig(repo, home);
      if (loaded === null) throw new Error("no config found");
      trust(loaded, { env, home, now: Date.now() });
    },
    counting(check = 'test -e DONE || { echo "DONE is missing"; exit 1; }') {
      return `echo run >> ${counter}; ${check}`;
    },
    runs() {
      return existsSync(counter)
        ? readFileSync(counter, "utf8").split("\n").filter(Boolean).length
        : 0;
    },
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}
