import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { bundleFilesOf, HostBundles } from "./host-bundles.js";

/**
 * A bundle whose top level counts its runs (in a global all bundles share) and keeps a counter of
 * its own: `made` tells when the set was made, `bump` shows whether two sets share state.
 */
const bundleSource = (name: string) => `
globalThis.__hostBundleRuns = (globalThis.__hostBundleRuns ?? 0) + 1;
let count = 0;
exports.host = ${JSON.stringify(name)};
exports.made = globalThis.__hostBundleRuns;
exports.bump = () => ++count;
`;

const runs = () => (globalThis as { __hostBundleRuns?: number }).__hostBundleRuns ?? 0;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tc-host-bundles-"));
  for (const host of ["claude-code", "codex", "gemini"]) {
    writeFileSync(join(dir, `${host}.cjs`), bundleSource(host));
  }
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The modules of `host`'s next event; fails the test when the table refused it. */
function modules(bundles: HostBundles, host: string): Record<string, unknown> {
  const found = bundles.modulesFor(host);
  if (!("modules" in found)) throw new Error(JSON.stringify(found));
  return found.modules;
}

describe("HostBundles", () => {
  it("has every served host's next modules made between events, whatever host came last", () => {
    const bundles = new HostBundles(bundleFilesOf(dir));
    const hosts = ["claude-code", "codex", "gemini"];
    // The first event of each host compiles and runs its bundle on the spot.
    for (const host of hosts) {
      expect(modules(bundles, host).host).toBe(host);
      expect(bundles.prepare()).toBe(1);
    }
    // From then on, events of the three hosts in any order: none runs a bundle's top level.
    const order = ["codex", "codex", "gemini", "claude-code", "gemini", "codex", "claude-code"];
    for (const host of order) {
      const before = runs();
      const got = modules(bundles, host);
      expect(runs()).toBe(before);
      expect(got.host).toBe(host);
      expect(got.made).toBeLessThanOrEqual(before);
      // Only the set this event used is made again.
      expect(bundles.prepare()).toBe(1);
      expect(runs()).toBe(before + 1);
    }
  });

  it("gives each event a set of its own: no module state reaches the next event", () => {
    const bundles = new HostBundles(bundleFilesOf(dir));
    const seen = new Set<unknown>();
    for (let event = 0; event < 5; event++) {
      const got = modules(bundles, "codex");
      expect(seen.has(got)).toBe(false);
      seen.add(got);
      expect((got.bump as () => number)()).toBe(1);
      expect((got.bump as () => number)()).toBe(2);
      bundles.prepare();
    }
  });

  it("makes nothing when no set was used, and makes a used set once", () => {
    const bundles = new HostBundles(bundleFilesOf(dir));
    expect(bundles.prepare()).toBe(0);
    modules(bundles, "gemini");
    expect(bundles.prepare()).toBe(1);
    expect(bundles.prepare()).toBe(0);
  });

  it("refuses a bundle that changed under it, a removed one, and a host without one", () => {
    const bundles = new HostBundles(bundleFilesOf(dir));
    modules(bundles, "codex");
    bundles.prepare();
    writeFileSync(join(dir, "codex.cjs"), `${bundleSource("codex")}\n// a new build`);
    const changed = bundles.modulesFor("codex");
    expect(changed).toEqual({ changed: `${join(dir, "codex.cjs")} changed` });
    rmSync(join(dir, "gemini.cjs"));
    expect(bundles.modulesFor("gemini")).toEqual({ changed: `${join(dir, "gemini.cjs")} changed` });
    expect(bundles.modulesFor("Not A Host")).toEqual({ none: "no hook bundle for Not A Host" });
    // A well-formed name whose bundle the package lacks: the package changed under the server.
    expect(bundles.modulesFor("pi")).toEqual({ changed: `${join(dir, "pi.cjs")} changed` });
  });
});
