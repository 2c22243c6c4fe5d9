import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { effectiveConfig, plainLimits, plainVerify } from "./effective.js";
import { CONFIG_FILE, findProjectConfig } from "./load.js";
import { ConfigError } from "./validate.js";

let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "tc-config-"));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

function write(path: string, value: unknown): string {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, typeof value === "string" ? value : JSON.stringify(value, null, 2));
  return path;
}

describe("findProjectConfig", () => {
  it("walks up from a subfolder to the config at the repository root", () => {
    mkdirSync(join(root, "repo", ".git"), { recursive: true });
    const file = write(join(root, "repo", CONFIG_FILE), { verify: { command: "npm test" } });
    mkdirSync(join(root, "repo", "src", "deep"), { recursive: true });
    const found = findProjectConfig(join(root, "repo", "src", "deep"));
    expect(found?.path).toBe(file);
    expect(found?.kind).toBe("file");
    expect(found?.config.verify?.command).toBe("npm test");
  });

  it("stops at the repository root: a config above it is not the project's", () => {
    write(join(root, CONFIG_FILE), { verify: { command: "rm -rf /" } });
    mkdirSync(join(root, "repo", ".git"), { recursive: true });
    expect(findProjectConfig(join(root, "repo"))).toBeNull();
  });

  it("stops at the home folder outside a repository", () => {
    write(join(root, CONFIG_FILE), { preset: "omo" });
    mkdirSync(join(root, "home", "work"), { recursive: true });
    expect(findProjectConfig(join(root, "home", "work"), join(root, "home"))).toBeNull();
    expect(findProjectConfig(join(root, "home", "work"))?.config.preset).toBe("omo");
  });

  it("reads the package.json key, and ignores a package.json without it", () => {
    mkdirSync(join(root, ".git"));
    write(join(root, "package.json"), {
      name: "x",
      "todo-continuation": { verify: { command: "npm test" } },
    });
    write(join(root, "pkg", "package.json"), { name: "inner" });
    const found = findProjectConfig(join(root, "pkg"));
    expect(found?.kind).toBe("package.json");
    expect(found?.path).toBe(join(root, "package.json"));
    expect(found?.config.verify?.command).toBe("npm test");
  });

  it("refuses a folder configured twice, naming both", () => {
    mkdirSync(join(root, ".git"));
    write(join(root, CONFIG_FILE), {});
    write(join(root, "package.json"), { "todo-continuation": {} });
    expect(() => findProjectConfig(root)).toThrow(/both configure this project; keep one/);
  });

  it("names the file and the field of an invalid config", () => {
    mkdirSync(join(root, ".git"));
    const file = write(join(root, CONFIG_FILE), {
      verify: { command: "npm test", timeoutMs: "60s" },
    });
    expect(() => findProjectConfig(root)).toThrow(
      `${file}: verify.timeoutMs must be an integer from 1000 to 3600000 (milliseconds), got "60s"`,
    );
    write(join(root, CONFIG_FILE), "{ not json");
    expect(() => findProjectConfig(root)).toThrow(ConfigError);
    expect(() => findProjectConfig(root)).toThrow(/is not valid JSON/);
  });

  it("names package.json and the key for an invalid package config", () => {
    mkdirSync(join(root, ".git"));
    write(join(root, "package.json"), { "todo-continuation": { preset: 3 } });
    expect(() => findProjectConfig(root)).toThrow(
      `${join(root, "package.json")} ("todo-continuation"): preset must be one of`,
    );
  });
});

describe("effectiveConfig", () => {
  it("marks every value with its source: default, preset, file, flag", () => {
    mkdirSync(join(root, ".git"));
    write(join(root, CONFIG_FILE), {
      preset: "typeclaw",
      limits: { maxAutoTurns: 7 },
      verify: { command: "pytest -q" },
    });
    const loaded = findProjectConfig(root);
    const fromFile = effectiveConfig(loaded);
    expect(fromFile.preset).toEqual({ value: "typeclaw", source: "file" });
    expect(fromFile.limits.maxAutoTurns).toEqual({ value: 7, source: "file" });
    expect(fromFile.limits.maxTokens).toEqual({ value: 25_000, source: "preset" });
    expect(fromFile.limits.maxErrorRetries).toEqual({ value: 1, source: "default" });
    expect(fromFile.verify?.command).toEqual({ value: "pytest -q", source: "file" });
    expect(fromFile.verify?.timeoutMs).toEqual({ value: 120_000, source: "default" });
    expect(plainVerify(fromFile)).toEqual({
      command: "pytest -q",
      timeoutMs: 120_000,
      when: "finished",
    });

    const flagged = effectiveConfig(loaded, { preset: "omo" });
    expect(flagged.preset).toEqual({ value: "omo", source: "flag" });
    expect(plainLimits(flagged).maxAutoTurns).toBe(7);
    expect(flagged.limits.cooldownMaxMs).toEqual({ value: 160_000, source: "preset" });
  });

  it("with no file: the default preset, no verify", () => {
    const none = effectiveConfig(null);
    expect(none.file).toBeNull();
    expect(none.verify).toBeNull();
    expect(none.limits.maxAutoTurns).toEqual({ value: 40, source: "default" });
  });

  it("limits that contradict each other name the file and field", () => {
    mkdirSync(join(root, ".git"));
    const file = write(join(root, CONFIG_FILE), {
      limits: { cooldownBaseMs: 10_000, cooldownMaxMs: 5_000 },
    });
    expect(() => effectiveConfig(findProjectConfig(root))).toThrow(
      `${file}: limits.cooldownMaxMs must be >= limits.cooldownBaseMs (10000), got 5000`,
    );
  });

  it("an unknown preset flag is refused with the valid names", () => {
    expect(() => effectiveConfig(null, { preset: "fast" })).toThrow(/valid presets: default/);
  });
});
