import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resolveScope } from "../../core/scope/scope.js";
import { createFileStore } from "./file-store.js";
import { ensureGitignored, removeGitignored, snapshotTodos } from "./git.js";

/** Lets the event loop turn, so a store releases the lock it keeps between transactions. */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

const TUI = resolveScope({ kind: "tui" })!;
const ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: "test",
  GIT_AUTHOR_EMAIL: "test@localhost",
  GIT_COMMITTER_NAME: "test",
  GIT_COMMITTER_EMAIL: "test@localhost",
};

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tc-git-"));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, env: ENV, encoding: "utf8" }).trim();
}

describe("ensureGitignored", () => {
  it("adds the todo folder once, keeping what was there", async () => {
    writeFileSync(join(dir, ".gitignore"), "node_modules/");
    const todoDir = join(dir, ".todo-continuation", "todo");
    expect(await ensureGitignored(dir, todoDir)).toBe(true);
    expect(await ensureGitignored(dir, todoDir)).toBe(false);
    const text = readFileSync(join(dir, ".gitignore"), "utf8");
    expect(text.startsWith("node_modules/\n")).toBe(true);
    expect(text.split("\n").filter((l) => l === "/.todo-continuation/todo/")).toHaveLength(1);
  });

  it("creates .gitignore when missing and recognises an equivalent pattern", async () => {
    expect(await ensureGitignored(dir, join(dir, "state", "todo"))).toBe(true);
    writeFileSync(join(dir, ".gitignore"), "state/todo\n");
    expect(await ensureGitignored(dir, join(dir, "state", "todo"))).toBe(false);
  });

  it("leaves a folder outside the project alone", async () => {
    expect(await ensureGitignored(join(dir, "project"), join(dir, "elsewhere", "todo"))).toBe(
      false,
    );
  });
});

describe("removeGitignored", () => {
  it("takes out exactly the lines ensureGitignored added, giving back the original bytes", async () => {
    const original = "node_modules/\n# build\ndist/\n";
    writeFileSync(join(dir, ".gitignore"), original);
    const todoDir = join(dir, ".claude", "todo-continuation");
    await ensureGitignored(dir, todoDir);
    writeFileSync(
      join(dir, ".gitignore"),
      `${readFileSync(join(dir, ".gitignore"), "utf8")}*.log\n`,
    );
    expect(await removeGitignored(dir, todoDir)).toBe(true);
    expect(readFileSync(join(dir, ".gitignore"), "utf8")).toBe(`${original}*.log\n`);
    expect(await removeGitignored(dir, todoDir)).toBe(false);
  });

  it("deletes a .gitignore that held only our lines, and leaves a user's own pattern", async () => {
    const todoDir = join(dir, "state");
    await ensureGitignored(dir, todoDir);
    expect(await removeGitignored(dir, todoDir)).toBe(true);
    expect(existsSync(join(dir, ".gitignore"))).toBe(false);
    writeFileSync(join(dir, ".gitignore"), "/state/\n");
    expect(await removeGitignored(dir, todoDir)).toBe(false);
    expect(readFileSync(join(dir, ".gitignore"), "utf8")).toBe("/state/\n");
  });
});

describe("snapshotTodos", () => {
  it("force-commits only the todo folder, without locks, temporaries or other staged work", async () => {
    git(dir, "init", "--quiet");
    git(dir, "config", "user.email", "test@localhost");
    git(dir, "config", "user.name", "test");
    const root = join(dir, ".todo-continuation");
    const store = createFileStore({ root });
    await ensureGitignored(dir, store.todoDir);
    await store.transact(TUI, () => ({
      todos: { todos: [{ content: "snapshot me", status: "pending" }], phases: [], nextId: 1 },
      result: null,
    }));
    await settle();
    mkdirSync(join(store.todoDir, ".state"), { recursive: true });
    writeFileSync(join(store.todoDir, ".state", "tui.lock"), "{}");
    writeFileSync(join(store.todoDir, "tui.json.1-aa.tmp"), "{}");
    writeFileSync(join(dir, "work.txt"), "staged elsewhere");
    git(dir, "add", "work.txt");

    const first = await snapshotTodos(root, "todos: first");
    expect(first.initialized).toBe(false);
    expect(first.path).toBe(".todo-continuation/todo");
    expect(first.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(git(dir, "log", "-1", "--format=%s")).toBe("todos: first");
    expect(git(dir, "show", "--name-only", "--format=", "HEAD").split("\n")).toEqual([
      ".todo-continuation/todo/tui.json",
    ]);
    expect(git(dir, "diff", "--cached", "--name-only")).toBe("work.txt");

    const again = await snapshotTodos(root);
    expect(again.commit).toBeNull();
  });

  it("makes the store root a repository when it is in none", async () => {
    const root = join(dir, "store");
    const store = createFileStore({ root });
    await store.transact(TUI, () => ({
      todos: { todos: [{ content: "x", status: "pending" }], phases: [], nextId: 1 },
      result: null,
    }));
    const result = await snapshotTodos(root);
    expect(result.initialized).toBe(true);
    expect(result.path).toBe("todo");
    expect(git(root, "log", "-1", "--format=%s")).toBe("todo-continuation snapshot");
  });

  it("refuses an empty message", async () => {
    await expect(snapshotTodos(dir, " ")).rejects.toThrow(/message must not be empty/);
  });
});

describe("ensureGitignored then removeGitignored", () => {
  it("gives back the exact bytes, or no file, for any starting content", async () => {
    const todoDir = join(dir, ".codex", "todo-continuation");
    const path = join(dir, ".gitignore");
    await fc.assert(
      fc.asyncProperty(
        fc.option(
          fc.array(
            fc.oneof(
              fc.constantFrom("", "node_modules/", "# build", "dist", "\r", " *.log "),
              fc.string({ maxLength: 12 }),
            ),
            { maxLength: 6 },
          ),
        ),
        fc.constantFrom("\n", "\r\n"),
        fc.boolean(),
        async (parts, eol, finalNewline) => {
          rmSync(path, { force: true });
          let original: string | null = null;
          if (parts !== null) {
            const body = parts.join(eol);
            original = finalNewline && body !== "" ? `${body}${eol}` : body;
            writeFileSync(path, original);
          }
          const added = await ensureGitignored(dir, todoDir);
          const removed = await removeGitignored(dir, todoDir);
          expect(removed).toBe(added);
          if (original === null) expect(existsSync(path)).toBe(false);
          else expect(readFileSync(path, "utf8")).toBe(original);
        },
      ),
      { numRuns: 150 },
    );
  });

  it("keeps what was written after the lines, and leaves an empty file empty", async () => {
    const todoDir = join(dir, "state");
    const path = join(dir, ".gitignore");
    writeFileSync(path, "dist");
    await ensureGitignored(dir, todoDir);
    writeFileSync(path, `${readFileSync(path, "utf8")}*.log\n`);
    await removeGitignored(dir, todoDir);
    expect(readFileSync(path, "utf8")).toBe("dist\n*.log\n");
    writeFileSync(path, "");
    await ensureGitignored(dir, todoDir);
    await removeGitignored(dir, todoDir);
    expect(existsSync(path)).toBe(true);
    expect(readFileSync(path, "utf8")).toBe("");
  });
});
