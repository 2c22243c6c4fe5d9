import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CONFIG_FILE, findProjectConfig } from "./load.js";
import { trust } from "./trust.js";
import { ProjectConfigWatcher } from "./watch.js";

let root: string;
let home: string;
let repo: string;
let env: Record<string, string | undefined>;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "tc-watch-"));
  home = join(root, "home");
  repo = join(home, "repo");
  mkdirSync(join(repo, ".git"), { recursive: true });
  mkdirSync(join(repo, "src"), { recursive: true });
  env = { XDG_CONFIG_HOME: join(root, "xdg"), HOME: home };
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("ProjectConfigWatcher", () => {
  it("reads once, then again only after a file it depends on changed", async () => {
    const watcher = new ProjectConfigWatcher(join(repo, "src"), { env });
    const first = await watcher.read();
    expect(first.changed).toBe(true);
    expect(first.settings.file).toBeNull();
    const same = await watcher.read();
    expect(same.changed).toBe(false);
    expect(same.settings).toBe(first.settings);

    // A config appears at the repository root: untrusted, so no check yet.
    writeFileSync(join(repo, CONFIG_FILE), JSON.stringify({ verify: { command: "make test" } }));
    const untrusted = await watcher.read();
    expect(untrusted.changed).toBe(true);
    expect(untrusted.settings.verify).toBeNull();
    expect(untrusted.settings.notice).toMatch(/not trusted/);

    // The user trusts it from another terminal: the next read has the check.
    const loaded = findProjectConfig(repo, home);
    if (loaded === null) throw new Error("no config");
    trust(loaded, { env, home, now: 1 });
    const trusted = await watcher.read();
    expect(trusted.changed).toBe(true);
    expect(trusted.settings.verify?.command).toBe("make test");
    expect((await watcher.read()).changed).toBe(false);
  });

  it("an edit that breaks the file is a problem; fixing it clears it", async () => {
    writeFileSync(join(repo, CONFIG_FILE), JSON.stringify({ preset: "omo" }));
    const watcher = new ProjectConfigWatcher(repo, { env });
    expect((await watcher.read()).settings.preset).toBe("omo");
    writeFileSync(join(repo, CONFIG_FILE), JSON.stringify({ preset: "nope" }));
    const broken = await watcher.read();
    expect(broken.changed).toBe(true);
    expect(broken.settings.problem).toContain("preset");
    writeFileSync(join(repo, CONFIG_FILE), JSON.stringify({ preset: "pi" }));
    const fixed = await watcher.read();
    expect(fixed.settings.problem).toBeNull();
    expect(fixed.settings.preset).toBe("pi");
  });

  it("a config in a folder beyond the repository root is not looked at", async () => {
    writeFileSync(join(home, CONFIG_FILE), JSON.stringify({ preset: "omo" }));
    const watcher = new ProjectConfigWatcher(repo, { env });
    expect((await watcher.read()).settings.file).toBeNull();
  });
});
