import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CONFIG_FILE, findProjectConfig } from "./load.js";
import { projectSettings } from "./project.js";
import { trust, trustFilePath } from "./trust.js";

let root: string;
let home: string;
let repo: string;
let env: Record<string, string | undefined>;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "tc-project-"));
  home = join(root, "home");
  repo = join(home, "repo");
  mkdirSync(join(repo, ".git"), { recursive: true });
  mkdirSync(join(repo, "src", "deep"), { recursive: true });
  env = { XDG_CONFIG_HOME: join(root, "xdg"), HOME: home };
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

function write(content: unknown): void {
  writeFileSync(join(repo, CONFIG_FILE), JSON.stringify(content));
}

describe("projectSettings", () => {
  it("without a file: nothing set, no notice", () => {
    expect(projectSettings(join(repo, "src"), { env })).toEqual({
      file: null,
      verify: null,
      trust: null,
      problem: null,
      notice: null,
    });
  });

  it("an untrusted verify does not run; preset and limits still apply", () => {
    write({ preset: "omo", limits: { maxAutoTurns: 3 }, verify: { command: "npm test" } });
    const s = projectSettings(join(repo, "src", "deep"), { env });
    expect(s.file).toBe(join(repo, CONFIG_FILE));
    expect(s.preset).toBe("omo");
    expect(s.limits).toEqual({ maxAutoTurns: 3 });
    expect(s.verify).toBeNull();
    expect(s.problem).toBeNull();
    expect(s.notice).toMatch(/not trusted; run `todo-continuation trust`/);
  });

  it("a trusted verify comes with its defaults; an edit needs trusting again", () => {
    write({ verify: { command: "npm test" } });
    const loaded = findProjectConfig(repo, home);
    if (loaded === null) throw new Error("no config");
    trust(loaded, { env, home, now: 1 });
    const s = projectSettings(repo, { env });
    expect(s.verify).toEqual({ command: "npm test", timeoutMs: 120_000, when: "finished" });
    expect(s.notice).toBeNull();
    write({ verify: { command: "npm test", timeoutMs: 5_000 } });
    const after = projectSettings(repo, { env });
    expect(after.verify).toBeNull();
    expect(after.notice).toMatch(/changed since it was trusted/);
  });

  it("a preset flag wins over the file's preset", () => {
    write({ preset: "omo" });
    expect(projectSettings(repo, { env, presetFlag: "pi" }).preset).toBeUndefined();
  });

  it("an invalid file is a problem naming the file and field, with no values", () => {
    write({ limits: { maxAutoTurns: -1 } });
    const s = projectSettings(repo, { env });
    expect(s.problem).toContain(join(repo, CONFIG_FILE));
    expect(s.problem).toContain("limits.maxAutoTurns");
    expect(s.verify).toBeNull();
    expect(s.limits).toBeUndefined();
    writeFileSync(join(repo, CONFIG_FILE), "{ not json");
    expect(projectSettings(repo, { env }).problem).toMatch(/not valid JSON/);
  });

  it("an unreadable trust record trusts nothing, and says why", () => {
    write({ verify: { command: "make" } });
    mkdirSync(join(root, "xdg", "todo-continuation"), { recursive: true });
    writeFileSync(trustFilePath(env, home), "garbage");
    const s = projectSettings(repo, { env });
    expect(s.verify).toBeNull();
    expect(s.problem).toBeNull();
    expect(s.notice).toMatch(/not valid JSON/);
  });
});
