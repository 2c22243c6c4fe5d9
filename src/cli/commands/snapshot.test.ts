import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createFileStore } from "../../store/file/index.js";
import { runCli } from "../test-support/run-cli.js";
import { seed } from "../test-support/seed.js";

const folders: string[] = [];

afterAll(async () => {
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
});

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, encoding: "utf8" }).trim();
}

async function project(): Promise<{ repo: string; store: string }> {
  const repo = await mkdtemp(join(tmpdir(), "tc-cli-snapshot-"));
  folders.push(repo);
  git(repo, "init", "--quiet");
  await writeFile(join(repo, ".gitignore"), ".agent/\n");
  const store = join(repo, ".agent");
  const files = createFileStore({ root: store });
  await seed(files);
  await files.close();
  return { repo, store };
}

describe("snapshot", () => {
  it("force-commits the git-ignored todo folder, and only it, leaving other staged work alone", async () => {
    const { repo, store } = await project();
    await writeFile(join(repo, "work.txt"), "staged, not committed\n");
    git(repo, "add", "work.txt");
    const run = await runCli(["--dir", store, "snapshot", "-m", "lists before lunch"]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Committed \.agent\/todo in .* as [0-9a-f]{12}\.$/m);
    const files = git(repo, "show", "--name-only", "--format=%s", "HEAD").split("\n");
    expect(files[0]).toBe("lists before lunch");
    expect(files).toContain(".agent/todo/tui.json");
    expect(files.some((f) => f.endsWith(".lock") || f.endsWith(".tmp"))).toBe(false);
    expect(files).not.toContain("work.txt");
    expect(git(repo, "diff", "--cached", "--name-only")).toBe("work.txt");
  });

  it("makes no commit when nothing changed, and a new one after a change", async () => {
    const { repo, store } = await project();
    await runCli(["--dir", store, "snapshot"]);
    const again = await runCli(["--dir", store, "snapshot", "--json"]);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ commit: null, path: ".agent/todo" });
    await runCli(["--dir", store, "clear", "tui"]);
    const changed = JSON.parse((await runCli(["--dir", store, "snapshot", "--json"])).stdout) as {
      commit: string;
    };
    expect(changed.commit).toBe(git(repo, "rev-parse", "HEAD"));
    expect(git(repo, "log", "--format=%s")).toBe(
      "todo-continuation snapshot\ntodo-continuation snapshot",
    );
  });

  it("makes the store folder a repository of its own outside any work tree", async () => {
    const outside = await mkdtemp(join(tmpdir(), "tc-cli-snapshot-bare-"));
    folders.push(outside);
    const store = join(outside, "store");
    await mkdir(store);
    const files = createFileStore({ root: store });
    await seed(files);
    await files.close();
    const run = await runCli(["--dir", store, "snapshot"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Created a git repository in ${store}.`);
    expect(git(store, "ls-files")).toContain("todo/tui.json");
  });

  it("refuses PostgreSQL and an empty message", async () => {
    const pg = await runCli(["--database-url", "postgres://nobody@127.0.0.1:1/x", "snapshot"]);
    expect(pg.code).toBe(1);
    expect(pg.stderr).toContain(
      "snapshot commits the file store's folder, but PostgreSQL is selected",
    );
    const empty = await runCli(["--dir", tmpdir(), "snapshot", "-m", " "]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain("--message: the commit message must not be empty");
  });
});
