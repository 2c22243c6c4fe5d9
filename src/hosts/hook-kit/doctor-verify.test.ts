import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CONFIG_FILE, findProjectConfig } from "../../config/load.js";
import { trust } from "../../config/trust.js";
import { projectConfigFindings, shortestStop, verifyFindings } from "./doctor-verify.js";

/** How often the config file was looked for (doctor should read it once per host). */
const reads = vi.hoisted(() => ({ count: 0 }));
vi.mock("../../config/load.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../config/load.js")>();
  return {
    ...real,
    findProjectConfig: (...args: Parameters<typeof real.findProjectConfig>) => {
      reads.count++;
      return real.findProjectConfig(...args);
    },
  };
});

let root: string;
let home: string;
let repo: string;
let env: Record<string, string | undefined>;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "tc-doctor-verify-"));
  home = join(root, "home");
  repo = join(home, "repo");
  mkdirSync(join(repo, ".git"), { recursive: true });
  env = { HOME: home, XDG_CONFIG_HOME: join(root, "xdg") };
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

const ctx = () => ({ cwd: repo, home, env });

/** A config with a `verify`, trusted as `todo-continuation trust` would. */
function trustedVerifyConfig(): void {
  writeFileSync(join(repo, CONFIG_FILE), JSON.stringify({ verify: { command: "npm test" } }));
  const loaded = findProjectConfig(repo, home);
  if (loaded === null) throw new Error("no config");
  trust(loaded, { env, home, now: 1 });
}

describe("projectConfigFindings (every host's doctor)", () => {
  it("says nothing without a config file, or with one that has no verify", () => {
    expect(projectConfigFindings("opencode", ctx(), "the plugin never nudges")).toEqual([]);
    writeFileSync(join(repo, CONFIG_FILE), JSON.stringify({ preset: "omo" }));
    expect(projectConfigFindings("opencode", ctx(), "the plugin never nudges")).toEqual([]);
  });

  it("an untrusted verify is a problem whose fix is `todo-continuation trust`; trusting clears it", () => {
    writeFileSync(join(repo, CONFIG_FILE), JSON.stringify({ verify: { command: "npm test" } }));
    const [before] = projectConfigFindings("pi", ctx(), "the extension never nudges");
    expect(before).toMatchObject({ host: "pi", check: "verify", ok: false });
    expect(before?.fix).toBe("todo-continuation trust");
    expect(before?.message).toContain("is not trusted");
    const loaded = findProjectConfig(repo, home);
    if (loaded === null) throw new Error("no config");
    trust(loaded, { env, home, now: 1 });
    const [after] = projectConfigFindings("pi", ctx(), "the extension never nudges");
    expect(after).toMatchObject({ check: "verify", ok: true });
    expect(after?.message).toContain("verify runs");
  });

  it("an invalid file names the field and says what the host then does", () => {
    writeFileSync(join(repo, CONFIG_FILE), JSON.stringify({ verify: { command: 7 } }));
    const found = projectConfigFindings("opencode", ctx(), "the plugin never nudges");
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ check: "config", ok: false });
    expect(found[0]?.message).toContain("the plugin never nudges");
    expect(found[0]?.message).toContain("verify.command");
  });

  it("an untrusted notify is a problem fixed by `todo-continuation trust`; trusted, it says notifications go out", () => {
    writeFileSync(join(repo, CONFIG_FILE), JSON.stringify({ notify: { command: "true" } }));
    const [before] = projectConfigFindings("codex", ctx(), "the hooks allow every stop");
    expect(before).toMatchObject({ check: "notify", ok: false, fix: "todo-continuation trust" });
    expect(before?.message).toMatch(/^notify not sent: .* is not trusted/);
    const loaded = findProjectConfig(repo, home);
    if (loaded === null) throw new Error("no config");
    trust(loaded, { env, home, now: 1 });
    const [after] = projectConfigFindings("codex", ctx(), "the hooks allow every stop");
    expect(after).toMatchObject({ check: "notify", ok: true });
    expect(after?.message).toContain("notifications go out");
  });
});

describe("verifyFindings: the project's shared watcher", () => {
  it("says whether a watcher runs for the project, once its verify runs", () => {
    trustedVerifyConfig();
    const watchers = join(root, "watchers");
    mkdirSync(watchers, { mode: 0o700 });
    env.TODO_CONTINUATION_WATCHER_DIR = watchers;
    const watcher = () =>
      verifyFindings("claude-code", ctx(), null, "install").find((f) => f.check === "watcher");
    expect(watcher()?.message).toContain("no watcher running");
    // A live process's pid file naming this project.
    writeFileSync(join(watchers, "k.pid"), `${process.pid}\n${repo}\n`);
    expect(watcher()?.message).toBe(`watcher running for ${repo} (pid ${process.pid})`);
    env.TODO_CONTINUATION_VERIFY_WATCHER = "0";
    expect(watcher()?.message).toContain("watcher off");
  });
});

describe("verifyFindings: one read of the config", () => {
  it("finds the project config once for the config, verify and timeout findings", () => {
    trustedVerifyConfig();
    reads.count = 0;
    const found = verifyFindings("codex", ctx(), null, "install");
    expect(found.map((f) => f.check)).toEqual(["verify", "timeout", "watcher"]);
    expect(reads.count).toBe(1);
  });
});

describe("shortestStop", () => {
  it("takes the install that waits least; one with no timeout written waits longest", () => {
    const a = { stopMs: 30_000, at: "a" };
    const b = { stopMs: 5_000, at: "b" };
    const none = { stopMs: null, at: "none" };
    expect(shortestStop([a, b, none])?.at).toBe("b");
    expect(shortestStop([none, a])?.at).toBe("a");
    expect(shortestStop([none])?.at).toBe("none");
    expect(shortestStop([a, { stopMs: 30_000, at: "tie" }])?.at).toBe("a");
    expect(shortestStop([])).toBeNull();
  });
});
