import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** Repository root (test/e2e/support -> ../../..). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

/** Host programs live here, never in the package's own node_modules. */
export const HOST_CACHE =
  process.env.TODO_CONTINUATION_HOST_CACHE ?? join(REPO_ROOT, ".cache", "hosts");

/** Seconds to wait before each retry of an install that failed. */
const RETRY_WAITS_S = [10, 60, 180];

/**
 * Installs `pkg@version` into its own folder under the cache on first use and
 * returns that folder. Later runs reuse it: a user's `npm ci` stays small and
 * the e2e suites pay the download once per machine. An install that fails is
 * tried again, three times over four minutes, asking the registry afresh
 * (`--prefer-online`): a host's dependency ranges resolve at install time, and
 * a package's metadata (cached by npm, or by the registry's own proxy while a
 * release propagates) can lack the version a newer dependent asks for (seen
 * for pi: `ETARGET` for `@aws-sdk/nested-clients@^3.998.5` for about four
 * minutes, an hour after an install of the same pi had worked).
 */
export function ensureHost(pkg: string, version: string): string {
  const dir = join(HOST_CACHE, `${pkg.replace(/[@/]/g, "_")}@${version}`);
  const marker = join(dir, "node_modules", ...pkg.split("/"), "package.json");
  if (existsSync(marker)) return dir;
  for (let attempt = 0; ; attempt++) {
    // A failed install may leave half a tree behind: each attempt starts from nothing.
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    try {
      execFileSync(
        "npm",
        [
          "install",
          "--no-audit",
          "--no-fund",
          "--no-save",
          ...(attempt > 0 ? ["--prefer-online"] : []),
          "--prefix",
          dir,
          `${pkg}@${version}`,
        ],
        { stdio: ["ignore", "inherit", "inherit"], timeout: 600_000 },
      );
      if (existsSync(marker)) return dir;
      throw new Error(`installing ${pkg}@${version} left no ${marker}`);
    } catch (error) {
      const wait = RETRY_WAITS_S[attempt];
      if (wait === undefined) throw error;
      process.stderr.write(
        `installing ${pkg}@${version} failed (${String(error).split("\n")[0]}); again in ${wait} s\n`,
      );
      execFileSync("sleep", [String(wait)]);
    }
  }
}

/** Absolute path of a binary that `pkg` installs into the cache folder. */
export function hostBin(dir: string, bin: string): string {
  return join(dir, "node_modules", ".bin", bin);
}
