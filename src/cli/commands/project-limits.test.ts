import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CONFIG_FILE } from "../../config/load.js";
import { resolvePreset } from "../../core/engine/presets.js";
import { resolveScope } from "../../core/scope/scope.js";
import type { PresetName, Scope } from "../../core/types.js";
import { ContinuationRuntime } from "../../runtime/runtime.js";
import { createFileStore } from "../../store/file/index.js";
import { runCli } from "../test-support/run-cli.js";

/**
 * `why`, `show`, `list` and `resume --add` judge a scope by the limits its
 * hook used: the project's config file, found from the folder the scope's
 * state recorded, not the CLI's --preset or the defaults.
 */

const PROJECT_MAX = 3;
const DEFAULT_MAX = resolvePreset("default").limits.maxAutoTurns;

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

interface World {
  store: string;
  project: string;
  home: string;
  scope: Scope;
}

/**
 * A project whose config allows PROJECT_MAX nudges, and a scope of it that a
 * hook (judging by that file) has nudged PROJECT_MAX times: out of budget.
 */
async function world(
  config: string | null,
  nudges = PROJECT_MAX,
  /** The hook command's `--preset`, recorded in the state, instead of the file's limits. */
  hookPreset?: PresetName,
): Promise<World> {
  const root = await mkdtemp(join(tmpdir(), "tc-cli-project-limits-"));
  dirs.push(root);
  const home = join(root, "home");
  const project = join(home, "app");
  await mkdir(join(project, ".git"), { recursive: true });
  if (config !== null) await writeFile(join(project, CONFIG_FILE), config);
  const store = join(root, "store");
  const scope = resolveScope({ kind: "session", host: "test", sessionId: "lim" }) as Scope;
  const files = createFileStore({ root: store });
  let now = Date.now() - 60_000;
  const hook = new ContinuationRuntime({
    store: files,
    projectDir: project,
    ...(hookPreset === undefined
      ? { limits: { maxAutoTurns: PROJECT_MAX } }
      : { preset: hookPreset, presetOption: hookPreset }),
    now: () => now,
  });
  const items = Array.from({ length: nudges + 2 }, (_, i) => `item ${i}`);
  await hook.turnStarted(scope, { real: true });
  for (let n = 0; n < nudges; n++) {
    // One item closed per turn: the list makes progress, so only the nudge budget can stop it.
    await hook.setTodos(
      scope,
      items.map((content, i) => ({ content, status: i < n ? "completed" : "pending" })),
    );
    await hook.turnEnded(scope, { stopReason: "stop" });
    const result = await hook.runIdle(scope, { deliver: () => undefined });
    expect(result.action).toBe("inject");
    now += 1_000;
  }
  await hook.setTodos(
    scope,
    items.map((content, i) => ({ content, status: i < nudges ? "completed" : "pending" })),
  );
  await hook.turnEnded(scope, { stopReason: "stop" });
  await files.close();
  return { store, project, home, scope };
}

const run = (w: World, args: string[]) =>
  runCli(["--dir", w.store, ...args], { env: { HOME: w.home }, cwd: tmpdir() });

