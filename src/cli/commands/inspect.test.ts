import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DecisionLogEntry } from "../../core/types.js";
import { createFileStore } from "../../store/file/index.js";
import { runCli } from "../test-support/run-cli.js";
import { ABC, ABD, NIGHTLY, seed, TUI, TUI_LIST } from "../test-support/seed.js";

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "tc-cli-inspect-"));
  const store = createFileStore({ root: dir });
  await seed(store);
  await store.close();
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function cli(...args: string[]) {
  return runCli(["--dir", dir, ...args]);
}

describe("list", () => {
  it("shows every scope with its counts and state", async () => {
    const run = await cli("list");
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split("\n");
    expect(lines[0]).toBe(`4 scopes in ${dir}`);
    expect(lines[1]).toMatch(/^SCOPE\s+LABEL\s+OPEN\s+BLOCKED\s+DONE\s+STATE$/);
    const row = (key: string) => lines.find((l) => l.startsWith(`${key} `)) ?? "";
    expect(row(TUI.key)).toMatch(
      /tui \(shared\)\s+2\s+1\s+1\s+episode: 1\/40 nudges, last: nudged$/,
    );
    expect(row(ABD.key)).toMatch(/claude-code session abd999\s+1\s+0\s+0\s+stopped by user$/);
    expect(row(NIGHTLY.key)).toMatch(/cron job nightly\s+0\s+1\s+0\s+idle$/);
  });

  it("prints the same data as JSON", async () => {
    const run = await cli("list", "--json");
    expect(run.code).toBe(0);
    const data = JSON.parse(run.stdout) as {
      store: string;
      preset: string;
      scopes: { key: string; counts: { actionable: number }; stopped: boolean }[];
    };
    expect(data.store).toBe(dir);
    expect(data.preset).toBe("default");
    expect(data.scopes.map((s) => s.key).sort()).toEqual(
      [ABC.key, ABD.key, NIGHTLY.key, TUI.key].sort(),
    );
    expect(data.scopes.find((s) => s.key === ABD.key)?.stopped).toBe(true);
    expect(data.scopes.find((s) => s.key === TUI.key)?.counts.actionable).toBe(2);
  });

  it("says so when the store is empty", async () => {
    const empty = join(dir, "nothing-here");
    const run = await runCli(["--dir", empty, "list"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`No scopes in ${empty} yet.\n`);
  });

  it("reads TODO_CONTINUATION_DIR when --dir is absent", async () => {
    const run = await runCli(["list", "--json"], { env: { TODO_CONTINUATION_DIR: dir } });
    expect((JSON.parse(run.stdout) as { scopes: unknown[] }).scopes).toHaveLength(4);
  });
});

describe("show", () => {
  it("draws the list as a tree and the state in words", async () => {
    const run = await cli("show", "tui");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      [
        "  Build",
        "    [x] Write the parser (#1)",
        "    [/] Test the parser (#2, high)",
        "        > cover the empty input",
        "  Release",
        "    [!] Publish the package (#3)",
        "        blocked: waiting for the npm token",
        "    [ ] Announce it (#4)",
      ].join("\n"),
    );
    expect(run.stdout).toContain('Continuation (judged by preset "default")');
    expect(run.stdout).toMatch(/nudges {6}1 of 40/);
    expect(run.stdout).toContain("Suppressors: none");
    expect(run.stdout).toMatch(/Last turn: ended "stop" .*, 1,200 tokens/);
    expect(run.stdout).toMatch(/stagnation {2}0 of 1 \(strict\)/);
    expect(run.stdout).toContain("Last decision: inject nudge #1 at ");
  });

  it("names the suppressor and the preset's limits", async () => {
    const run = await cli("show", "abd", "--preset", "typeclaw");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("stopped by the user: no nudges until `resume`");
    expect(run.stdout).toContain('judged by preset "typeclaw"');
  });

  it("prints the list and state as JSON", async () => {
    const run = await cli("show", "nightly", "--json");
    const view = JSON.parse(run.stdout) as {
      key: string;
      todos: { todos: { blockedReason?: string }[] };
      limits: { maxAutoTurns: number };
    };
    expect(view.key).toBe(NIGHTLY.key);
    expect(view.todos.todos[0]?.blockedReason).toBe("disk is read-only");
    expect(view.limits.maxAutoTurns).toBe(40);
  });
});

