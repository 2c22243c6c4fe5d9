import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** This run's own cache folder (V8 code caches of the hook bundles), made on first use. */
let cacheHome: string | undefined;
function benchCacheHome(): string {
  if (cacheHome === undefined) {
    const made = mkdtempSync(join(tmpdir(), "tc-bench-cache-"));
    cacheHome = made;
    process.once("exit", () => rmSync(made, { recursive: true, force: true }));
  }
  return cacheHome;
}

/**
 * The environment hook processes and their bare-`node` baseline are spawned with in the
 * benchmarks: this process's, without what makes Node's own start slower on some machines only.
 * `NODE_EXTRA_CA_CERTS` makes every Node process parse a CA bundle before it runs anything (about
 * 32 ms for a 220 KB bundle on the machine the README's figures come from): both sides would pay
 * it, which hides a hook's own cost in the ratio. The hooks' code cache goes to a folder of this
 * run's own: the user's cache holds one file per host, and another build of the package run
 * meanwhile (a second checkout) would replace it under the benchmark.
 */
export function benchNodeEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, XDG_CACHE_HOME: benchCacheHome(), ...extra };
  delete env.NODE_EXTRA_CA_CERTS;
  return env;
}
