import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { ContinuationState, TodoList } from "../../core/types.js";
import { createFileStore } from "../../store/file/index.js";
import { CLI, runCli } from "../test-support/run-cli.js";
import { seed } from "../test-support/seed.js";

const folders: string[] = [];

afterAll(async () => {
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
});

async function freshStore(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "tc-cli-edit-"));
  folders.push(dir);
  const store = createFileStore({ root: dir });
  await seed(store);
  await store.close();
  return dir;
}

/** A fake editor: a shell script that receives the file as $1. */
async function editor(dir: string, body: string): Promise<string> {
  const path = join(dir, `editor-${folders.length}-${Math.random().toString(36).slice(2)}.sh`);
  await writeFile(path, `#!/bin/sh\n${body}\n`);
  await chmod(path, 0o755);
  return path;
}

async function shown(dir: string, scope: string) {
  const run = await runCli(["--dir", dir, "show", scope, "--json"]);
  return JSON.parse(run.stdout) as {
    todos: TodoList;
    todosRevision: number;
    state: ContinuationState;
  };
}

describe("edit", () => {
  it("saves a valid edit and queues a user-edit reminder for the model", async () => {
    const dir = await freshStore();
    const before = await shown(dir, "tui");
    const script = await editor(
      dir,
      `sed -i 's/- \\[ \\] Announce it/- [x] Announce it/' "$1" && printf -- '- [ ] Write the changelog\\n' >> "$1"`,
    );
    const run = await runCli(["--dir", dir, "edit", "tui"], { env: { EDITOR: script } });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Saved tui (shared). The agent will be told at its next turn:");
    const after = await shown(dir, "tui");
    expect(after.todosRevision).toBe(before.todosRevision + 1);
    expect(after.todos.todos.find((t) => t.content === "Announce it")?.status).toBe("completed");
    expect(after.todos.todos.at(-1)).toMatchObject({
      content: "Write the changelog",
      status: "pending",
    });
    // Everything the markdown does not show by default survives the round trip.
    expect(after.todos.todos[1]).toMatchObject({
      id: "2",
      priority: "high",
      notes: ["cover the empty input"],
    });
    expect(after.todos.nextId).toBeGreaterThanOrEqual(5);
    const reminder = after.state.reminders.at(-1);
    expect(reminder?.kind).toBe("user-edit");
    expect(reminder?.text).toContain('"Announce it" is now completed');
    expect(reminder?.text).toContain('added "Write the changelog" (pending)');
  });

  it("uses VISUAL when EDITOR is unset, and editors given with arguments", async () => {
    const dir = await freshStore();
    const script = await editor(
      dir,
      `[ "$1" = "--flag" ] && sed -i 's/Announce it/Announce it loudly/' "$2"`,
    );
    const run = await runCli(["--dir", dir, "edit", "tui", "--json"], {
      env: { VISUAL: `${script} --flag` },
    });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ changed: true });
    const after = await shown(dir, "tui");
    expect(after.todos.todos.some((t) => t.content === "Announce it loudly")).toBe(true);
  });

  it("refuses invalid markdown with its line, changes nothing and keeps the edit", async () => {
    const dir = await freshStore();
    const before = await shown(dir, "tui");
    const script = await editor(dir, `printf '## Build\\n- [?] what is this\\n' > "$1"`);
    const run = await runCli(["--dir", dir, "edit", "tui"], { env: { EDITOR: script } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("invalid edit, line 2: unknown checkbox mark");
    expect(run.stderr).toContain("  2 | - [?] what is this");
    expect(run.stderr).toContain("Nothing was changed.");
    const kept = run.stderr.trimEnd().split("\n").at(-1)?.trim() ?? "";
    expect(await readFile(kept, "utf8")).toContain("what is this");
    const after = await shown(dir, "tui");
    expect(after.todos).toEqual(before.todos);
    expect(after.todosRevision).toBe(before.todosRevision);
    expect(after.state.reminders).toEqual(before.state.reminders);
  });

  it("changes nothing when the file is saved unchanged", async () => {
    const dir = await freshStore();
    const before = await shown(dir, "tui");
    const run = await runCli(["--dir", dir, "edit", "tui"], {
      env: { EDITOR: await editor(dir, "true") },
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("No changes to tui (shared).\n");
    expect((await shown(dir, "tui")).todosRevision).toBe(before.todosRevision);
  });

  it("refuses an edit that removes every item, pointing at clear", async () => {
    const dir = await freshStore();
    const run = await runCli(["--dir", dir, "edit", "tui"], {
      env: { EDITOR: await editor(dir, ': > "$1"') },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("the edit removes every item; nothing was changed");
    expect(run.stderr).toContain("todo-continuation clear tui");
    expect((await shown(dir, "tui")).todos.todos).toHaveLength(4);
  });

  it("fails when the editor fails, or when none is set", async () => {
    const dir = await freshStore();
    const failing = await runCli(["--dir", dir, "edit", "tui"], {
      env: { EDITOR: await editor(dir, 'echo junk > "$1"; exit 3') },
    });
    expect(failing.code).toBe(1);
    expect(failing.stderr).toContain("exited with code 3; nothing was changed");
    expect((await shown(dir, "tui")).todos.todos).toHaveLength(4);
    const none = await runCli(["--dir", dir, "edit", "tui"]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("no editor: set EDITOR (or VISUAL)");
  });

  it("refuses to overwrite a list the agent changed during the edit", async () => {
    const dir = await freshStore();
    // While "the user" edits, another writer (here: the CLI itself) clears the list.
    const script = await editor(
      dir,
      `"${process.execPath}" "${CLI}" --dir "${dir}" clear tui >/dev/null && sed -i 's/Announce it/Announce it today/' "$1"`,
    );
    const run = await runCli(["--dir", dir, "edit", "tui"], { env: { EDITOR: script } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("the list changed while you were editing it; nothing was saved");
    expect((await shown(dir, "tui")).todos.todos).toEqual([]);
  });

  it("creates the list of a new scope named by its full key", async () => {
    const dir = await freshStore();
    const script = await editor(dir, `printf -- '- [ ] Plan the week\\n' >> "$1"`);
    const run = await runCli(["--dir", dir, "edit", "cron/sweekly"], { env: { EDITOR: script } });
    expect(run.code).toBe(0);
    const after = await shown(dir, "weekly");
    expect(after.todos.todos).toEqual([{ content: "Plan the week", status: "pending" }]);
    expect(after.todos.phases).toEqual([]);
  });
});