describe("why", () => {
  it("explains a skip with its stable reason", async () => {
    const blocked = await cli("why", "nightly");
    expect(blocked.code).toBe(0);
    expect(blocked.stdout).toContain("would NOT nudge now: only-blocked-todos");
    const stopped = await cli("why", "abd999", "--json");
    expect(JSON.parse(stopped.stdout)).toMatchObject({
      action: "skip",
      reason: "continuation-stopped",
    });
  });

  it("shows the nudge the engine would send, and the recent decisions", async () => {
    // The nudge already answered the last turn; a nudged turn that made progress makes the next one due.
    const store = createFileStore({ root: dir });
    const { ContinuationRuntime } = await import("../../runtime/runtime.js");
    const runtime = new ContinuationRuntime({ store });
    const list = structuredClone(TUI_LIST);
    list.todos[1]!.status = "completed";
    await runtime.setTodos(TUI, list);
    await runtime.turnEnded(TUI, { stopReason: "stop", injected: true });
    await store.close();
    const run = await cli("why", "tui");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("would NUDGE now");
    expect(run.stdout).toContain("nudge 2 of episode");
    expect(run.stdout).toContain("  | ");
    expect(run.stdout).toContain("Announce it");
    expect(run.stdout).toContain("Last decision:");
    const json = JSON.parse((await cli("why", "tui", "--json")).stdout) as {
      action: string;
      nudge: { autoTurn: number; text: string };
      recent: DecisionLogEntry[];
    };
    expect(json.action).toBe("inject");
    expect(json.nudge.autoTurn).toBe(2);
    expect(json.recent).toHaveLength(1);
  });

  it("is a dry run: asking twice writes nothing", async () => {
    const before = (await cli("log", "tui", "--json")).stdout;
    await cli("why", "tui");
    expect((await cli("log", "tui", "--json")).stdout).toBe(before);
  });
});

describe("log", () => {
  it("prints the decision log as a table and as JSON", async () => {
    const run = await cli("log", "tui");
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /TIME\s+TRIGGER\s+OPEN\s+BLOCKED\s+NUDGES\s+TOKENS\s+STAGNANT\s+DECISION/,
    );
    expect(run.stdout).toMatch(/idle\s+2\s+1\s+1\s+0\s+0\s+inject nudge #1$/m);
    const json = JSON.parse((await cli("log", "tui", "-n", "1", "--json")).stdout) as {
      entries: DecisionLogEntry[];
    };
    expect(json.entries).toHaveLength(1);
    expect(json.entries[0]?.action).toBe("inject");
  });

  it("says so when nothing was decided yet", async () => {
    const run = await cli("log", "abc123");
    expect(run.stdout).toContain("No decisions recorded yet.");
  });
});

describe("naming a scope", () => {
  it("accepts the full key, the label, and unique prefixes of either", async () => {
    for (const name of [ABC.key, "claude-code session abc123", "abc", "cron"]) {
      const run = await cli("show", name, "--json");
      expect({ name, code: run.code }).toEqual({ name, code: 0 });
    }
  });

  it("lists near matches for a wrong name and exits 1", async () => {
    const run = await cli("show", "abc124");
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`no scope named "abc124" in ${dir}`);
    expect(run.stderr).toContain("Did you mean:");
    expect(run.stderr).toContain(ABC.key);
    expect(run.stdout).toBe("");
  });

  it("lists the candidates of an ambiguous prefix and exits 1", async () => {
    const run = await cli("why", "ab");
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('"ab" matches 2 scopes');
    expect(run.stderr).toContain(ABC.key);
    expect(run.stderr).toContain(ABD.key);
  });

  it("points at list when nothing is close", async () => {
    const run = await cli("log", "zzzzzzzzzzzz");
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("Run `todo-continuation list` to see every scope.");
  });
});

describe("colour", () => {
  it("is off when piped or with NO_COLOR, and on with FORCE_COLOR", async () => {
    const piped = await runCli(["--dir", dir, "show", "tui"], { env: { NO_COLOR: undefined } });
    expect(piped.stdout).not.toContain("\u001b[");
    const forced = await runCli(["--dir", dir, "show", "tui"], {
      env: { NO_COLOR: undefined, FORCE_COLOR: "1" },
    });
    expect(forced.stdout).toContain("\u001b[1m");
    const both = await runCli(["--dir", dir, "show", "tui"], { env: { FORCE_COLOR: "1" } });
    expect(both.stdout).not.toContain("\u001b[");
  });
});

describe("a store that cannot be used", () => {
  it("fails with exit 1 and the reason when the folder is under a file", async () => {
    const file = join(dir, "a-file");
    await writeFile(file, "not a folder");
    const run = await runCli(["--dir", join(file, "store"), "stop", "tui"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^todo-continuation: .*a-file/m);
    expect(run.stderr).not.toContain("    at ");
  });
});
