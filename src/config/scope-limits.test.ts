import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resolveLimits } from "../core/engine/limits.js";
import { resolvePreset } from "../core/engine/presets.js";
import { CONFIG_FILE } from "./load.js";
import { projectSettings } from "./project.js";
import { limitsSource, resolveScopeLimits, ScopeLimitsResolver } from "./scope-limits.js";

let root: string;
let home: string;
let repo: string;
let env: Record<string, string | undefined>;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "tc-scope-limits-"));
  home = join(root, "home");
  repo = join(home, "repo");
  mkdirSync(join(repo, ".git"), { recursive: true });
  mkdirSync(join(repo, "src"), { recursive: true });
  env = { XDG_CONFIG_HOME: join(root, "xdg"), HOME: home };
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

const write = (content: unknown) =>
  writeFileSync(
    join(repo, CONFIG_FILE),
    typeof content === "string" ? content : JSON.stringify(content),
  );

const defaults = resolvePreset("default").limits;
/** A value no preset uses, so only the file can have set it. */
const FILE_MAX = defaults.maxAutoTurns + 7;

describe("resolveScopeLimits", () => {
  it("takes the file found from the recorded folder, walking up to the repository root", () => {
    write({ limits: { maxAutoTurns: FILE_MAX } });
    const limits = resolveScopeLimits(join(repo, "src"), { env });
    expect(limits).toMatchObject({
      preset: "default",
      file: join(repo, CONFIG_FILE),
      projectDir: join(repo, "src"),
      problem: null,
    });
    expect(limits.limits).toEqual({ ...defaults, maxAutoTurns: FILE_MAX });
  });

  it("agrees with the settings a hook reads (projectSettings), preset and mode included", () => {
    write({ preset: "omo", mode: "advise", limits: { maxAutoTurns: FILE_MAX } });
    const hook = projectSettings(repo, { env });
    const limits = resolveScopeLimits(repo, { env });
    expect(limits.preset).toBe(hook.preset);
    expect(limits.mode).toBe("advise");
    expect(limits.limits).toEqual(resolveLimits(resolvePreset(hook.preset).limits, hook.limits));
    expect(limits.limits).not.toEqual(resolvePreset("omo").limits);
  });

  it("a --preset given wins over the file's preset; the file's limits still apply", () => {
    write({ preset: "omo", limits: { maxAutoTurns: FILE_MAX } });
    const limits = resolveScopeLimits(repo, { env, presetFlag: "parley" });
    expect(limits.preset).toBe("parley");
    expect(limits.limits).toEqual({ ...resolvePreset("parley").limits, maxAutoTurns: FILE_MAX });
  });

  it("no recorded folder, or no file there: the reader's own preset or fallback", () => {
    expect(resolveScopeLimits(undefined, { env })).toEqual({
      preset: "default",
      limits: defaults,
      file: null,
      projectDir: null,
      problem: null,
    });
    expect(resolveScopeLimits(repo, { env, presetFlag: "omo" })).toMatchObject({
      preset: "omo",
      limits: resolvePreset("omo").limits,
      file: null,
      projectDir: repo,
    });
    const fallback = { preset: "pi" as const, limits: { ...defaults, maxAutoTurns: 2 } };
    expect(resolveScopeLimits(repo, { env, fallback })).toMatchObject({
      preset: "pi",
      limits: fallback.limits,
      file: null,
    });
  });

  it("a folder that is gone holds no file: no walk up into an unrelated one", () => {
    // A config above the gone folder, where a walk from it would land.
    writeFileSync(join(home, CONFIG_FILE), JSON.stringify({ limits: { maxAutoTurns: 1 } }));
    const gone = join(home, "gone", "app");
    expect(resolveScopeLimits(gone, { env })).toMatchObject({ file: null, projectDir: gone });
  });

  it("a broken file: a problem naming the file and what is wrong, never a throw", () => {
    write({ limits: { maxAutoTurns: -1 } });
    const invalid = resolveScopeLimits(repo, { env });
    expect(invalid.problem).toContain(join(repo, CONFIG_FILE));
    expect(invalid.problem).toContain("limits.maxAutoTurns");
    expect(invalid).toMatchObject({ file: null, preset: "default", limits: defaults });
    write("{ not json");
    const unparsable = resolveScopeLimits(repo, { env });
    expect(unparsable.problem).toContain(join(repo, CONFIG_FILE));
    expect(unparsable.problem).toContain("not valid JSON");
    expect(limitsSource(unparsable)).toContain("NOT the project's");
  });
});

describe("ScopeLimitsResolver", () => {
  it("reads each project's file once for all its scopes", () => {
    write({ limits: { maxAutoTurns: FILE_MAX } });
    const resolver = new ScopeLimitsResolver({ env });
    const first = resolver.forState({ projectDir: repo });
    // Changed on disk after the first look: within one run the first answer stands.
    write({ limits: { maxAutoTurns: 1 } });
    for (let i = 0; i < 1_000; i++) expect(resolver.forState({ projectDir: repo })).toBe(first);
    expect(first.limits.maxAutoTurns).toBe(FILE_MAX);
    expect(new ScopeLimitsResolver({ env }).forProject(repo).limits.maxAutoTurns).toBe(1);
    expect(resolver.forState({})).toBe(resolver.forState({}));
    expect(resolver.forState({}).file).toBeNull();
  });

  it("with maxAgeMs, reads the file again once an answer is that old", () => {
    write({ limits: { maxAutoTurns: FILE_MAX } });
    let now = 0;
    const resolver = new ScopeLimitsResolver({ env, maxAgeMs: 1_000, now: () => now });
    const first = resolver.forProject(repo);
    write({ limits: { maxAutoTurns: 1 } });
    now = 999;
    expect(resolver.forProject(repo)).toBe(first);
    now = 1_000;
    expect(resolver.forProject(repo).limits.maxAutoTurns).toBe(1);
  });
});