describe("readers judge by the project's config file the scope recorded", () => {
  it("why: out of budget at the project's 3 nudges, naming the file", async () => {
    expect(DEFAULT_MAX).not.toBe(PROJECT_MAX);
    const w = await world(JSON.stringify({ limits: { maxAutoTurns: PROJECT_MAX } }));
    const text = await run(w, ["why", w.scope.key]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("would NOT nudge now: max-auto-turns");
    expect(text.stdout).toContain(`${PROJECT_MAX} of ${PROJECT_MAX} nudges`);
    expect(text.stdout).toContain(`limits from ${join(w.project, CONFIG_FILE)}`);
    const json = JSON.parse((await run(w, ["--json", "why", w.scope.key])).stdout);
    expect(json).toMatchObject({
      action: "skip",
      reason: "max-auto-turns",
      limitsFile: join(w.project, CONFIG_FILE),
      projectDir: w.project,
      configProblem: null,
    });
  });

  it("why: a --preset given overrides the file's preset, not its limits", async () => {
    const w = await world(JSON.stringify({ preset: "omo", limits: { maxAutoTurns: PROJECT_MAX } }));
    const json = JSON.parse(
      (await run(w, ["--preset", "parley", "--json", "why", w.scope.key])).stdout,
    );
    expect(json).toMatchObject({ preset: "parley", reason: "max-auto-turns" });
    const own = JSON.parse((await run(w, ["--json", "why", w.scope.key])).stdout);
    expect(own.preset).toBe("omo");
  });

  it("show, list and resume --add: the project's 3 nudges", async () => {
    const w = await world(JSON.stringify({ limits: { maxAutoTurns: PROJECT_MAX } }));
    const show = await run(w, ["show", w.scope.key]);
    expect(show.stdout).toMatch(new RegExp(`nudges +${PROJECT_MAX} of ${PROJECT_MAX}\\n`));
    expect(show.stdout).toContain(`limits from ${join(w.project, CONFIG_FILE)}`);
    const shown = JSON.parse((await run(w, ["--json", "show", w.scope.key])).stdout);
    expect(shown.limits.maxAutoTurns).toBe(PROJECT_MAX);
    const list = await run(w, ["list"]);
    expect(list.stdout).toContain(`episode: ${PROJECT_MAX}/${PROJECT_MAX} nudges`);
    const raised = await run(w, ["resume", w.scope.key, "--add", "nudges=2"]);
    expect(raised.code).toBe(0);
    expect(raised.stdout).toContain(`Now allowed: ${PROJECT_MAX + 2} nudges`);
  });

  it("a hook's --preset, recorded in the state: readers judge by it, the reader's own --preset first", async () => {
    expect(resolvePreset("typeclaw").limits.maxAutoTurns).toBe(PROJECT_MAX);
    for (const config of [null, JSON.stringify({ preset: "parley" })]) {
      const w = await world(config, PROJECT_MAX, "typeclaw");
      const json = JSON.parse((await run(w, ["--json", "why", w.scope.key])).stdout);
      expect(json).toMatchObject({ preset: "typeclaw", reason: "max-auto-turns" });
      expect((await run(w, ["list"])).stdout).toContain(`${PROJECT_MAX}/${PROJECT_MAX} nudges`);
      const own = JSON.parse(
        (await run(w, ["--preset", "default", "--json", "why", w.scope.key])).stdout,
      );
      expect(own).toMatchObject({ preset: "default", action: "inject" });
    }
  });

  it("without a config file: the defaults, as before", async () => {
    const w = await world(null);
    const json = JSON.parse((await run(w, ["--json", "why", w.scope.key])).stdout);
    expect(json).toMatchObject({ action: "inject", limitsFile: null, configProblem: null });
    expect((await run(w, ["list"])).stdout).toContain(`${PROJECT_MAX}/${DEFAULT_MAX} nudges`);
  });

  it("a broken config file: named with what is wrong, and the hook's config-invalid, never a crash", async () => {
    const w = await world(JSON.stringify({ limits: { maxAutoTurns: "three" } }));
    const text = await run(w, ["why", w.scope.key]);
    expect(text.code).toBe(0);
    expect(text.stderr).toBe("");
    expect(text.stdout).toContain("would NOT nudge now: config-invalid");
    expect(text.stdout).toContain(join(w.project, CONFIG_FILE));
    expect(text.stdout).toContain("limits.maxAutoTurns");
    expect(text.stdout).toContain("NOT the project's");
    const show = await run(w, ["show", w.scope.key]);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain("The project's config file cannot be used");
    const list = await run(w, ["list"]);
    expect(list.stdout).toContain("project config invalid");
    expect(list.stdout).toContain("limits.maxAutoTurns");
  });
});
