import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** Repository root (test/e2e/support -> ../../..). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

/** Host programs live here, never in the package's own node_modules. */
export const HOST_CACHE =
  process.env.TODO_CONTINUATION_HOST_CACHE ?? join(REPO_ROOT, ".cache", "hosts");

/**
 * Installs `pkg@version` into its own folder under the cache on first use and
 * returns that folder. Later runs reuse it: a user's `npm ci` stays small and
 * the e2e suites pay the download once per machine.
 */
export function ensureHost(pkg: string, version: string): string {
  const dir = join(HOST_CACHE, `${pkg.replace(/[@/]/g, "_")}@${version}`);
  const marker = join(dir, "node_modules", ...pkg.split("/"), "package.json");
  if (existsSync(marker)) return dir;
  mkdirSync(dir, { recursive: true });
  execFileSync(
    "npm",
    ["install", "--no-audit", "--no-fund", "--no-save", "--prefix", dir, `${pkg}@${version}`],
    { stdio: ["ignore", "inherit", "inherit"], timeout: 600_000 },
  );
  if (!existsSync(marker)) throw new Error(`installing ${pkg}@${version} left no ${marker}`);
  return dir;
}

/** Absolute path of a binary that `pkg` installs into the cache folder. */
export function hostBin(dir: string, bin: string): string {
  return join(dir, "node_modules", ".bin", bin);
}
