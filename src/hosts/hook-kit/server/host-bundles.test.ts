import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { bundleFilesOf, HostBundles } from "./host-bundles.js";

/**
 * A bundle whose top level counts its runs (in a global all bundles share) and keeps a counter of
 * its own: `bump` shows whether two events share state.
 */
const bundleSource = (name: string) => `
globalThis.__hostBundleRuns = (globalThis.__hostBundleRuns ?? 0) + 1;
let count = 0;
exports.host = ${JSON.stringify(name)};
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
  it("runs every event of a host on one set of modules, made at its first event", () => {
    const bundles = new HostBundles(bundleFilesOf(dir));
    const hosts = ["claude-code", "codex", "gemini"];
    const first = new Map<string, Record<string, unknown>>();
    for (const host of hosts) {
      const before = runs();
      first.set(host, modules(bundles, host));
      expect(runs()).toBe(before + 1);
    }
    // From then on, events of the three hosts in any order: none runs a bundle's top level.
    const before = runs();
    for (const host of ["codex", "codex", "gemini", "claude-code", "gemini", "codex"]) {
      const got = modules(bundles, host);
      expect(got).toBe(first.get(host));
      expect(got.host).toBe(host);
    }
    expect(runs()).toBe(before);
  });

  it("keeps a host's module state from one event to the next, and apart from other hosts'", () => {
    const bundles = new HostBundles(bundleFilesOf(dir));
    const bump = (host: string) => (modules(bundles, host).bump as () => number)();
    expect([bump("codex"), bump("codex"), bump("gemini"), bump("codex")]).toEqual([1, 2, 1, 3]);
  });

  it("runs the next event on a new set once the set is discarded, and only that host's", () => {
    const bundles = new HostBundles(bundleFilesOf(dir));
    const codex = modules(bundles, "codex");
    const gemini = modules(bundles, "gemini");
    (codex.bump as () => number)();
    bundles.discard("codex");
    bundles.discard("not served yet");
    const before = runs();
    const renewed = modules(bundles, "codex");
    expect(runs()).toBe(before + 1);
    expect(renewed).not.toBe(codex);
    expect((renewed.bump as () => number)()).toBe(1);
    expect(modules(bundles, "gemini")).toBe(gemini);
    expect(modules(bundles, "codex")).toBe(renewed);
  });

  it("refuses a bundle that changed under it, a removed one, and a host without one", () => {
    const bundles = new HostBundles(bundleFilesOf(dir));
    modules(bundles, "codex");
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
