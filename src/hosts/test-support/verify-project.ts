import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CONFIG_FILE, findProjectConfig } from "../../config/load.js";
import { trust } from "../../config/trust.js";

/** A real git project with a home and a user config folder beside it, for the hooks' verify tests. */
export interface VerifyFixture {
  root: string;
  /** The project (a git repository). */
  dir: string;
  home: string;
  /** HOME and XDG_CONFIG_HOME pointing into the fixture. */
  env: Record<string, string>;
  /** Writes the project's config file. */
  config(content: unknown): void;
  /** Trusts the config file as it is now. */
  trust(): void;
  cleanup(): void;
}

export function verifyFixture(prefix = "tc-hook-verify-"): VerifyFixture {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const dir = join(root, "project");
  const home = join(root, "home");
  mkdirSync(dir);
  mkdirSync(home);
  execFileSync("git", ["init", "-q", dir], { stdio: "ignore" });
  const env = { HOME: home, XDG_CONFIG_HOME: join(root, "xdg") };
  return {
    root,
    dir,
    home,
    env,
    config: (content) => writeFileSync(join(dir, CONFIG_FILE), JSON.stringify(content)),
    trust: () => {
      const loaded = findProjectConfig(dir, home);
      if (loaded === null) throw new Error("no config to trust");
      trust(loaded, { env, home, now: Date.now() });
    },
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}
